"""The tables of the embedded store's file, step by step; the connection
(:mod:`~bot.store.sqlite.connection`) applies the steps a file lacks when it opens it."""

from __future__ import annotations

import re

#: The schema step by step: ``MIGRATIONS[n]`` takes a database from version n to n + 1
#: (``PRAGMA user_version``), so an older file is brought up to date when it is opened.
MIGRATIONS = (
    """
    CREATE TABLE IF NOT EXISTS tables (
        chat    TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        status  TEXT NOT NULL,
        due_at  REAL,
        data    TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tables_due ON tables (due_at) WHERE due_at IS NOT NULL;
    """,
    # What adapters must remember across restarts (a lobby's message id, a thread),
    # kept beside the table, outside its version: a note never makes a button stale.
    """
    CREATE TABLE IF NOT EXISTS notes (
        chat  TEXT NOT NULL,
        key   TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (chat, key)
    );
    """,
    # Who sits at which running game, kept with each save, so a player's tables are found
    # by index; and which process has claimed a table's due work, until when. Due tables
    # are indexed in the order they are claimed (deadline, then chat), so a claim reads
    # one batch, never every due table to sort them.
    """
    CREATE TABLE IF NOT EXISTS seated (
        player TEXT NOT NULL,
        chat   TEXT NOT NULL,
        PRIMARY KEY (player, chat)
    );
    CREATE INDEX IF NOT EXISTS seated_chat ON seated (chat);
    DROP INDEX IF EXISTS tables_due;
    CREATE INDEX IF NOT EXISTS tables_due_chat ON tables (due_at, chat) WHERE due_at IS NOT NULL;
    ALTER TABLE tables ADD COLUMN claimed_by TEXT;
    ALTER TABLE tables ADD COLUMN claimed_until REAL;
    INSERT OR IGNORE INTO seated (player, chat)
        SELECT json_extract(s.value, '$.user'), t.chat
        FROM tables AS t, json_each(t.data, '$.seats') AS s
        WHERE t.status = 'playing' AND json_extract(s.value, '$.user') IS NOT NULL;
    """,
    # Finished games, kept for good (issue 13): ratings, /top and /stats are rebuilt from
    # them, so a change of rating model loses nothing. ``data`` is the table's seats,
    # options and record at the end (``Service`` writes it, ``bot.community.ratings`` reads it).
    """
    CREATE TABLE IF NOT EXISTS finished (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        chat        TEXT NOT NULL,
        finished_at REAL NOT NULL,
        data        TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS finished_chat ON finished (chat, finished_at);
    """,
    # The outbox (issue 23): what a command or the clock said, written in the transaction
    # of the table change itself and deleted once a platform delivered it, so a bot killed
    # between the commit and the post says it after the restart. ``claimed_by`` is the
    # process delivering it now, until ``claimed_until``.
    """
    CREATE TABLE IF NOT EXISTS outbox (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        chat          TEXT NOT NULL,
        since         REAL NOT NULL,
        body          TEXT NOT NULL,
        attachment    BLOB,
        claimed_by    TEXT,
        claimed_until REAL
    );
    CREATE INDEX IF NOT EXISTS outbox_chat ON outbox (chat, id);
    """,
    # Tournaments (issue 30): each a row with its own version, like a table, its due
    # work claimed like a table's; ``code`` is a team battle's invite code; and the chats
    # each tournament is played from (its home and its teams), to find them by chat.
    """
    CREATE TABLE IF NOT EXISTS tournaments (
        id            TEXT PRIMARY KEY,
        version       INTEGER NOT NULL,
        status        TEXT NOT NULL,
        code          TEXT,
        due_at        REAL,
        claimed_by    TEXT,
        claimed_until REAL,
        data          TEXT NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS tournaments_code ON tournaments (code)
        WHERE code IS NOT NULL;
    CREATE INDEX IF NOT EXISTS tournaments_due ON tournaments (due_at, id)
        WHERE due_at IS NOT NULL;
    CREATE TABLE IF NOT EXISTS tournament_chats (
        chat       TEXT NOT NULL,
        tournament TEXT NOT NULL,
        PRIMARY KEY (chat, tournament)
    );
    """,
    # The expert's review of a finished game (issue 29), beside its ``finished`` row (the
    # same chat and finished_at): wanted when the game ends, claimed by one process at a
    # time (``claimed_by`` until ``claimed_until``), ``data`` written once and never again.
    """
    CREATE TABLE IF NOT EXISTS reviews (
        chat          TEXT NOT NULL,
        finished_at   REAL NOT NULL,
        claimed_by    TEXT,
        claimed_until REAL,
        data          TEXT,
        PRIMARY KEY (chat, finished_at)
    );
    CREATE INDEX IF NOT EXISTS reviews_pending ON reviews (chat, finished_at) WHERE data IS NULL;
    CREATE TABLE IF NOT EXISTS puzzles (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        chat      TEXT NOT NULL,
        posted_at REAL NOT NULL,
        data      TEXT NOT NULL,
        closed    INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS puzzles_chat ON puzzles (chat, id);
    CREATE TABLE IF NOT EXISTS puzzle_answers (
        puzzle INTEGER NOT NULL,
        player TEXT NOT NULL,
        name   TEXT NOT NULL,
        solved INTEGER NOT NULL,
        at     REAL NOT NULL,
        PRIMARY KEY (puzzle, player)
    );
    CREATE INDEX IF NOT EXISTS puzzle_answers_player ON puzzle_answers (player);
    """,
    # One person on two platforms (issue 49): a one-time code ``/link`` gives (one per
    # account, until ``expires_at``), and each linked account with the person it is
    # (the account that asked for the code): ratings and ``/games`` go by the person.
    """
    CREATE TABLE IF NOT EXISTS link_codes (
        code       TEXT PRIMARY KEY,
        account    TEXT NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS link_codes_account ON link_codes (account);
    CREATE TABLE IF NOT EXISTS links (
        account TEXT PRIMARY KEY,
        person  TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS links_person ON links (person);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
#: The tables the schema makes, in the order its steps make them: a store that claims
#: this version must have every one (a file set to it by hand with none is no store).
TABLES = tuple(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", "".join(MIGRATIONS)))
