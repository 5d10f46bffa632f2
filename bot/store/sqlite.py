"""The embedded store: tables in one SQLite file (standard library ``sqlite3``).

Every save is one transaction that succeeds only if the table still has the version it
was loaded with, so two commands racing for one table (a double click, two adapter
threads) cannot both be accepted.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot.core.table import STATUSES, Table
from bot.store.base import (
    CLAIM_BATCH,
    Letter,
    Puzzled,
    SavedTournament,
    StaleTable,
    StoreBusy,
    StoreError,
    about_person,
    by_person,
    finished_games,
    forget_seats,
    puzzle_rows,
    read_table,
    read_tournament,
    reviewed_games,
    seated,
    to_json,
)
from bot.words.texts import shown

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
)
SCHEMA_VERSION = len(MIGRATIONS)
#: Seconds a statement waits for another connection's write lock before the store
#: reports itself busy (SQLite's busy timeout).
BUSY_TIMEOUT = 10.0
#: Seconds between two looks of a listener (:meth:`SQLiteStore.listen`) at the file.
LISTEN_POLL = 0.25


def _statements(script: str) -> list[str]:
    """The statements of a migration step, to run one by one inside the caller's
    transaction (``executescript`` would commit first). The steps hold no ``;`` inside a
    string or a trigger."""
    return [part.strip() for part in script.split(";") if part.strip()]


@contextmanager
def _busy() -> Iterator[None]:
    """SQLite's "database is locked" (past the busy timeout) as :class:`StoreBusy`."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        text = str(exc).lower()
        if "locked" in text or "busy" in text:
            raise StoreBusy(str(exc)) from None
        raise


class SQLiteStore:
    """Tables in one SQLite file (``:memory:`` for a throw-away store)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        """Open (and create if needed) the database.

        Raises:
            StoreError: if the file cannot be opened or is not a store of this bot.
        """
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot make its folder ({exc.strerror})") from None
        # One connection shared under a lock: adapters call the service from a thread pool.
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=busy_timeout, check_same_thread=False, isolation_level=None
            )
            if self.path != ":memory:":
                self._wal(busy_timeout)
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
            if self.path != ":memory:":
                # A damaged page answers every later read with an error: say so at start.
                check = self._db.execute("PRAGMA quick_check(1)").fetchone()[0]
                if check != "ok":
                    raise StoreError(f"{self.path}: damaged ({shown(check)})")
        except sqlite3.DatabaseError as exc:
            if "readonly" in str(exc).replace("-", "").replace(" ", "").lower():
                raise StoreError(
                    f"{self.path}: read-only, the bot must be able to write it"
                ) from None
            raise StoreError(f"{self.path}: {exc}") from None

    def _wal(self, patience: float) -> None:
        """Switch a file to write-ahead logging. The switch needs the file alone, and
        SQLite answers "locked" at once, without its busy timeout, while another process
        opening it reads it: so try again for up to ``patience`` seconds."""
        deadline = time.monotonic() + patience
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self) -> None:
        """Bring the schema up to date: the version is read and every step applied in one
        ``BEGIN IMMEDIATE`` transaction, so of several processes opening a file at once
        one migrates and the others find it done (never the same step twice). The version
        is written even when up to date: a file the bot cannot write is found now, not at
        the first move."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: made by a newer genial-bot (schema {version})")
            for step in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[step]):
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {max(version, SCHEMA_VERSION)}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    @contextmanager
    def _immediate(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock at once (call with the store's lock
        held): committed at the end unless already ended (a rollback), rolled back on any
        error."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if db.in_transaction:
            db.execute("COMMIT")

    def load(self, chat: str) -> Table | None:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT data, version FROM tables WHERE chat = ?", (chat,)
            ).fetchone()
        return None if row is None else read_table(chat, row[0], row[1])

    def load_seated(
        self, chat: str, keys: Sequence[str]
    ) -> tuple[Table | None, dict[str, dict[str, str]]]:
        # One statement: the index as saved with the row's version.
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT t.data, t.version,"
                " (SELECT json_group_array(json_array(n.chat, n.key, n.value))"
                "  FROM seated AS s JOIN notes AS n ON n.chat = s.player"
                "  AND n.key IN (SELECT value FROM json_each(?))"
                "  WHERE s.chat = t.chat)"
                " FROM tables AS t WHERE t.chat = ?",
                (json.dumps(list(keys)), chat),
            ).fetchone()
        if row is None:
            return None, {}
        return read_table(chat, row[0], row[1]), by_person(json.loads(row[2]) if row[2] else [])

    def save(
        self,
        table: Table,
        loaded_version: int | None,
        letters: Sequence[Letter] = (),
        *,
        owner: str | None = None,
        now: float = 0.0,
        lease: float = 0.0,
    ) -> list[int]:
        data = to_json(table)
        values = (table.version, table.status, table.due_at, data, table.chat)
        with self._lock, _busy(), self._immediate():
            if loaded_version is None:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO tables (version, status, due_at, data, chat)"
                    " VALUES (?, ?, ?, ?, ?)",
                    values,
                )
            else:
                cur = self._db.execute(
                    "UPDATE tables SET version = ?, status = ?, due_at = ?, data = ?"
                    " WHERE chat = ? AND version = ?",
                    (*values, loaded_version),
                )
            if cur.rowcount != 1:
                self._db.execute("ROLLBACK")
                raise StaleTable(table.chat)
            self._db.execute("DELETE FROM seated WHERE chat = ?", (table.chat,))
            self._db.executemany(
                "INSERT OR IGNORE INTO seated (player, chat) VALUES (?, ?)",
                [(player, table.chat) for player in seated(table)],
            )
            ids = self._post(letters, owner, now, lease)
        return ids

    def _post(
        self, letters: Sequence[Letter], owner: str | None, now: float, lease: float
    ) -> list[int]:
        """Insert letters (with the store's lock held, inside a transaction)."""
        until = now + lease if owner is not None else None
        ids = []
        for letter in letters:
            cur = self._db.execute(
                "INSERT INTO outbox (chat, since, body, attachment, claimed_by, claimed_until)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (letter.chat, now, letter.body, letter.attachment, owner, until),
            )
            assert cur.lastrowid is not None
            ids.append(cur.lastrowid)
        return ids

    def post(
        self, letters: Sequence[Letter], *, owner: str | None, now: float, lease: float
    ) -> list[int]:
        with self._lock, _busy(), self._immediate():
            ids = self._post(letters, owner, now, lease)
        return ids

    def letters(
        self, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[Letter]:
        # Chats another live claim holds are left out whole: their order is that owner's.
        where = "chat NOT IN (SELECT chat FROM outbox WHERE claimed_by <> ? AND claimed_until > ?)"
        params: tuple[object, ...] = (owner, now)
        if chat is not None:
            where += " AND chat = ?"
            params += (chat,)
        with self._lock, _busy(), self._immediate():
            rows = self._db.execute(
                "SELECT id, chat, since, body, attachment FROM outbox"
                f" WHERE {where} ORDER BY id LIMIT ?",
                (*params, CLAIM_BATCH),
            ).fetchall()
            self._db.executemany(
                "UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE id = ?",
                [(owner, now + lease, row[0]) for row in rows],
            )
        return [
            Letter(chat, body, None if data is None else bytes(data), int(id_), float(since))
            for id_, chat, since, body, data in rows
        ]

    def posted(self, ids: Sequence[int]) -> None:
        with self._lock, _busy():
            self._db.executemany("DELETE FROM outbox WHERE id = ?", [(i,) for i in ids])

    def unclaim(self, owner: str, ids: Sequence[int]) -> None:
        with self._lock, _busy():
            self._db.executemany(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
                " WHERE id = ? AND claimed_by = ?",
                [(i, owner) for i in ids],
            )

    def drop_letters(self, chat: str) -> None:
        with self._lock, _busy():
            self._db.execute("DELETE FROM outbox WHERE chat = ?", (chat,))

    def waiting(self) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM outbox GROUP BY chat ORDER BY MIN(id) LIMIT ?", (CLAIM_BATCH,)
            ).fetchall()
        return [r[0] for r in rows]

    def due(self, now: float) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM tables WHERE due_at IS NOT NULL AND due_at <= ?"
                " ORDER BY due_at, chat",
                (now,),
            ).fetchall()
        return [r[0] for r in rows]

    def next_due(self) -> float | None:
        with self._lock, _busy():
            row = self._db.execute("SELECT MIN(due_at) FROM tables").fetchone()
        return None if row[0] is None else float(row[0])

    def note(self, chat: str, key: str) -> str | None:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT value FROM notes WHERE chat = ? AND key = ?", (chat, key)
            ).fetchone()
        return None if row is None else str(row[0])

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        with self._lock, _busy():
            if value is None:
                self._db.execute("DELETE FROM notes WHERE chat = ? AND key = ?", (chat, key))
            else:
                self._db.execute(
                    "INSERT INTO notes (chat, key, value) VALUES (?, ?, ?)"
                    " ON CONFLICT (chat, key) DO UPDATE SET value = excluded.value",
                    (chat, key, value),
                )

    def notes_of(self, chat: str) -> dict[str, str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT key, value FROM notes WHERE chat = ? ORDER BY key", (chat,)
            ).fetchall()
        return {str(k): str(v) for k, v in rows}

    def tables_with(self, text: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM tables WHERE instr(data, ?) > 0 ORDER BY chat", (text,)
            ).fetchall()
        return [r[0] for r in rows]

    def forget_player(self, user: str, alias: str, name: str) -> int:
        quoted = json.dumps(user)
        with self._lock, _busy(), self._immediate():
            rows = self._db.execute(
                "SELECT id, data FROM finished WHERE instr(data, ?) > 0", (quoted,)
            ).fetchall()
            changed = []
            for row_id, text in rows:
                data = json.loads(text)
                if isinstance(data, dict) and forget_seats(data, user, alias, name):
                    changed.append((json.dumps(data, separators=(",", ":")), row_id))
            self._db.executemany("UPDATE finished SET data = ? WHERE id = ?", changed)
            keys = self._db.execute(
                "SELECT chat, key FROM notes WHERE chat = ? OR substr(key, -?) IN (?, ?)",
                (user, len(user) + 1, f":{user}", f".{user}"),
            ).fetchall()
            self._db.executemany(
                "DELETE FROM notes WHERE chat = ? AND key = ?",
                [(c, k) for c, k in keys if c == user or about_person(k, user)],
            )
            # Puzzle answers keep their count for the puzzle, under the alias.
            self._db.execute(
                "UPDATE puzzle_answers SET player = ?, name = ? WHERE player = ?",
                (alias, name, user),
            )
        return len(changed)

    def move(self, old: str, new: str) -> bool:
        with self._lock, _busy(), self._immediate():
            row = self._db.execute("SELECT data FROM tables WHERE chat = ?", (old,)).fetchone()
            taken = self._db.execute("SELECT 1 FROM tables WHERE chat = ?", (new,)).fetchone()
            if row is None or taken is not None:
                self._db.execute("ROLLBACK")
                return False
            data = json.loads(row[0])
            data["chat"] = new
            self._db.execute(
                "UPDATE tables SET chat = ?, data = ? WHERE chat = ?",
                (new, json.dumps(data, separators=(",", ":")), old),
            )
            self._db.execute("UPDATE seated SET chat = ? WHERE chat = ?", (new, old))
            self._db.execute("DELETE FROM notes WHERE chat = ?", (new,))
            self._db.execute("UPDATE notes SET chat = ? WHERE chat = ?", (new, old))
            self._db.execute("UPDATE finished SET chat = ? WHERE chat = ?", (new, old))
            self._db.execute("UPDATE outbox SET chat = ? WHERE chat = ?", (new, old))
            return True

    def archive(self, chat: str, finished_at: float, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock, _busy():
            self._db.execute(
                "INSERT INTO finished (chat, finished_at, data) VALUES (?, ?, ?)",
                (chat, finished_at, text),
            )

    def archived(self, chat: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT chat, finished_at, data FROM finished"
        params: tuple[str, ...] = ()
        if chat is not None:
            query += " WHERE chat = ?"
            params = (chat,)
        with self._lock, _busy():
            rows = self._db.execute(query + " ORDER BY finished_at, id", params).fetchall()
        return finished_games(rows)

    def want_review(self, chat: str, finished_at: float) -> None:
        with self._lock, _busy():
            self._db.execute(
                "INSERT OR IGNORE INTO reviews (chat, finished_at) VALUES (?, ?)",
                (chat, finished_at),
            )

    def claim_review(
        self, chat: str, owner: str, now: float, lease: float
    ) -> dict[str, Any] | None:
        with self._lock, _busy(), self._immediate() as db:
            row = db.execute(
                "SELECT r.finished_at, f.data FROM reviews AS r JOIN finished AS f"
                " ON f.chat = r.chat AND f.finished_at = r.finished_at"
                " WHERE r.chat = ? AND r.data IS NULL"
                " AND (r.claimed_until IS NULL OR r.claimed_until < ?)"
                " ORDER BY r.finished_at LIMIT 1",
                (chat, now),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE reviews SET claimed_by = ?, claimed_until = ?"
                " WHERE chat = ? AND finished_at = ?",
                (owner, now + lease, chat, row[0]),
            )
        games = finished_games([(chat, row[0], row[1])])
        return games[0] if games else None

    def save_review(self, chat: str, finished_at: float, data: dict[str, Any]) -> bool:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock, _busy():
            cur = self._db.execute(
                "UPDATE reviews SET data = ?, claimed_by = NULL, claimed_until = NULL"
                " WHERE chat = ? AND finished_at = ? AND data IS NULL",
                (text, chat, finished_at),
            )
        return cur.rowcount == 1

    def reviews(
        self, chat: str | None = None
    ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        query = (
            "SELECT f.chat, f.finished_at, f.data, r.data FROM reviews AS r JOIN finished AS f"
            " ON f.chat = r.chat AND f.finished_at = r.finished_at"
        )
        params: tuple[str, ...] = ()
        if chat is not None:
            query += " WHERE r.chat = ?"
            params = (chat,)
        with self._lock, _busy():
            rows = self._db.execute(query + " ORDER BY f.finished_at, f.id", params).fetchall()
        return reviewed_games(rows)

    def post_puzzle(self, chat: str, posted_at: float, data: dict[str, Any]) -> int:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock, _busy():
            cur = self._db.execute(
                "INSERT INTO puzzles (chat, posted_at, data) VALUES (?, ?, ?)",
                (chat, posted_at, text),
            )
        return int(cur.lastrowid or 0)

    def puzzles(self, chat: str) -> list[Puzzled]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE chat = ? ORDER BY id",
                (chat,),
            ).fetchall()
        return puzzle_rows(rows)

    def puzzle(self, puzzle_id: int) -> Puzzled | None:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE id = ?", (puzzle_id,)
            ).fetchall()
        found = puzzle_rows(rows)
        return found[0] if found else None

    def close_puzzle(self, puzzle_id: int) -> bool:
        with self._lock, _busy():
            cur = self._db.execute(
                "UPDATE puzzles SET closed = 1 WHERE id = ? AND closed = 0", (puzzle_id,)
            )
        return cur.rowcount == 1

    def answer_puzzle(
        self, puzzle_id: int, player: str, name: str, solved: bool, at: float
    ) -> None:
        with self._lock, _busy():
            self._db.execute(
                "INSERT INTO puzzle_answers (puzzle, player, name, solved, at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (puzzle, player) DO UPDATE SET"
                " name = excluded.name, solved = MAX(solved, excluded.solved), at = excluded.at",
                (puzzle_id, player, name, int(solved), at),
            )

    def puzzle_answers(self, puzzle_id: int) -> list[tuple[str, str, bool]]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT player, name, solved FROM puzzle_answers WHERE puzzle = ? ORDER BY at",
                (puzzle_id,),
            ).fetchall()
        return [(str(p), str(n), bool(s)) for p, n, s in rows]

    def puzzles_solved(self, player: str) -> int:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT COUNT(*) FROM puzzle_answers WHERE player = ? AND solved = 1", (player,)
            ).fetchone()
        return int(row[0])

    def chats(self) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute("SELECT chat FROM tables ORDER BY chat").fetchall()
        return [r[0] for r in rows]

    def playing(self, user: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM seated WHERE player = ? ORDER BY chat", (user,)
            ).fetchall()
        return [r[0] for r in rows]

    def claim(
        self, due_by: float, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[str]:
        return self._claim("tables", "chat", due_by, owner, now, lease, chat)

    def release(self, owner: str, chats: list[str]) -> None:
        self._release("tables", "chat", owner, chats)

    def _claim(
        self, table: str, key: str, due_by: float, owner: str, now: float, lease: float,
        only: str | None,
    ) -> list[str]:  # fmt: skip
        """Claim the rows of ``table`` (tables, tournaments) due by ``due_by`` that nobody
        else holds, soonest first, at most :data:`CLAIM_BATCH`; ``only``: that row alone."""
        where = (
            "due_at IS NOT NULL AND due_at <= ?"
            " AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?)"
        )
        params: tuple[object, ...] = (due_by, now, owner)
        if only is not None:
            where += f" AND {key} = ?"
            params += (only,)
        with self._lock, _busy(), self._immediate():
            rows = self._db.execute(
                f"SELECT {key} FROM {table} WHERE {where} ORDER BY due_at, {key} LIMIT ?",
                (*params, CLAIM_BATCH),
            ).fetchall()
            keys = [r[0] for r in rows]
            self._db.executemany(
                f"UPDATE {table} SET claimed_by = ?, claimed_until = ? WHERE {key} = ?",
                [(owner, now + lease, k) for k in keys],
            )
        return keys

    def _release(self, table: str, key: str, owner: str, keys: list[str]) -> None:
        with self._lock, _busy():
            self._db.executemany(
                f"UPDATE {table} SET claimed_by = NULL, claimed_until = NULL"
                f" WHERE {key} = ? AND claimed_by = ?",
                [(k, owner) for k in keys],
            )

    def claimants(self) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT claimed_by FROM tables WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM outbox WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM tournaments WHERE claimed_by IS NOT NULL"
            ).fetchall()
        return sorted(r[0] for r in rows)

    def release_owner(self, owner: str) -> None:
        with self._lock, _busy():
            self._db.execute(
                "UPDATE tables SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?",
                (owner,),
            )
            self._db.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?",
                (owner,),
            )
            self._db.execute(
                "UPDATE tournaments SET claimed_by = NULL, claimed_until = NULL"
                " WHERE claimed_by = ?",
                (owner,),
            )

    def nudge(self) -> None:
        """Nothing to send: a listener sees the letters themselves (:meth:`listen`)."""

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """Wake on letters that another process left for anyone to deliver: SQLite has no
        notifications, so a thread of its own looks at the file every
        :data:`LISTEN_POLL` seconds (``data_version`` tells a commit by another
        connection; only then is the outbox read)."""
        stop = threading.Event()
        if self.path == ":memory:":
            return stop.set  # one connection: no other process to hear
        thread = threading.Thread(
            target=self._listen, args=(wake, stop), name="genial-letters", daemon=True
        )
        thread.start()
        return stop.set

    def _listen(self, wake: Callable[[], None], stop: threading.Event) -> None:
        seen: int | None = None
        db: sqlite3.Connection | None = None
        wake()  # letters may have been left before this process listened
        while not stop.wait(LISTEN_POLL):
            try:
                if db is None:
                    db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
                version = int(db.execute("PRAGMA data_version").fetchone()[0])
                if version == seen:
                    continue
                seen = version
                waits = db.execute("SELECT 1 FROM outbox WHERE claimed_by IS NULL LIMIT 1")
                if waits.fetchone() and not stop.is_set():
                    wake()
            except sqlite3.Error:
                if db is not None:
                    db.close()
                db = None  # the file away or locked: open it again at the next look
        if db is not None:
            db.close()

    def census(self, now: float) -> dict[str, int]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT status, COUNT(*) FROM tables GROUP BY status"
            ).fetchall()
            due = self._db.execute(
                "SELECT COUNT(*) FROM tables WHERE due_at IS NOT NULL AND due_at <= ?", (now,)
            ).fetchone()[0]
            waiting = self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
        counts = {**{status: 0 for status in STATUSES}, **dict(rows), "due": int(due)}
        return {**counts, "waiting": int(waiting)}

    # --- tournaments (issue 30) ---------------------------------------------------------

    def load_tournament(self, tid: str) -> tuple[int, dict[str, Any]] | None:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT version, data FROM tournaments WHERE id = ?", (tid,)
            ).fetchone()
        return None if row is None else (int(row[0]), read_tournament(tid, row[1]))

    def save_tournament(
        self,
        saved: SavedTournament,
        loaded_version: int | None,
        letters: Sequence[Letter] = (),
        *,
        owner: str | None = None,
        now: float = 0.0,
        lease: float = 0.0,
    ) -> list[int]:
        data = json.dumps(saved.data, separators=(",", ":"))
        values = (saved.version, saved.status, saved.code, saved.due_at, data, saved.id)
        with self._lock, _busy(), self._immediate():
            if loaded_version is None:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO tournaments (version, status, code, due_at, data, id)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    values,
                )
            else:
                cur = self._db.execute(
                    "UPDATE tournaments SET version = ?, status = ?, code = ?, due_at = ?,"
                    " data = ? WHERE id = ? AND version = ?",
                    (*values, loaded_version),
                )
            if cur.rowcount != 1:
                self._db.execute("ROLLBACK")
                raise StaleTable(saved.id)
            self._db.execute("DELETE FROM tournament_chats WHERE tournament = ?", (saved.id,))
            self._db.executemany(
                "INSERT OR IGNORE INTO tournament_chats (chat, tournament) VALUES (?, ?)",
                [(chat, saved.id) for chat in saved.chats],
            )
            ids = self._post(letters, owner, now, lease)
        return ids

    def tournaments_of(self, chat: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT tournament FROM tournament_chats WHERE chat = ? ORDER BY tournament",
                (chat,),
            ).fetchall()
        return [r[0] for r in rows]

    def tournament_by_code(self, code: str) -> str | None:
        with self._lock, _busy():
            row = self._db.execute("SELECT id FROM tournaments WHERE code = ?", (code,)).fetchone()
        return None if row is None else str(row[0])

    def tournaments_with(self, text: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id FROM tournaments WHERE instr(data, ?) > 0 ORDER BY id", (text,)
            ).fetchall()
        return [r[0] for r in rows]

    def due_tournaments(self, now: float) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id FROM tournaments WHERE due_at IS NOT NULL AND due_at <= ?"
                " ORDER BY due_at, id",
                (now,),
            ).fetchall()
        return [r[0] for r in rows]

    def next_tournament_due(self) -> float | None:
        with self._lock, _busy():
            row = self._db.execute("SELECT MIN(due_at) FROM tournaments").fetchone()
        return None if row[0] is None else float(row[0])

    def claim_tournaments(
        self, due_by: float, owner: str, now: float, lease: float, *, tid: str | None = None
    ) -> list[str]:
        return self._claim("tournaments", "id", due_by, owner, now, lease, tid)

    def release_tournaments(self, owner: str, ids: list[str]) -> None:
        self._release("tournaments", "id", owner, ids)

    def close(self) -> None:
        with self._lock, _busy():
            self._db.close()
