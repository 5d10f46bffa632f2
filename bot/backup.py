"""Backups that restore: ``genial-bot backup FILE`` and ``genial-bot restore FILE --db ...``.

A backup is one file of JSON lines that either backend writes and either reads, so it is
also the way from SQLite to PostgreSQL (and back):

- the first line, the header: ``{"genial_backup": 1, "schema": N, "from": "sqlite"}``;
- per table of the store: a line ``{"table": name, "columns": [...]}`` and then one line
  per row, a JSON list of the row's values in the columns' order.

Every table of the store's schema is written, whatever it is (tables added by later
versions come along with no change here), read in one snapshot (a read transaction on
SQLite's write-ahead log, a repeatable-read transaction on PostgreSQL), so the file is one
consistent moment even while the bot runs. Values are JSON's own, except bytes (a BLOB, a
``bytea``: an attachment waiting in the outbox), written as ``{"base64": "..."}``.

A restore goes into an empty store of the same schema version only (a restore never
mixes two stores' games, and a backup of another version is restored with that version,
then upgraded by starting the newer bot), in one transaction: all of it or nothing.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from bot.store import URL_SCHEMES, StoreError, open_store
from bot.store.base import safe_url, without_secrets

#: The format of the file (its header's ``genial_backup``).
FORMAT = 1
#: Tables of the bookkeeping, not of the games: the schema version, which a restore's own
#: opening writes, and SQLite's counters of AUTOINCREMENT keys, which follow the rows.
_SKIPPED = frozenset({"genial_schema", "sqlite_sequence"})


class BackupError(StoreError):
    """A backup that cannot be written or restored; the message is one line."""


def _is_url(location: str) -> bool:
    scheme, sep, _ = location.partition("://")
    return bool(sep) and f"{scheme.lower()}://" in URL_SCHEMES


def encode(value: Any) -> Any:
    """A stored value as JSON data: bytes as ``{"base64": ...}``, the rest as JSON has it
    (a date as ISO text, a decimal as a number, a JSON column as its text)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return value


def decode(value: Any) -> Any:
    """:func:`encode` undone."""
    if isinstance(value, dict):
        if set(value) != {"base64"} or not isinstance(value["base64"], str):
            raise ValueError('a value that is an object must be {"base64": ...}')
        return base64.b64decode(value["base64"], validate=True)
    return value


# -- reading a store -----------------------------------------------------------------


def _sqlite_tables(db: sqlite3.Connection) -> Iterator[tuple[str, list[str], list[Any]]]:
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
    ]
    for name in names:
        if name in _SKIPPED:
            continue
        columns = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
        cursor = db.execute(f'SELECT * FROM "{name}" ORDER BY rowid')
        yield name, columns, list(cursor)


def _sqlite_dump(path: str) -> tuple[int, Iterator[tuple[str, list[str], list[Any]]]]:
    if not Path(path).is_file():
        raise BackupError(f"{path}: no such store (a SQLite file or a postgresql:// URL)")
    # Opened read-only and not through open_store: a backup never migrates what it saves.
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        db.execute("BEGIN")  # one snapshot of the write-ahead log for every table
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = list(_sqlite_tables(db))
        db.execute("COMMIT")
        db.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path}: {exc}") from None
    return version, iter(tables)


def _postgres_dump(url: str) -> tuple[int, Iterator[tuple[str, list[str], list[Any]]]]:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=10) as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            known = conn.execute("SELECT to_regclass('genial_schema')").fetchone()
            row = None
            if known is not None and known[0] is not None:
                row = conn.execute("SELECT version FROM genial_schema").fetchone()
            version = 0 if row is None else int(row[0])
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables"
                    " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
                    " ORDER BY table_name"
                )
            ]
            tables = []
            for name in names:
                if name in _SKIPPED:
                    continue
                cursor = conn.execute(f'SELECT * FROM "{name}" ORDER BY 1')
                columns = [c.name for c in cursor.description or []]
                tables.append((name, columns, cursor.fetchall()))
    except psycopg.errors.UndefinedTable:
        raise BackupError(f"{safe_url(url)}: not a store of genial-bot") from None
    except psycopg.Error as exc:
        raise BackupError(_failure(url, exc)) from None
    return version, iter(tables)


def _failure(url: str, exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"{safe_url(url)}: {without_secrets(first, url)}"


def backup(location: str, out: IO[str]) -> dict[str, int]:
    """Write the store at ``location`` to ``out``; returns the rows written per table.

    Raises:
        BackupError: the store cannot be read.
    """
    if _is_url(location):
        version, tables = _postgres_dump(location)
        source = "postgresql"
    else:
        version, tables = _sqlite_dump(location)
        source = "sqlite"
    if version == 0:
        raise BackupError(f"{shown(location)}: not a store of genial-bot")
    counts: dict[str, int] = {}
    out.write(json.dumps({"genial_backup": FORMAT, "schema": version, "from": source}) + "\n")
    for name, columns, rows in tables:
        out.write(json.dumps({"table": name, "columns": columns}) + "\n")
        for row in rows:
            out.write(json.dumps([encode(v) for v in row], separators=(",", ":")) + "\n")
        counts[name] = len(rows)
    return counts


def shown(location: str) -> str:
    """``location`` fit for an output line (a URL without its password)."""
    return safe_url(location) if _is_url(location) else location


# -- reading a backup ----------------------------------------------------------------

Section = tuple[str, list[str], list[list[Any]]]


def read_backup(lines: Iterable[str], name: str = "backup") -> tuple[int, list[Section]]:
    """The schema version and the tables (name, columns, rows) of a backup file.

    Raises:
        BackupError: naming the first line that is not a backup's.
    """
    sections: list[Section] = []
    version = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            item = json.loads(line)
        except ValueError:
            raise BackupError(f"{where}: not a line of a genial-bot backup (not JSON)") from None
        if number == 1:
            if not isinstance(item, dict) or item.get("genial_backup") != FORMAT:
                raise BackupError(f"{name}: not a genial-bot backup (format {FORMAT})")
            schema = item.get("schema")
            if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
                raise BackupError(f"{where}: the header has no schema version")
            version = schema
        elif isinstance(item, dict):
            table, columns = item.get("table"), item.get("columns")
            if (
                not isinstance(table, str)
                or not isinstance(columns, list)
                or not all(isinstance(c, str) for c in columns)
            ):
                raise BackupError(f"{where}: a table's line needs its name and columns")
            sections.append((table, columns, []))
        elif isinstance(item, list):
            if not sections:
                raise BackupError(f"{where}: a row before any table's line")
            table, columns, rows = sections[-1]
            if len(item) != len(columns):
                raise BackupError(
                    f"{where}: a row of {len(item)} values in {table}, which has"
                    f" {len(columns)} columns"
                )
            try:
                rows.append([decode(v) for v in item])
            except ValueError as exc:
                raise BackupError(f"{where}: {exc}") from None
        else:
            raise BackupError(f"{where}: not a line of a genial-bot backup")
    if version == 0:
        raise BackupError(f"{name}: empty, not a genial-bot backup")
    return version, sections


# -- writing a store -----------------------------------------------------------------


def restore(location: str, version: int, sections: list[Section]) -> dict[str, int]:
    """Load a backup's tables into the empty store at ``location`` (made if need be);
    returns the rows loaded per table.

    Raises:
        BackupError: the store is not empty, has another schema version or lacks a table
            or column of the backup; nothing was loaded.
        StoreError: the store cannot be opened.
    """
    # Opening the store makes its tables (or checks them) at this version's schema.
    open_store(location).close()
    if _is_url(location):
        return _postgres_restore(location, version, sections)
    return _sqlite_restore(location, version, sections)


def _check(
    where: str,
    version: int,
    have: int,
    sections: list[Section],
    columns_of: dict[str, list[str]],
    filled: list[str],
) -> None:
    if version != have:
        raise BackupError(
            f"{where}: the backup is of schema {version}, this genial-bot's store is of schema"
            f" {have}; restore it with the genial-bot that wrote it, then upgrade"
        )
    if filled:
        raise BackupError(
            f"{where}: not empty (rows in {', '.join(filled)}); restore into a new store"
        )
    for table, columns, _ in sections:
        known = columns_of.get(table)
        if known is None:
            raise BackupError(f"{where}: has no table {table!r} of the backup")
        missing = [c for c in columns if c not in known]
        if missing:
            raise BackupError(f"{where}: table {table} has no column {missing[0]!r}")


def _sqlite_restore(path: str, version: int, sections: list[Section]) -> dict[str, int]:
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=10)
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: {exc}") from None
    try:
        db.execute("BEGIN IMMEDIATE")
        have = int(db.execute("PRAGMA user_version").fetchone()[0])
        names = [
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        columns_of = {n: [r[1] for r in db.execute(f'PRAGMA table_info("{n}")')] for n in names}
        filled = [n for n in names if db.execute(f'SELECT 1 FROM "{n}" LIMIT 1').fetchone()]
        _check(path, version, have, sections, columns_of, filled)
        counts = {}
        for table, columns, rows in sections:
            listed = ", ".join(f'"{c}"' for c in columns)
            marks = ", ".join("?" for _ in columns)
            db.executemany(f'INSERT INTO "{table}" ({listed}) VALUES ({marks})', rows)
            counts[table] = len(rows)
        db.execute("COMMIT")
        return counts
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: {exc}") from None
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.close()


def _postgres_restore(url: str, version: int, sections: list[Section]) -> dict[str, int]:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=10) as conn, conn.transaction():
            row = conn.execute("SELECT version FROM genial_schema").fetchone()
            have = 0 if row is None else int(row[0])
            columns_of: dict[str, list[str]] = {}
            types: dict[tuple[str, str], str] = {}
            for table, column, kind in conn.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = current_schema() ORDER BY ordinal_position"
            ):
                columns_of.setdefault(table, []).append(column)
                types[table, column] = kind
            filled = [
                n
                for n in sorted(columns_of)
                if n not in _SKIPPED and conn.execute(f'SELECT 1 FROM "{n}" LIMIT 1').fetchone()
            ]
            _check(safe_url(url), version, have, sections, columns_of, filled)
            counts = {}
            for table, columns, rows in sections:
                kinds = [types[table, c] for c in columns]
                listed = ", ".join(f'"{c}"' for c in columns)
                marks = ", ".join("%s" for _ in columns)
                with conn.cursor() as cur:
                    # OVERRIDING SYSTEM VALUE: a key column made GENERATED ALWAYS takes the
                    # backup's keys too.
                    cur.executemany(
                        f'INSERT INTO "{table}" ({listed}) OVERRIDING SYSTEM VALUE'
                        f" VALUES ({marks})",
                        [
                            [_for_postgres(v, k) for v, k in zip(row, kinds, strict=True)]
                            for row in rows
                        ],
                    )
                counts[table] = len(rows)
                # Keys made by a sequence (BIGSERIAL) go on after the restored ones.
                for column in columns:
                    found = conn.execute(
                        "SELECT pg_get_serial_sequence(%s, %s)", (f'"{table}"', column)
                    ).fetchone()
                    if found is not None and found[0] is not None:
                        conn.execute(
                            f'SELECT setval(%s, (SELECT COALESCE(MAX("{column}"), 0) + 1'
                            f' FROM "{table}"), false)',
                            (found[0],),
                        )
            return counts
    except psycopg.Error as exc:
        raise BackupError(_failure(url, exc)) from None


def _for_postgres(value: Any, kind: str) -> Any:
    """A value from either backend as the PostgreSQL column of type ``kind`` takes it:
    SQLite keeps true and false as 1 and 0, and bytes as they are."""
    if kind == "boolean" and isinstance(value, int):
        return bool(value)
    if kind == "bytea" and isinstance(value, str):
        return value.encode()
    return value


def restore_file(path: str, location: str) -> dict[str, int]:
    """:func:`restore` from the backup file at ``path``.

    Raises:
        BackupError: the file cannot be read or is not a backup, or the store refuses it.
    """
    try:
        with open(path, encoding="utf-8") as lines:
            version, sections = read_backup(lines, path)
    except OSError as exc:
        raise BackupError(f"{path}: cannot read the backup ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise BackupError(f"{path}: not a genial-bot backup (not UTF-8 text)") from None
    return restore(location, version, sections)


def backup_file(location: str, path: str) -> dict[str, int]:
    """:func:`backup` into the file at ``path`` (``-``: standard output); the file
    appears whole or not at all.

    Raises:
        BackupError: the store cannot be read or the file cannot be written.
    """
    import sys

    if path == "-":
        return backup(location, sys.stdout)
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        with open(partial, "w", encoding="utf-8") as out:
            counts = backup(location, out)
        partial.replace(target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise BackupError(f"{path}: cannot write the backup ({exc.strerror})") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return counts
