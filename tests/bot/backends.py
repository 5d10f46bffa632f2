"""Which store the service tests run on: each test marked ``usefixtures("backend")`` runs
once on SQLite and once on PostgreSQL (see ``conftest.py``).

Tests name their database by a path (``tmp_path / "t.db"``), so that reopening the same path
is a restart of the bot. On PostgreSQL the path is turned into a schema of its own in the
test server's database, the same schema for the same path, so a restart there reopens the
same tables too.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path
from urllib.parse import quote

import psycopg

from bot.store import Store, open_store

#: The backend of the running test: "sqlite", or "postgres" with the server's URL.
current: dict[str, str | None] = {"name": "sqlite", "url": None}
#: Stores opened by the running test, closed when it ends (a PostgreSQL store holds
#: server connections).
opened: list[Store] = []
_RUN = uuid.uuid4().hex  # schemas of an earlier run on a reused server are never reused


def schema_url(server: str, key: str) -> str:
    """The URL of a fresh schema named after ``key`` in the server's database."""
    schema = "t_" + hashlib.sha1(f"{_RUN}:{key}".encode()).hexdigest()[:20]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    sep = "&" if "?" in server else "?"
    return f"{server}{sep}options={quote(f'-csearch_path={schema}')}"


def location(db: Path | str) -> str:
    """Where the store of test database ``db`` lives on the current backend."""
    url = current["url"]
    if current["name"] == "postgres" and url is not None:
        return schema_url(url, str(db))
    return str(db)


def store_at(db: Path | str) -> Store:
    """The store of test database ``db`` on the current backend (closed after the test)."""
    store = open_store(location(db))
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
