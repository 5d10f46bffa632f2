"""Which store the service tests run on: each test marked ``usefixtures("backend")`` runs
once on SQLite and once on PostgreSQL (see ``conftest.py``).

Tests name their database by a path (``tmp_path / "t.db"``), so that reopening the same path
is a restart of the bot. On PostgreSQL the path is turned into a schema of its own in the
test server's database, the same schema for the same path, so a restart there reopens the
same tables too. A schema is emptied after its test and lent to a later test of the same
process (:func:`release`), so most tests find a store's tables made already.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg

from bot.store import Store, open_store
from tests.patience import PATIENCE

#: The backend of the running test: "sqlite", or "postgres" with the server's URL.
current: dict[str, str | None] = {"name": "sqlite", "url": None}
#: Stores opened by the running test, closed when it ends (a PostgreSQL store holds
#: server connections).
opened: list[Store] = []
_RUN = uuid.uuid4().hex  # schemas of an earlier run on a reused server are never reused


#: Schemas earlier tests of this process had through :func:`location`, emptied for the next
#: ones (:func:`release`): making a store's tables anew for every test was most of the test
#: server's work (DDL was 60 % of its statements' time in the play and core tests).
_spare: list[str] = []
#: The schema of each database path the running test named through :func:`location`.
_lent: dict[str, str] = {}
#: How many times :func:`release` looks for the test's connections to have ended, 10 ms
#: apart.
SETTLE = 30
#: A new store's version, tables and sequences, once known (:func:`_new_store`).
_new: list[tuple[int, list[str], list[str]]] = []


def _in(server: str, schema: str) -> str:
    sep = "&" if "?" in server else "?"
    return f"{server}{sep}options={quote(f'-csearch_path={schema}')}"


def _named(key: str) -> str:
    return "t_" + hashlib.sha1(f"{_RUN}:{key}".encode()).hexdigest()[:20]


#: One connection a server for this process's own statements (schemas made and emptied):
#: a connection is a new server process, a dozen milliseconds of its CPU.
_admin: dict[str, psycopg.Connection[Any]] = {}


#: The connections a process forked from this one found open (never used or closed there:
#: they are its parent's), and their server processes, which are not the test's.
_inherited: list[psycopg.Connection[Any]] = []
_inherited_pids: list[int] = []


def _after_fork() -> None:
    """In a process forked from one that ran tests (mutmut runs each mutant's tests in a
    fork of the process that ran them all once, two forks at a time): the parent's
    connection and the schemas it emptied are not this process's. Shared, two forks would
    lend themselves the same schema and talk over one connection (a test failing for the
    other's rows, or waiting for good for a reply the other one read). A test's own
    schemas (``_lent``) stay: a process it forks may reopen them."""
    _spare.clear()
    for conn in _admin.values():
        _inherited.append(conn)  # closed here, it would end the parent's session
        if not conn.closed:
            _inherited_pids.append(conn.info.backend_pid)
    _admin.clear()


os.register_at_fork(after_in_child=_after_fork)


def _connection(server: str) -> psycopg.Connection[Any]:
    """This process's own connection to ``server`` (again, if it was lost: a test may
    restart its server)."""
    conn = _admin.get(server)
    if conn is None or conn.closed or conn.broken:
        conn = _admin[server] = psycopg.connect(server, autocommit=True)
    return conn


def schema_url(server: str, key: str) -> str:
    """The URL of a fresh schema named after ``key`` in the server's database."""
    schema = _named(key)
    try:
        _connection(server).execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    except psycopg.OperationalError:  # the server was restarted since: a new connection
        _connection(server).execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    return _in(server, schema)


def location(db: Path | str) -> str:
    """Where the store of test database ``db`` lives on the current backend. On PostgreSQL
    an empty store of an earlier test of this process (the tables a new store has, and not
    a row), or else a fresh schema."""
    url = current["url"]
    if current["name"] == "postgres" and url is not None:
        key = str(db)
        if key not in _lent:
            if _spare:
                _lent[key] = _spare.pop()
                return _in(url, _lent[key])
            _lent[key] = _named(key)
        return schema_url(url, key) if _lent[key] == _named(key) else _in(url, _lent[key])
    return str(db)


def _new_store(conn: psycopg.Connection[Any], server: str) -> tuple[int, list[str], list[str]]:
    """What a store opened on a fresh schema holds: its version, its tables (but the
    version's own) and its sequences; worked out once a process."""
    if not _new:
        reference = schema_url(server, f"new store {uuid.uuid4().hex}")
        open_store(reference).close()
        schema = reference.rsplit("search_path%3D", 1)[1]
        (version,) = conn.execute(f"SELECT version FROM {schema}.genial_schema").fetchone() or (0,)
        rows = conn.execute(
            "SELECT relname, relkind::text FROM pg_class WHERE relnamespace = %s::regnamespace",
            (schema,),
        ).fetchall()
        tables = sorted(str(n) for n, k in rows if k == "r" and n != "genial_schema")
        _new.append((int(version), tables, sorted(str(n) for n, k in rows if k == "S")))
    return _new[0]


def release(server: str) -> None:
    """After a test on PostgreSQL: each schema it had through :func:`location` is emptied
    (its rows deleted, its sequences started again) for the next tests of this process, if
    it still holds a new store's version and tables; otherwise it is left as it is."""
    lent = list(_lent.values())
    _lent.clear()
    if lent:
        try:
            _empty(_connection(server), server, lent)
        except psycopg.OperationalError:  # the server went away (a test may stop it)
            _admin.pop(server, None)


def _empty(conn: psycopg.Connection[Any], server: str, lent: list[str]) -> None:
    # Each test process has a database of its own (tests/bot/pgserver.py): a connection
    # still open there is one the test left (a process, a store not closed), which could
    # still write into a schema lent anew.
    # The server processes of the connections the test just closed end a moment later:
    # looked for a few times (no schema is lent anew if one stays).
    for _ in range(SETTLE):
        (others,) = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND pid <> ALL(%s)",
            (_inherited_pids,),
        ).fetchone() or (1,)
        if not others:
            break
        time.sleep(0.01)
    else:
        return
    version, tables, sequences = _new_store(conn, server)
    for schema in lent:
        try:
            (found,) = conn.execute(
                f"SELECT string_agg(version::text, ',') FROM {schema}.genial_schema"
            ).fetchone() or (None,)
        except psycopg.Error:
            continue
        (present,) = conn.execute(
            "SELECT count(*) FROM pg_class"
            " WHERE relnamespace = %s::regnamespace AND relname = ANY(%s) AND relkind = 'r'",
            (schema, tables),
        ).fetchone() or (0,)
        if found != str(version) or present != len(tables):
            continue
        # DELETE, not TRUNCATE: a truncated table gets new files, as dear as making it.
        empty = [f"DELETE FROM {schema}.{t}" for t in tables]
        empty += [f"SELECT setval('{schema}.{q}', 1, false)" for q in sequences]
        conn.execute("; ".join(empty).encode())
        _spare.append(schema)


def store_at(db: Path | str) -> Store:
    """The store of test database ``db`` on the current backend (closed after the test).
    On PostgreSQL a command waits for a pooled connection as long as a test waits for
    anything (tests/patience.py): the bot's 5 s is wall time that a machine busy with
    other work may take, and then the store would count as down where no outage was
    staged (a test of an outage opens its own store, with its own short wait)."""
    store = open_store(location(db), wait=PATIENCE)
    if current["name"] == "postgres":
        opened.append(store)
    return store


def holds(value: str, needle: str) -> bool:
    """Whether ``value`` holds ``needle``; a number only where no digit stands beside it:
    a letter's random 64-bit key or a process id may hold a short id's digits by chance
    (Telegram's ids are as short as five digits)."""
    if needle.isdigit():
        return re.search(rf"(?<!\d){needle}(?!\d)", value) is not None
    return needle in value


def every_value(where: str) -> list[tuple[str, str, str]]:
    """Every value of every column of every table of the store at ``where`` (a SQLite
    file or a ``postgresql://`` URL with its schema), read straight from the database, not
    through the store: (table, column, the value as text; bytes as Latin-1 text, so a
    search finds any ASCII in them)."""

    def text(value: object) -> str:
        if isinstance(value, bytes | bytearray | memoryview):
            return bytes(value).decode("latin-1")
        return "" if value is None else str(value)

    found: list[tuple[str, str, str]] = []
    if where.startswith("postgresql://"):
        with psycopg.connect(where, autocommit=True) as conn:
            names = [
                str(r[0])
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables"
                    " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
                )
            ]
            for name in names:
                cur = conn.execute(f'SELECT * FROM "{name}"')
                columns = [c.name for c in cur.description or []]
                for row in cur:
                    found += [(name, c, text(v)) for c, v in zip(columns, row, strict=True)]
        return found
    import sqlite3

    db = sqlite3.connect(where)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in names:
            cur = db.execute(f'SELECT * FROM "{name}"')
            columns = [c[0] for c in cur.description]
            for row in cur:
                found += [(name, c, text(v)) for c, v in zip(columns, row, strict=True)]
    finally:
        db.close()
    return found
