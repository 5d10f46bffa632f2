"""The lines of a backup file (:mod:`bot.operator.backup`): its values as JSON, and the
file read back line by line, every line checked and, at its end, its trailer: the rows
of each table and the SHA-256 of every byte before it, so a file cut short (at a line's
end too) or changed after it was written is refused before anything is restored."""

from __future__ import annotations

import base64
import datetime
import decimal
import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

from bot.store import StoreError

#: The format of the file (its header's ``genial_backup``): 2 ends with a trailer.
FORMAT = 2
#: The key of the trailer, the file's last line.
TRAILER = "trailer"


class BackupError(StoreError):
    """A backup that cannot be written or restored; the message is one line."""


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
    if isinstance(value, list):
        raise ValueError("a value that is a list (a JSON column is written as its text)")
    if isinstance(value, dict):
        if set(value) != {"base64"} or not isinstance(value["base64"], str):
            raise ValueError('a value that is an object must be {"base64": ...}')
        return base64.b64decode(value["base64"], validate=True)
    return value


# -- reading a backup ----------------------------------------------------------------

#: What a backup's lines say, one at a time: its schema version, a table's name and
#: columns, or a row's values.
Header = int
TableLine = tuple[str, list[str]]
Row = list[Any]


def scan(lines: Iterable[str], name: str = "backup") -> Iterator[Header | TableLine | Row]:
    """The lines of a backup file, checked and decoded: first its schema version, then
    each table's (name, columns) followed by its rows; at the end its trailer is checked
    against what came before.

    Raises:
        BackupError: naming the first line that is not a backup's, or saying how the file
            and its trailer disagree.
    """
    columns: list[str] | None = None
    table = ""
    seen = False
    ended = False
    counts: dict[str, int] = {}
    digest = hashlib.sha256()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            if not ended:
                digest.update(line.encode("utf-8"))
            continue
        where = f"{name}:{number}"
        if ended:
            raise BackupError(f"{where}: a line after the trailer, which ends a backup")
        item = _read(line, where)
        if number > 1 and isinstance(item, dict) and TRAILER in item:
            _check_trailer(name, where, item[TRAILER], counts, digest.hexdigest())
            ended = True
            continue
        digest.update(line.encode("utf-8"))
        if number == 1:
            seen = True
            yield _header(name, where, item)
        elif isinstance(item, dict):
            got, named = item.get("table"), item.get("columns")
            if (
                not isinstance(got, str)
                or not isinstance(named, list)
                or not all(isinstance(c, str) for c in named)
            ):
                raise BackupError(f"{where}: a table's line needs its name and columns")
            table, columns = got, named
            counts.setdefault(table, 0)
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
            counts[table] += 1
        else:
            raise BackupError(f"{where}: not a line of a genial-bot backup")
    if not seen:
        raise BackupError(f"{name}: empty, not a genial-bot backup")
    if not ended:
        raise BackupError(
            f"{name}: no trailer at its end: the backup is cut short (or not whole); nothing"
            " was restored"
        )


def _read(line: str, where: str) -> Any:
    """One line's JSON."""
    try:
        return json.loads(line)
    except RecursionError:
        raise BackupError(f"{where}: not a line of a genial-bot backup (nested too deep)") from None
    except ValueError:
        raise BackupError(f"{where}: not a line of a genial-bot backup (not JSON)") from None


def _header(name: str, where: str, item: Any) -> int:
    """The schema version the header says."""
    if not isinstance(item, dict) or item.get("genial_backup") != FORMAT:
        if isinstance(item, dict) and item.get("genial_backup") == 1:
            raise BackupError(
                f"{name}: a backup of format 1, without the trailer that shows it whole;"
                " restore it with the genial-bot that wrote it"
            )
        raise BackupError(f"{name}: not a genial-bot backup (format {FORMAT})")
    schema = item.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise BackupError(f"{where}: the header has no schema version")
    return schema


def _check_trailer(
    name: str, where: str, trailer: Any, counts: dict[str, int], digest: str
) -> None:
    """The trailer agrees with the rows counted and the bytes summed up before it."""
    rows = trailer.get("rows") if isinstance(trailer, dict) else None
    if (
        not isinstance(rows, dict)
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in rows.values())
        or not isinstance(trailer.get("sha256"), str)
    ):
        raise BackupError(f"{where}: a trailer needs the rows of each table and a sha256")
    for table in sorted({*rows, *counts}):
        if table not in rows:
            raise BackupError(f"{name}: its trailer does not count table {table}")
        if rows[table] != counts.get(table):
            held = counts.get(table, "no")
            raise BackupError(
                f"{name}: its trailer counts {rows[table]} rows in {table}, the file holds"
                f" {held}: the backup is not whole"
            )
    if trailer["sha256"] != digest:
        raise BackupError(
            f"{name}: the checksum in its trailer does not match the lines before it: the"
            " file was changed after it was written"
        )


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
