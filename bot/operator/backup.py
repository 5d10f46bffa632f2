"""Backups that restore: ``genial-bot backup FILE`` and ``genial-bot restore FILE --db ...``.

A backup is one file of JSON lines that either backend writes and either reads, so it is
also the way from SQLite to PostgreSQL (and back):

- the first line, the header: ``{"genial_backup": 2, "schema": N, "from": "sqlite"}``;
- per table of the store: a line ``{"table": name, "columns": [...]}`` and then one line
  per row, a JSON list of the row's values in the columns' order;
- the last line, the trailer: ``{"trailer": {"rows": {name: count, ...}, "sha256": "..."}}``,
  the rows of each table and the SHA-256 of every byte before it. A file cut short (at a
  line's end, too) or changed since has none or one that disagrees, and is refused.

Every table of the store's schema is written, whatever it is (tables added by later
versions come along with no change here), read in one snapshot (a read transaction on
SQLite's write-ahead log, a repeatable-read transaction on PostgreSQL), so the file is one
consistent moment even while the bot runs. Values are JSON's own, except bytes (a BLOB, a
``bytea``: an attachment waiting in the outbox), written as ``{"base64": "..."}``.

A restore goes into an empty store of the same schema version only (a restore never
mixes two stores' games, and a backup of another version is restored with that version,
then upgraded by starting the newer bot), in one transaction: all of it or nothing. The
file is read twice, once to check every line and its trailer before anything is made or
changed, and once to load it; neither the store nor the file is ever held in memory whole.
A refused restore leaves nothing behind: a new SQLite file is removed again, and on
PostgreSQL the schema is made in the restore's own transaction. Backup files are readable
by their owner only (they hold player ids and names).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Any

from bot.operator.backup_lines import (
    FORMAT,
    TRAILER,
    BackupError,
    Row,
    TableLine,
    decode,
    encode,
    outline,
    scan,
)
from bot.store import URL_SCHEMES, open_store
from bot.store.base import safe_url, without_secrets

__all__ = ["FORMAT", "BackupError", "backup", "backup_file", "decode", "encode", "restore"]

#: Tables of the bookkeeping, not of the games: the schema version, which a restore's own
#: opening writes, and SQLite's counters of AUTOINCREMENT keys, which follow the rows.
_SKIPPED = frozenset({"genial_schema", "sqlite_sequence"})


def _is_url(location: str) -> bool:
    scheme, sep, _ = location.partition("://")
    return bool(sep) and f"{scheme.lower()}://" in URL_SCHEMES


# -- reading a store -----------------------------------------------------------------

#: Rows inserted by one statement of a restore.
BATCH = 500
#: Seconds the connection to a PostgreSQL server may take to be made (the store's own
#: ``OPEN_TIMEOUT``): a server that takes the connection and never answers is given up.
OPEN_TIMEOUT = 10


class _Writer:
    """Writes the lines of a backup to ``out``, counts the rows of each table and sums
    up every byte for the trailer."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._digest = hashlib.sha256()
        self.counts: dict[str, int] = {}
        self._table = ""

    def write(self, line: str) -> None:
        self._digest.update(line.encode("utf-8"))
        self._out.write(line)

    def trailer(self) -> None:
        end = {TRAILER: {"rows": self.counts, "sha256": self._digest.hexdigest()}}
        self._out.write(json.dumps(end) + "\n")

    def header(self, location: str, version: int, source: str) -> None:
        if version == 0:
            raise BackupError(f"{shown(location)}: not a store of genial-bot")
        header = {"genial_backup": FORMAT, "schema": version, "from": source}
        self.write(json.dumps(header) + "\n")

    def table(self, name: str, columns: list[str]) -> None:
        self.write(json.dumps({"table": name, "columns": columns}) + "\n")
        self._table = name
        self.counts[name] = 0

    def rows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.write(json.dumps([encode(v) for v in row], separators=(",", ":")) + "\n")
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


def _postgres_dump(url: str, writer: _Writer, timeout: int) -> None:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=timeout) as conn:
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


def backup(location: str, out: IO[str], *, timeout: int = OPEN_TIMEOUT) -> dict[str, int]:
    """Write the store at ``location`` to ``out``; returns the rows written per table.
    A PostgreSQL server is given ``timeout`` seconds to make the connection (whole
    seconds, at least 2: libpq's own rule).

    Raises:
        BackupError: the store cannot be read.
    """
    writer = _Writer(out)
    if _is_url(location):
        _postgres_dump(location, writer, timeout)
    else:
        _sqlite_dump(location, writer)
    writer.trailer()
    return writer.counts


def shown(location: str) -> str:
    """``location`` fit for an output line (a URL without its password)."""
    return safe_url(location) if _is_url(location) else location


# -- writing a store -----------------------------------------------------------------

#: Inserts rows into one table of the store being restored: (table, columns, rows).
Insert = Callable[[str, list[str], list[Row]], None]


def restore(location: str, lines: Callable[[], Iterable[str]], name: str) -> dict[str, int]:
    """Load the backup that ``lines()`` reads (once to check it, once to load it) into
    the empty store at ``location``, made if need be; the rows loaded per table.

    Raises:
        BackupError: the backup is not one, or the store is not empty, has another schema
            version or lacks a table or column of the backup; nothing was loaded, and
            nothing made stays behind.
        StoreError: the store cannot be opened.
    """
    version, tables = outline(lines(), name)
    if _is_url(location):
        # The schema is made in the restore's transaction (:func:`_postgres_loader`).
        return _load(_postgres_loader(location, version, tables), lines, name)
    made = _new_paths(Path(location))
    try:
        # Opening the store makes its tables (or checks them) at this version's schema.
        open_store(location).close()
        return _load(_sqlite_loader(location, version, tables), lines, name)
    except BaseException:
        _remove(made)
        raise


def _new_paths(path: Path) -> list[Path]:
    """The file and the folders that a store at ``path`` makes (those not there yet),
    the file first."""
    made = []
    at = path.absolute()
    while not at.exists() and not at.is_symlink() and at.parent != at:
        made.append(at)
        at = at.parent
    return made


def _remove(made: list[Path]) -> None:
    """The file (with SQLite's files beside it) and the folders of :func:`_new_paths`
    gone again."""
    if not made:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        made[0].with_name(made[0].name + suffix).unlink(missing_ok=True)
    for folder in made[1:]:
        try:
            folder.rmdir()
        except OSError:
            return


def _load(
    loader: AbstractContextManager[Insert], lines: Callable[[], Iterable[str]], name: str
) -> dict[str, int]:
    """The backup's rows inserted, table by table, in batches, through ``loader``."""
    counts: dict[str, int] = {}
    with loader as insert:
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

    from bot.store.postgres.connection import migrate

    try:
        with psycopg.connect(url, connect_timeout=OPEN_TIMEOUT) as conn, conn.transaction():
            # The store's tables made here, so a refused restore leaves none behind.
            migrate(conn, url)
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
        # Read as bytes: the trailer's checksum is of the file's bytes as they are.
        with open(path, "rb") as f:
            for line in f:
                yield line.decode("utf-8")

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
        # Readable by its owner only: it holds player ids and names.
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # a partial file left by an earlier try keeps its mode
        with open(fd, "w", encoding="utf-8") as out:
            counts = backup(location, out)
        partial.replace(target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise BackupError(f"{path}: cannot write the backup ({exc.strerror})") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return counts
