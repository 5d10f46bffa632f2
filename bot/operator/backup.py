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
then upgraded by starting the newer bot), in one transaction: all of it or nothing. The
file is read twice, once to check every line and once to load it, and neither the store
nor the file is ever held in memory whole.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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

#: Rows inserted by one statement of a restore.
BATCH = 500


class _Writer:
    """Writes the lines of a backup to ``out`` and counts the rows of each table."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.counts: dict[str, int] = {}
        self._table = ""

    def header(self, location: str, version: int, source: str) -> None:
        if version == 0:
            raise BackupError(f"{shown(location)}: not a store of genial-bot")
        header = {"genial_backup": FORMAT, "schema": version, "from": source}
        self.out.write(json.dumps(header) + "\n")

    def table(self, name: str, columns: list[str]) -> None:
        self.out.write(json.dumps({"table": name, "columns": columns}) + "\n")
        self._table = name
        self.counts[name] = 0

    def rows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.out.write(json.dumps([encode(v) for v in row], separators=(",", ":")) + "\n")
            self.counts[self._table] += 1


def _sqlite_dump(path: str, writer: _Writer) -> None:
    if not Path(path).is_file():
        raise BackupError(f"{path}: no such store (a SQLite file or a postgresql:// URL)")
    # Opened read-only and not through open_store: a backup never migrates what it saves.
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            db.execute("BEGIN")  # one snapshot of the write-ahead log for every table
            writer.header(path, int(db.execute("PRAGMA user_version").fetchone()[0]), "sqlite")
            names = [
                r[0]
                for r in db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                    " AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
            for name in names:
                if name in _SKIPPED:
                    continue
                writer.table(name, [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')])
                writer.rows(db.execute(f'SELECT * FROM "{name}" ORDER BY rowid'))
            db.execute("COMMIT")
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path}: {exc}") from None


def _postgres_dump(url: str, writer: _Writer) -> None:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=10) as conn:
            # One snapshot for every table, read while the bot goes on writing.
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            known = conn.execute("SELECT to_regclass('genial_schema')").fetchone()
            row = None
            if known is not None and known[0] is not None:
                row = conn.execute("SELECT version FROM genial_schema").fetchone()
            writer.header(url, 0 if row is None else int(row[0]), "postgresql")
            names = [
                str(r[0])
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables"
                    " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
                    " ORDER BY table_name"
                )
            ]
            for name in names:
                if name in _SKIPPED:
                    continue
                columns = [
                    str(r[0])
                    for r in conn.execute(
                        "SELECT column_name FROM information_schema.columns"
                        " WHERE table_schema = current_schema() AND table_name = %s"
                        " ORDER BY ordinal_position",
                        (name,),
                    )
                ]
                writer.table(name, columns)
                listed = ", ".join(f'"{c}"' for c in columns)
                # A server-side cursor: the rows come a batch at a time.
                with conn.cursor(name="genial_backup") as cursor:
                    cursor.execute(f'SELECT {listed} FROM "{name}" ORDER BY 1')
                    writer.rows(cursor)
    except psycopg.Error as exc:
        raise BackupError(_failure(url, exc)) from None


def _failure(url: str, exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"{safe_url(url)}: {without_secrets(first, url)}"


def backup(location: str, out: IO[str]) -> dict[str, int]:
    """Write the store at ``location`` to ``out``; returns the rows written per table.

    Raises:
        BackupError: the store cannot be read.
    """
    writer = _Writer(out)
    if _is_url(location):
        _postgres_dump(location, writer)
    else:
        _sqlite_dump(location, writer)
    return writer.counts


def shown(location: str) -> str:
    """``location`` fit for an output line (a URL without its password)."""
    return safe_url(location) if _is_url(location) else location


# -- reading a backup ----------------------------------------------------------------

#: What a backup's lines say, one at a time: its schema version, a table's name and
#: columns, or a row's values.
Header = int
TableLine = tuple[str, list[str]]
Row = list[Any]


def scan(lines: Iterable[str], name: str = "backup") -> Iterator[Header | TableLine | Row]:
    """The lines of a backup file, checked and decoded: first its schema version, then
    each table's (name, columns) followed by its rows.

    Raises:
        BackupError: naming the first line that is not a backup's.
    """
    columns: list[str] | None = None
    table = ""
    seen = False
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
            seen = True
            yield schema
        elif isinstance(item, dict):
            got, named = item.get("table"), item.get("columns")
            if (
                not isinstance(got, str)
                or not isinstance(named, list)
                or not all(isinstance(c, str) for c in named)
            ):
                raise BackupError(f"{where}: a table's line needs its name and columns")
            table, columns = got, named
            yield table, columns
        elif isinstance(item, list):
            if columns is None:
                raise BackupError(f"{where}: a row before any table's line")
            if len(item) != len(columns):
                raise BackupError(
                    f"{where}: a row of {len(item)} values in {table}, which has"
                    f" {len(columns)} columns"
                )
            try:
                yield [decode(v) for v in item]
            except ValueError as exc:
                raise BackupError(f"{where}: {exc}") from None
        else:
            raise BackupError(f"{where}: not a line of a genial-bot backup")
    if not seen:
        raise BackupError(f"{name}: empty, not a genial-bot backup")


def outline(lines: Iterable[str], name: str = "backup") -> tuple[int, list[TableLine]]:
    """The schema version and the tables of a backup, every line checked on the way.

    Raises:
        BackupError: naming the first line that is not a backup's.
    """
    version = 0
    tables: list[TableLine] = []
    for item in scan(lines, name):
        if isinstance(item, int):
            version = item
        elif isinstance(item, tuple):
            tables.append(item)
    return version, tables


# -- writing a store -----------------------------------------------------------------

#: Inserts rows into one table of the store being restored: (table, columns, rows).
Insert = Callable[[str, list[str], list[Row]], None]


def restore(location: str, lines: Callable[[], Iterable[str]], name: str) -> dict[str, int]:
    """Load the backup that ``lines()`` reads (once to check it, once to load it) into
    the empty store at ``location``, made if need be; the rows loaded per table.

    Raises:
        BackupError: the backup is not one, or the store is not empty, has another schema
            version or lacks a table or column of the backup; nothing was loaded.
        StoreError: the store cannot be opened.
    """
    version, tables = outline(lines(), name)
    # Opening the store makes its tables (or checks them) at this version's schema.
    open_store(location).close()
    loader = _postgres_loader if _is_url(location) else _sqlite_loader
    counts: dict[str, int] = {}
    with loader(location, version, tables) as insert:
        table, columns, batch = "", list[str](), list[Row]()
        for item in scan(lines(), name):
            if isinstance(item, tuple):
                if batch:
                    insert(table, columns, batch)
                (table, columns), batch = item, []
                counts[table] = 0
            elif isinstance(item, list):
                batch.append(item)
                counts[table] += 1
                if len(batch) >= BATCH:
                    insert(table, columns, batch)
                    batch = []
        if batch:
            insert(table, columns, batch)
    return counts


def _check(
    where: str,
    version: int,
    have: int,
    tables: list[TableLine],
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
    for table, columns in tables:
        known = columns_of.get(table)
        if known is None:
            raise BackupError(f"{where}: has no table {table!r} of the backup")
        missing = [c for c in columns if c not in known]
        if missing:
            raise BackupError(f"{where}: table {table} has no column {missing[0]!r}")


@contextmanager
def _sqlite_loader(path: str, version: int, tables: list[TableLine]) -> Iterator[Insert]:
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=10)
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: {exc}") from None

    def insert(table: str, columns: list[str], rows: list[Row]) -> None:
        listed = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join("?" for _ in columns)
        db.executemany(f'INSERT INTO "{table}" ({listed}) VALUES ({marks})', rows)

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
        _check(path, version, have, tables, columns_of, filled)
        yield insert
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: {exc}") from None
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.close()


@contextmanager
def _postgres_loader(url: str, version: int, tables: list[TableLine]) -> Iterator[Insert]:
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
            _check(safe_url(url), version, have, tables, columns_of, filled)

            def insert(table: str, columns: list[str], rows: list[Row]) -> None:
                kinds = [types[table, c] for c in columns]
                listed = ", ".join(f'"{c}"' for c in columns)
                marks = ", ".join("%s" for _ in columns)
                with conn.cursor() as cur:
                    # OVERRIDING SYSTEM VALUE: a key column made GENERATED ALWAYS takes
                    # the backup's keys too.
                    cur.executemany(
                        f'INSERT INTO "{table}" ({listed}) OVERRIDING SYSTEM VALUE'
                        f" VALUES ({marks})",
                        [
                            [_for_postgres(v, k) for v, k in zip(row, kinds, strict=True)]
                            for row in rows
                        ],
                    )

            yield insert
            # Keys made by a sequence (BIGSERIAL) go on after the restored ones.
            for table, columns in tables:
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

    def lines() -> Iterator[str]:
        with open(path, encoding="utf-8") as f:
            yield from f

    try:
        return restore(location, lines, path)
    except OSError as exc:
        raise BackupError(f"{path}: cannot read the backup ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise BackupError(f"{path}: not a genial-bot backup (not UTF-8 text)") from None


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
