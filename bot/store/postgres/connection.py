"""The PostgreSQL server and the pool of connections every part of the store speaks
through.

Connecting and bringing the schema up to date, one process at a time; a pooled connection
checked as it is handed out; a server away or a connection lost told as
:class:`StoreDown`, without the password; and due rows claimed and released the same way
for tables and tournaments.
"""

from __future__ import annotations

import select
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from bot.store.base import CLAIM_BATCH, StoreDown, StoreError, safe_url, without_secrets
from bot.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION, TABLES

#: Any number will do, as long as it is the same for every process: it makes processes
#: starting together take turns at migrating.
_MIGRATION_LOCK = 0x67656E69
#: Connections one process keeps at most (its command threads share them).
POOL_SIZE = 8
#: Seconds a command waits for a connection before the store counts as down: a server
#: that restarts is back within it, one that is away is answered "not answering".
WAIT = 5.0
#: Seconds a new connection may take to be made while the bot runs.
CONNECT_TIMEOUT = 5
#: Seconds the first connection (the bot's start, a backup) may take: a server that takes
#: the connection and never answers is given up after this.
OPEN_TIMEOUT = 10
#: How psycopg begins the error of a connection libpq would not even start: the URL's
#: settings are wrong (a port that is no number, an unknown ``sslmode``), no server was
#: asked, and asking again cannot help.
_BAD_SETTINGS = "connection is bad:"


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


def migrate(conn: psycopg.Connection[Any], url: str) -> None:
    """Bring the schema of the database ``conn`` is connected to up to date, in a
    transaction of its own (or a savepoint of the caller's: a restore makes the schema in
    its own transaction, so a refused one leaves nothing).

    Raises:
        StoreError: the database was made by a newer genial-bot, or claims this schema
            without its tables.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS genial_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM genial_schema").fetchone()
        version = 0 if row is None else int(row[0])
        if version > SCHEMA_VERSION:
            raise StoreError(f"{shown(url)}: made by a newer genial-bot (schema {version})")
        for step in range(version, SCHEMA_VERSION):
            conn.execute(MIGRATIONS[step].encode())
        # Looked up by name in pg_class's index, not listed from information_schema.tables
        # (or pg_tables), which reads all of pg_class: milliseconds at each store opened
        # on a server of many schemas.
        present = {
            str(r[0])
            for r in conn.execute(
                "SELECT relname FROM pg_class WHERE relname = ANY(%s)"
                " AND relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')",
                (list(TABLES),),
            )
        }
        missing = [t for t in TABLES if t not in present]
        if missing:
            raise StoreError(
                f"{shown(url)}: not a store of genial-bot (schema {version} without"
                f" its table {missing[0]})"
            )
        if row is None:
            conn.execute("INSERT INTO genial_schema VALUES (%s)", (SCHEMA_VERSION,))
        else:
            conn.execute("UPDATE genial_schema SET version = %s", (SCHEMA_VERSION,))


class PostgresConnection:
    """One PostgreSQL database, through a pool of autocommit connections."""

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = POOL_SIZE,
        wait: float = WAIT,
        open_timeout: int = OPEN_TIMEOUT,
    ) -> None:
        """Connect, and bring the schema up to date.

        Args:
            pool_size: connections kept at most.
            wait: seconds a statement waits for a pooled connection before it connects on
                its own (and, failing that, the store counts as down).
            open_timeout: seconds the first connection may take before the server counts
                as not answering (whole seconds, at least 2: libpq's own rule).

        Raises:
            StoreDown: if the server cannot be reached or does not let this connection
                in (yet): refused, an unknown host, a timeout, a server starting up or
                shutting down, a role or database it does not know (yet).
            StoreError: if the URL's settings are wrong, or the database was made by a
                newer genial-bot, or the schema cannot be made.
        """
        self.url = url
        try:
            with psycopg.connect(url, connect_timeout=open_timeout) as conn:
                self._migrate(conn)
        except psycopg.OperationalError as exc:
            if str(exc).startswith(_BAD_SETTINGS):
                raise StoreError(_failure(url, exc)) from None
            # Whatever the server said (or nothing at all): the launcher waits for a server
            # that may come, or be fixed, later (bot/operator/waiting.py).
            raise StoreDown(_failure(url, exc)) from None
        except psycopg.Error as exc:  # a URL libpq cannot read, a schema it cannot make
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
        migrate(conn, self.url)

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

    def close(self) -> None:
        self._pool.close()
