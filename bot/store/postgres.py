"""The server store: tables in PostgreSQL (psycopg 3 with a connection pool), for several
bot processes on one database.

The same rules as the embedded store: every save is one transaction that succeeds only if
the table still has the version it was loaded with, so whichever process saves first wins
and the other is told :class:`StaleTable`. Due work is claimed row by row with
``FOR UPDATE SKIP LOCKED`` and a lease, so two processes never claim one table at once.
"""

from __future__ import annotations

import json
import select
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from bot.core.table import STATUSES, Table
from bot.store.base import (
    CLAIM_BATCH,
    Letter,
    Puzzled,
    SavedTournament,
    StaleTable,
    StoreDown,
    StoreError,
    about_person,
    by_person,
    finished_games,
    forget_seats,
    puzzle_rows,
    read_table,
    read_tournament,
    reviewed_games,
    safe_url,
    seated,
    to_json,
    without_secrets,
)

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
)
SCHEMA_VERSION = len(MIGRATIONS)
#: Any number will do, as long as it is the same for every process: it makes processes
#: starting together take turns at migrating.
_MIGRATION_LOCK = 0x67656E69
#: The same, for processes claiming letters of the outbox.
_OUTBOX_LOCK = 0x67656E6A
#: Connections one process keeps at most (its command threads share them).
POOL_SIZE = 8
#: Seconds a command waits for a connection before the store counts as down: a server
#: that restarts is back within it, one that is away is answered "not answering".
WAIT = 5.0
#: Seconds a new connection may take to be made while the bot runs.
CONNECT_TIMEOUT = 5
#: The channel of :meth:`PostgresStore.nudge` (``NOTIFY``) and its listeners (``LISTEN``).
NUDGES = "genial_letters"
#: Seconds a listener waits for a notification before it looks whether to stop; and after
#: losing its connection, before it connects again.
LISTEN_LOOK = 1.0


def _check(conn: psycopg.Connection[Any]) -> None:
    """Check a pooled connection as it is handed out, without a round trip when it is
    surely alive: an idle connection has nothing to read unless the server closed it (it
    was restarted, or ended that backend) or sent a notice; only then is it asked with a
    query (psycopg_pool's own check), which raises if it is gone, so the pool drops it and
    hands out another."""
    try:
        fd = conn.pgconn.socket
        readable, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError, psycopg.OperationalError):
        readable = [True]
    if readable:
        ConnectionPool.check_connection(conn)


def shown(url: str) -> str:
    """``url`` without its password, fit for a log or an error line."""
    return safe_url(url)


def _failure(url: str, exc: BaseException) -> str:
    """The error line of a failure at ``url``: the URL and the first line of what psycopg
    said, without the password (libpq may quote the URL it could not read, password and
    all)."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"{shown(url)}: {without_secrets(first, url)}"


class PostgresStore:
    """Tables in a PostgreSQL database at ``url`` (``postgresql://user@host:5432/genial``)."""

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE, wait: float = WAIT) -> None:
        """Connect, and bring the schema up to date.

        Args:
            pool_size: connections kept at most.
            wait: seconds a statement waits for a pooled connection before it connects on
                its own (and, failing that, the store counts as down).

        Raises:
            StoreError: if the server cannot be reached, or the database was made by a
                newer genial-bot.
        """
        self.url = url
        try:
            with psycopg.connect(url, connect_timeout=10) as conn:
                self._migrate(conn)
        except psycopg.Error as exc:
            raise StoreError(_failure(url, exc)) from None
        # Autocommit: a read is one round trip; what must be atomic is one statement or
        # an explicit transaction.
        # Each connection is checked as it is handed out: after a server restart the pool
        # holds connections the server closed, and a command must not meet one of them.
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            open=True,
            timeout=wait,
            name="genial",
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
            check=_check,
        )

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool; a server that cannot be reached, or a connection lost
        on the way, is :class:`StoreDown` (the command is answered, the bot goes on)."""
        try:
            with ExitStack() as stack:
                try:
                    conn = stack.enter_context(self._pool.connection())
                except PoolTimeout:
                    # After an outage the pool waits between its attempts at reconnecting,
                    # seconds after the server is back: this command connects on its own.
                    conn = stack.enter_context(
                        psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
                    )
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout) as exc:
            raise StoreDown(_failure(self.url, exc)) from None

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS genial_schema (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM genial_schema").fetchone()
            version = 0 if row is None else int(row[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{shown(self.url)}: made by a newer genial-bot (schema {version})"
                )
            for step in range(version, SCHEMA_VERSION):
                conn.execute(MIGRATIONS[step].encode())
            if row is None:
                conn.execute("INSERT INTO genial_schema VALUES (%s)", (SCHEMA_VERSION,))
            else:
                conn.execute("UPDATE genial_schema SET version = %s", (SCHEMA_VERSION,))

    def load(self, chat: str) -> Table | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT data, version FROM tables WHERE chat = %s", (chat,)
            ).fetchone()
        return None if row is None else read_table(chat, row[0], row[1])

    def load_seated(
        self, chat: str, keys: Sequence[str]
    ) -> tuple[Table | None, dict[str, dict[str, str]]]:
        # One statement sees one snapshot: the index as saved with the row's version.
        with self._connection() as conn:
            row = conn.execute(
                "SELECT t.data, t.version,"
                " (SELECT jsonb_agg(jsonb_build_array(n.chat, n.key, n.value))"
                "  FROM seated AS s JOIN notes AS n ON n.chat = s.player"
                "  AND n.key = ANY(%s)"
                "  WHERE s.chat = t.chat)"
                " FROM tables AS t WHERE t.chat = %s",
                (list(keys), chat),
            ).fetchone()
        if row is None:
            return None, {}
        return read_table(chat, row[0], row[1]), by_person(row[2] or [])

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
        values: tuple[object, ...] = (table.version, table.status, table.due_at, data, table.chat)
        if loaded_version is None:
            write = (
                "INSERT INTO tables (version, status, due_at, data, chat)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (chat) DO NOTHING RETURNING chat"
            )
        else:
            write = (
                "UPDATE tables SET version = %s, status = %s, due_at = %s, data = %s"
                " WHERE chat = %s AND version = %s RETURNING chat"
            )
            values += (loaded_version,)
        players = seated(table)
        until = now + lease if owner is not None else None
        # One statement, so one round trip and one transaction: the table, the players
        # index brought to its seats (rows of people gone deleted, new ones added) and the
        # letters, or nothing at all when the version check fails. The letters are
        # inserted in their order, so their ids grow in it.
        with self._connection() as conn:
            row = conn.execute(
                f"WITH saved AS ({write}),"
                " gone AS (DELETE FROM seated WHERE chat IN (SELECT chat FROM saved)"
                "  AND player <> ALL(%s::text[])),"
                " came AS (INSERT INTO seated (player, chat)"
                "  SELECT DISTINCT p, saved.chat FROM saved, unnest(%s::text[]) AS p"
                "  ON CONFLICT DO NOTHING),"
                " posted AS (INSERT INTO outbox"
                "  (chat, since, body, attachment, claimed_by, claimed_until)"
                "  SELECT l.chat, %s, l.body, l.attachment, %s, %s"
                "  FROM saved, unnest(%s::text[], %s::text[], %s::bytea[]) WITH ORDINALITY"
                "   AS l (chat, body, attachment, n) ORDER BY l.n RETURNING id)"
                " SELECT (SELECT count(*) FROM saved),"
                "  (SELECT array_agg(id ORDER BY id) FROM posted)",
                (
                    *values,
                    players,
                    players,
                    now,
                    owner,
                    until,
                    # Each letter to its own chat: a tournament's table speaks in its
                    # players' chats (issue 30); any other table's letters are its own.
                    [letter.chat for letter in letters],
                    [letter.body for letter in letters],
                    [letter.attachment for letter in letters],
                ),
            ).fetchone()
        if row is None or row[0] != 1:
            raise StaleTable(table.chat)
        return [int(i) for i in row[1] or []]

    def post(
        self, letters: Sequence[Letter], *, owner: str | None, now: float, lease: float
    ) -> list[int]:
        if not letters:
            return []
        until = now + lease if owner is not None else None
        with self._connection() as conn:
            rows = conn.execute(
                "INSERT INTO outbox (chat, since, body, attachment, claimed_by, claimed_until)"
                " SELECT l.chat, %s, l.body, l.attachment, %s, %s"
                " FROM unnest(%s::text[], %s::text[], %s::bytea[]) WITH ORDINALITY"
                "  AS l (chat, body, attachment, n) ORDER BY l.n RETURNING id",
                (
                    now,
                    owner,
                    until,
                    [letter.chat for letter in letters],
                    [letter.body for letter in letters],
                    [letter.attachment for letter in letters],
                ),
            ).fetchall()
        return sorted(int(r[0]) for r in rows)

    def letters(
        self, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[Letter]:
        where = ""
        params: tuple[object, ...] = ()
        if chat is not None:
            where = " AND chat = %s"
            params = (chat,)
        with self._connection() as conn, conn.transaction():
            # One process at a time looks for letters to claim (a transaction-scoped lock):
            # a chat's letters are then never split between two processes.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_OUTBOX_LOCK,))
            rows = conn.execute(
                "UPDATE outbox SET claimed_by = %s, claimed_until = %s WHERE id IN ("
                " SELECT id FROM outbox WHERE chat NOT IN (SELECT chat FROM outbox"
                "  WHERE claimed_by <> %s AND claimed_until > %s)"
                f" {where} ORDER BY id LIMIT %s)"
                " RETURNING id, chat, since, body, attachment",
                (owner, now + lease, owner, now, *params, CLAIM_BATCH),
            ).fetchall()
        return [
            Letter(chat, body, None if data is None else bytes(data), int(id_), float(since))
            for id_, chat, since, body, data in sorted(rows)
        ]

    def posted(self, ids: Sequence[int]) -> None:
        if not ids:
            return
        with self._connection() as conn:
            conn.execute("DELETE FROM outbox WHERE id = ANY(%s)", (list(ids),))

    def unclaim(self, owner: str, ids: Sequence[int]) -> None:
        if not ids:
            return
        with self._connection() as conn:
            conn.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
                " WHERE id = ANY(%s) AND claimed_by = %s",
                (list(ids), owner),
            )

    def drop_letters(self, chat: str) -> None:
        with self._connection() as conn:
            conn.execute("DELETE FROM outbox WHERE chat = %s", (chat,))

    def waiting(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM outbox GROUP BY chat ORDER BY MIN(id) LIMIT %s", (CLAIM_BATCH,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def due(self, now: float) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM tables WHERE due_at IS NOT NULL AND due_at <= %s"
                " ORDER BY due_at, chat",
                (now,),
            ).fetchall()
        return [r[0] for r in rows]

    def next_due(self) -> float | None:
        with self._connection() as conn:
            row = conn.execute("SELECT MIN(due_at) FROM tables").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def note(self, chat: str, key: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT value FROM notes WHERE chat = %s AND key = %s", (chat, key)
            ).fetchone()
        return None if row is None else str(row[0])

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        with self._connection() as conn:
            if value is None:
                conn.execute("DELETE FROM notes WHERE chat = %s AND key = %s", (chat, key))
            else:
                conn.execute(
                    "INSERT INTO notes (chat, key, value) VALUES (%s, %s, %s)"
                    " ON CONFLICT (chat, key) DO UPDATE SET value = excluded.value",
                    (chat, key, value),
                )

    def notes_of(self, chat: str) -> dict[str, str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT key, value FROM notes WHERE chat = %s ORDER BY key", (chat,)
            ).fetchall()
        return {str(k): str(v) for k, v in rows}

    def tables_with(self, text: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM tables WHERE strpos(data, %s) > 0 ORDER BY chat", (text,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def forget_player(self, user: str, alias: str, name: str) -> int:
        quoted = json.dumps(user)
        with self._connection() as conn, conn.transaction():
            rows = conn.execute(
                "SELECT id, data FROM finished WHERE strpos(data, %s) > 0 FOR UPDATE", (quoted,)
            ).fetchall()
            changed = []
            for row_id, text in rows:
                data = json.loads(text)
                if isinstance(data, dict) and forget_seats(data, user, alias, name):
                    changed.append((json.dumps(data, separators=(",", ":")), row_id))
            with conn.cursor() as cur:
                cur.executemany("UPDATE finished SET data = %s WHERE id = %s", changed)
            keys = conn.execute(
                "SELECT chat, key FROM notes WHERE chat = %s OR right(key, %s) IN (%s, %s)",
                (user, len(user) + 1, f":{user}", f".{user}"),
            ).fetchall()
            with conn.cursor() as cur:
                cur.executemany(
                    "DELETE FROM notes WHERE chat = %s AND key = %s",
                    [(c, k) for c, k in keys if c == user or about_person(k, user)],
                )
            # Puzzle answers keep their count for the puzzle, under the alias.
            conn.execute(
                "UPDATE puzzle_answers SET player = %s, name = %s WHERE player = %s",
                (alias, name, user),
            )
        return len(changed)

    def move(self, old: str, new: str) -> bool:
        with self._connection() as conn, conn.transaction():
            row = conn.execute(
                "SELECT data FROM tables WHERE chat = %s FOR UPDATE", (old,)
            ).fetchone()
            taken = conn.execute("SELECT 1 FROM tables WHERE chat = %s", (new,)).fetchone()
            if row is None or taken is not None:
                return False
            data = json.loads(row[0])
            data["chat"] = new
            try:
                with conn.transaction():  # a savepoint: the failure is undone alone
                    conn.execute(
                        "UPDATE tables SET chat = %s, data = %s WHERE chat = %s",
                        (new, json.dumps(data, separators=(",", ":")), old),
                    )
            except psycopg.errors.UniqueViolation:
                return False  # another process made a table at ``new`` meanwhile
            conn.execute("UPDATE seated SET chat = %s WHERE chat = %s", (new, old))
            conn.execute("DELETE FROM notes WHERE chat = %s", (new,))
            conn.execute("UPDATE notes SET chat = %s WHERE chat = %s", (new, old))
            conn.execute("UPDATE finished SET chat = %s WHERE chat = %s", (new, old))
            conn.execute("UPDATE outbox SET chat = %s WHERE chat = %s", (new, old))
            return True

    def archive(self, chat: str, finished_at: float, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO finished (chat, finished_at, data) VALUES (%s, %s, %s)",
                (chat, finished_at, text),
            )

    def archived(self, chat: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT chat, finished_at, data FROM finished"
        params: tuple[str, ...] = ()
        if chat is not None:
            query += " WHERE chat = %s"
            params = (chat,)
        with self._connection() as conn:
            rows = conn.execute(query + " ORDER BY finished_at, id", params).fetchall()
        return finished_games(rows)

    def want_review(self, chat: str, finished_at: float) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO reviews (chat, finished_at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (chat, finished_at),
            )

    def claim_review(
        self, chat: str, owner: str, now: float, lease: float
    ) -> dict[str, Any] | None:
        with self._connection() as conn:
            # One statement: of two processes claiming at once, one gets the row.
            row = conn.execute(
                "UPDATE reviews SET claimed_by = %s, claimed_until = %s"
                " WHERE (chat, finished_at) = (SELECT chat, finished_at FROM reviews"
                "  WHERE chat = %s AND data IS NULL"
                "  AND (claimed_until IS NULL OR claimed_until < %s)"
                "  ORDER BY finished_at LIMIT 1 FOR UPDATE SKIP LOCKED)"
                " RETURNING finished_at",
                (owner, now + lease, chat, now),
            ).fetchone()
            if row is None:
                return None
            found = conn.execute(
                "SELECT chat, finished_at, data FROM finished"
                " WHERE chat = %s AND finished_at = %s ORDER BY id LIMIT 1",
                (chat, row[0]),
            ).fetchall()
        games = finished_games(found)
        return games[0] if games else None

    def save_review(self, chat: str, finished_at: float, data: dict[str, Any]) -> bool:
        text = json.dumps(data, separators=(",", ":"))
        with self._connection() as conn:
            cur = conn.execute(
                "UPDATE reviews SET data = %s, claimed_by = NULL, claimed_until = NULL"
                " WHERE chat = %s AND finished_at = %s AND data IS NULL",
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
            query += " WHERE r.chat = %s"
            params = (chat,)
        with self._connection() as conn:
            rows = conn.execute(query + " ORDER BY f.finished_at, f.id", params).fetchall()
        return reviewed_games(rows)

    def post_puzzle(self, chat: str, posted_at: float, data: dict[str, Any]) -> int:
        text = json.dumps(data, separators=(",", ":"))
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO puzzles (chat, posted_at, data) VALUES (%s, %s, %s) RETURNING id",
                (chat, posted_at, text),
            ).fetchone()
        assert row is not None
        return int(row[0])

    def puzzles(self, chat: str) -> list[Puzzled]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE chat = %s ORDER BY id",
                (chat,),
            ).fetchall()
        return puzzle_rows(rows)

    def puzzle(self, puzzle_id: int) -> Puzzled | None:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE id = %s",
                (puzzle_id,),
            ).fetchall()
        found = puzzle_rows(rows)
        return found[0] if found else None

    def close_puzzle(self, puzzle_id: int) -> bool:
        with self._connection() as conn:
            cur = conn.execute(
                "UPDATE puzzles SET closed = TRUE WHERE id = %s AND NOT closed", (puzzle_id,)
            )
            return cur.rowcount == 1

    def answer_puzzle(
        self, puzzle_id: int, player: str, name: str, solved: bool, at: float
    ) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO puzzle_answers (puzzle, player, name, solved, at)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (puzzle, player) DO UPDATE SET"
                " name = excluded.name, solved = puzzle_answers.solved OR excluded.solved,"
                " at = excluded.at",
                (puzzle_id, player, name, solved, at),
            )

    def puzzle_answers(self, puzzle_id: int) -> list[tuple[str, str, bool]]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT player, name, solved FROM puzzle_answers WHERE puzzle = %s ORDER BY at",
                (puzzle_id,),
            ).fetchall()
        return [(str(p), str(n), bool(s)) for p, n, s in rows]

    def puzzles_solved(self, player: str) -> int:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM puzzle_answers WHERE player = %s AND solved", (player,)
            ).fetchone()
        return int(row[0]) if row else 0

    def chats(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute("SELECT chat FROM tables ORDER BY chat").fetchall()
        return [r[0] for r in rows]

    def playing(self, user: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM seated WHERE player = %s ORDER BY chat", (user,)
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
            "due_at IS NOT NULL AND due_at <= %s"
            " AND (claimed_until IS NULL OR claimed_until <= %s OR claimed_by = %s)"
        )
        params: tuple[object, ...] = (due_by, now, owner)
        if only is not None:
            where += f" AND {key} = %s"
            params += (only,)
        with self._connection() as conn:
            # SKIP LOCKED: rows another process is claiming right now are left to it.
            rows = conn.execute(
                f"UPDATE {table} SET claimed_by = %s, claimed_until = %s WHERE {key} IN ("
                f" SELECT {key} FROM {table} WHERE {where}"
                f" ORDER BY due_at, {key} LIMIT %s FOR UPDATE SKIP LOCKED)"
                f" RETURNING {key}, due_at",
                (owner, now + lease, *params, CLAIM_BATCH),
            ).fetchall()
        return [str(k) for k, _ in sorted(rows, key=lambda r: (r[1], r[0]))]

    def _release(self, table: str, key: str, owner: str, keys: list[str]) -> None:
        if not keys:
            return
        with self._connection() as conn:
            conn.execute(
                f"UPDATE {table} SET claimed_by = NULL, claimed_until = NULL"
                f" WHERE {key} = ANY(%s) AND claimed_by = %s",
                (keys, owner),
            )

    def claimants(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT claimed_by FROM tables WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM outbox WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM tournaments WHERE claimed_by IS NOT NULL"
            ).fetchall()
        return sorted(str(r[0]) for r in rows)

    def release_owner(self, owner: str) -> None:
        with self._connection() as conn:
            conn.execute(
                "UPDATE tables SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = %s",
                (owner,),
            )
            conn.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = %s",
                (owner,),
            )
            conn.execute(
                "UPDATE tournaments SET claimed_by = NULL, claimed_until = NULL"
                " WHERE claimed_by = %s",
                (owner,),
            )

    def nudge(self) -> None:
        with self._connection() as conn:
            conn.execute(f"NOTIFY {NUDGES}")

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """``LISTEN`` on a connection of its own, outside the pool, in a thread; after a
        server restart it connects again (and wakes, for what it may have missed)."""
        stop = threading.Event()
        thread = threading.Thread(
            target=self._listen, args=(wake, stop), name="genial-letters", daemon=True
        )
        thread.start()
        return stop.set

    def _listen(self, wake: Callable[[], None], stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                with psycopg.connect(
                    self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
                ) as conn:
                    conn.execute(f"LISTEN {NUDGES}")
                    wake()
                    while not stop.is_set():
                        for _ in conn.notifies(timeout=LISTEN_LOOK):
                            if stop.is_set():
                                break  # stopped while waiting: heard, but not told
                            wake()
            except psycopg.Error:
                stop.wait(LISTEN_LOOK)

    def census(self, now: float) -> dict[str, int]:
        with self._connection() as conn:
            rows = conn.execute("SELECT status, COUNT(*) FROM tables GROUP BY status").fetchall()
            due = conn.execute(
                "SELECT COUNT(*) FROM tables WHERE due_at IS NOT NULL AND due_at <= %s", (now,)
            ).fetchone()
            waiting = conn.execute("SELECT COUNT(*) FROM outbox").fetchone()
        counts = {status: 0 for status in STATUSES}
        counts.update((str(status), int(n)) for status, n in rows)
        counts["due"] = 0 if due is None else int(due[0])
        return {**counts, "waiting": 0 if waiting is None else int(waiting[0])}

    # --- tournaments (issue 30) ---------------------------------------------------------

    def load_tournament(self, tid: str) -> tuple[int, dict[str, Any]] | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT version, data FROM tournaments WHERE id = %s", (tid,)
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
        values: tuple[object, ...] = (
            saved.version,
            saved.status,
            saved.code,
            saved.due_at,
            data,
            saved.id,
        )
        if loaded_version is None:
            write = (
                "INSERT INTO tournaments (version, status, code, due_at, data, id)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
            )
        else:
            write = (
                "UPDATE tournaments SET version = %s, status = %s, code = %s, due_at = %s,"
                " data = %s WHERE id = %s AND version = %s"
            )
            values += (loaded_version,)
        until = now + lease if owner is not None else None
        with self._connection() as conn, conn.transaction():
            if conn.execute(write, values).rowcount != 1:
                raise StaleTable(saved.id)  # the transaction rolls back
            conn.execute("DELETE FROM tournament_chats WHERE tournament = %s", (saved.id,))
            if saved.chats:
                conn.execute(
                    "INSERT INTO tournament_chats (chat, tournament)"
                    " SELECT DISTINCT c, %s FROM unnest(%s::text[]) AS c ON CONFLICT DO NOTHING",
                    (saved.id, list(saved.chats)),
                )
            rows = []
            if letters:
                rows = conn.execute(
                    "INSERT INTO outbox (chat, since, body, attachment, claimed_by,"
                    " claimed_until) SELECT l.chat, %s, l.body, l.attachment, %s, %s"
                    " FROM unnest(%s::text[], %s::text[], %s::bytea[]) WITH ORDINALITY"
                    "  AS l (chat, body, attachment, n) ORDER BY l.n RETURNING id",
                    (
                        now,
                        owner,
                        until,
                        [letter.chat for letter in letters],
                        [letter.body for letter in letters],
                        [letter.attachment for letter in letters],
                    ),
                ).fetchall()
        return sorted(int(r[0]) for r in rows)

    def tournaments_of(self, chat: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT tournament FROM tournament_chats WHERE chat = %s ORDER BY tournament",
                (chat,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def tournament_by_code(self, code: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT id FROM tournaments WHERE code = %s", (code,)).fetchone()
        return None if row is None else str(row[0])

    def tournaments_with(self, text: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id FROM tournaments WHERE strpos(data, %s) > 0 ORDER BY id", (text,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def due_tournaments(self, now: float) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id FROM tournaments WHERE due_at IS NOT NULL AND due_at <= %s"
                " ORDER BY due_at, id",
                (now,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def next_tournament_due(self) -> float | None:
        with self._connection() as conn:
            row = conn.execute("SELECT MIN(due_at) FROM tournaments").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def claim_tournaments(
        self, due_by: float, owner: str, now: float, lease: float, *, tid: str | None = None
    ) -> list[str]:
        return self._claim("tournaments", "id", due_by, owner, now, lease, tid)

    def release_tournaments(self, owner: str, ids: list[str]) -> None:
        self._release("tournaments", "id", owner, ids)

    def close(self) -> None:
        self._pool.close()
