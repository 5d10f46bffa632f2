"""The tables of the server store's database, step by step; the connection
(:mod:`~bot.store.postgres.connection`) applies the steps a database lacks when it connects."""

from __future__ import annotations

import re

#: The schema step by step, as in the SQLite store (the same numbering, so "schema 3" means
#: the same tables on both): ``MIGRATIONS[n]`` takes a database from version n to n + 1.
MIGRATIONS = (
    """
    CREATE TABLE IF NOT EXISTS tables (
        chat    TEXT PRIMARY KEY,
        version BIGINT NOT NULL,
        status  TEXT NOT NULL,
        due_at  DOUBLE PRECISION,
        data    TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tables_due ON tables (due_at) WHERE due_at IS NOT NULL;
    """,
    """
    CREATE TABLE IF NOT EXISTS notes (
        chat  TEXT NOT NULL,
        key   TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (chat, key)
    );
    """,
    """
    CREATE TABLE IF NOT EXISTS seated (
        player TEXT NOT NULL,
        chat   TEXT NOT NULL,
        PRIMARY KEY (player, chat)
    );
    CREATE INDEX IF NOT EXISTS seated_chat ON seated (chat);
    DROP INDEX IF EXISTS tables_due;
    CREATE INDEX IF NOT EXISTS tables_due_chat ON tables (due_at, chat) WHERE due_at IS NOT NULL;
    ALTER TABLE tables ADD COLUMN IF NOT EXISTS claimed_by TEXT;
    ALTER TABLE tables ADD COLUMN IF NOT EXISTS claimed_until DOUBLE PRECISION;
    INSERT INTO seated (player, chat)
        SELECT DISTINCT s ->> 'user', t.chat
        FROM tables AS t, jsonb_array_elements(t.data::jsonb -> 'seats') AS s
        WHERE t.status = 'playing' AND s ->> 'user' IS NOT NULL
        ON CONFLICT DO NOTHING;
    """,
    # Finished games, kept for good: ratings, /top and /stats are rebuilt from them.
    """
    CREATE TABLE IF NOT EXISTS finished (
        id          BIGSERIAL PRIMARY KEY,
        chat        TEXT NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        data        TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS finished_chat ON finished (chat, finished_at);
    """,
    # The outbox: what a command or the clock said, kept from the commit until delivered.
    """
    CREATE TABLE IF NOT EXISTS outbox (
        id            BIGSERIAL PRIMARY KEY,
        chat          TEXT NOT NULL,
        since         DOUBLE PRECISION NOT NULL,
        body          TEXT NOT NULL,
        attachment    BYTEA,
        claimed_by    TEXT,
        claimed_until DOUBLE PRECISION
    );
    CREATE INDEX IF NOT EXISTS outbox_chat ON outbox (chat, id);
    """,
    # Tournaments (issue 30), as in the SQLite store.
    """
    CREATE TABLE IF NOT EXISTS tournaments (
        id            TEXT PRIMARY KEY,
        version       BIGINT NOT NULL,
        status        TEXT NOT NULL,
        code          TEXT,
        due_at        DOUBLE PRECISION,
        claimed_by    TEXT,
        claimed_until DOUBLE PRECISION,
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
    # The expert's review of a finished game, beside its ``finished`` row; written once.
    """
    CREATE TABLE IF NOT EXISTS reviews (
        chat          TEXT NOT NULL,
        finished_at   DOUBLE PRECISION NOT NULL,
        claimed_by    TEXT,
        claimed_until DOUBLE PRECISION,
        data          TEXT,
        PRIMARY KEY (chat, finished_at)
    );
    CREATE INDEX IF NOT EXISTS reviews_pending ON reviews (chat, finished_at) WHERE data IS NULL;
    CREATE TABLE IF NOT EXISTS puzzles (
        id        BIGSERIAL PRIMARY KEY,
        chat      TEXT NOT NULL,
        posted_at DOUBLE PRECISION NOT NULL,
        data      TEXT NOT NULL,
        closed    BOOLEAN NOT NULL DEFAULT FALSE
    );
    CREATE INDEX IF NOT EXISTS puzzles_chat ON puzzles (chat, id);
    CREATE TABLE IF NOT EXISTS puzzle_answers (
        puzzle BIGINT NOT NULL,
        player TEXT NOT NULL,
        name   TEXT NOT NULL,
        solved BOOLEAN NOT NULL,
        at     DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (puzzle, player)
    );
    CREATE INDEX IF NOT EXISTS puzzle_answers_player ON puzzle_answers (player);
    """,
    # One person on two platforms (issue 49), as in the SQLite store.
    """
    CREATE TABLE IF NOT EXISTS link_codes (
        code       TEXT PRIMARY KEY,
        account    TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
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
