"""Backups that restore (issue 28): ``genial-bot backup`` of a store with running and
finished games, ``genial-bot restore`` into the other backend, and the games go on there
with the same ladders; every table comes along, bytes included; a restore refuses a store
that is not empty, and bad input is one line with exit status 2.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot.__main__ import main
from bot.core.config import Settings
from bot.core.table import PLAYING
from bot.operator import backup
from bot.service import Service
from bot.store import open_store
from tests.bot.backends import schema_url
from tests.bot.helpers import Clock, Room, user

ADA, BOB = user("Ada"), user("Bob")


def service_at(location: str, seed: int = 3) -> Service:
    return Service(open_store(location), Settings(), clock=Clock(), rng=random.Random(seed))


def fill(service: Service) -> tuple[Room, Room]:
    """chat-1: two finished games of Ada against a computer; chat-2: Ada and Bob's game,
    a few turns in, with Bob's turn pings on."""
    rng = random.Random(5)
    done = Room(service, "chat-1")
    done.ok("Ada", "/join")
    done.ok("Ada", "/addbot random")
    for _ in range(2):
        done.ok("Ada", "/start")
        done.play_out(rng)
    running = Room(service, "chat-2")
    running.ok("Ada", "/join")
    running.ok("Bob", "/join")
    running.ok("Bob", "/notify on")
    running.ok("Ada", "/start")
    for _ in range(4):
        running.play_turn(rng)
    return done, running


def rows_of(path: Path) -> dict[str, list[str]]:
    """A backup's rows per table, each row as its JSON, sorted (the backends list rows in
    orders of their own)."""
    out: dict[str, list[str]] = {}
    table = ""
    for line in path.read_text().splitlines()[1:]:
        item = json.loads(line)
        if isinstance(item, dict) and "trailer" in item:
            break
        if isinstance(item, dict):
            table = item["table"]
            out[table] = []
        else:
            out[table].append(json.dumps(item))
    return {t: sorted(rows) for t, rows in out.items()}


def test_sqlite_to_postgresql_and_back_the_games_go_on(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = str(tmp_path / "first.sqlite3")
    service = service_at(first)
    _, running = fill(service)
    ladder = service.community.ladder
    table = running.table().to_dict()
    assert len(service.store.archived()) == 2

    # The bot still runs (its connection open, the write-ahead log not folded in).
    assert main(["backup", str(tmp_path / "one.jsonl"), "--db", first]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{tmp_path / 'one.jsonl'}: ")
    assert "finished 2" in line and "tables 2" in line
    service.store.close()

    url = schema_url(postgres_url, f"{tmp_path}/restore")
    assert main(["restore", str(tmp_path / "one.jsonl"), "--db", url]) == 0
    out = capsys.readouterr().out
    assert "finished 2" in out and "restored from" in out

    moved = service_at(url)
    try:
        # The ladder rebuilt from the restored archive is the one of the first store.
        assert moved.community.ladder == ladder
        room = Room(moved, "chat-2")
        room.person("Ada"), room.person("Bob")
        assert room.table().to_dict() == table
        assert moved.store.playing(BOB.id) == ["chat-2"]
        assert moved.store.playing(ADA.id) == ["chat-2"]
        # A finished game's archive keeps going: new ids after the restored ones.
        assert main(["backup", str(tmp_path / "two.jsonl"), "--db", url]) == 0
        capsys.readouterr()
        assert rows_of(tmp_path / "two.jsonl") == rows_of(tmp_path / "one.jsonl")
        # The outbox came along, boards' bytes and all (the service keeps what it said
        # there until a platform delivers it; here none does).
        outbox = rows_of(tmp_path / "one.jsonl")["outbox"]
        assert any('{"base64": "iVBORw0KGgo' in row for row in outbox)
        room.play_out(random.Random(8))
        assert room.table().status != PLAYING
        finished = moved.store.archived()
        assert len(finished) == 3
        assert finished[-1]["chat"] == "chat-2"
        assert moved.community.ladder.standing(BOB.id, "genial", "chat-2") is not None
    finally:
        moved.store.close()

    # And back to SQLite: the same rows again.
    again = str(tmp_path / "again.sqlite3")
    assert main(["restore", str(tmp_path / "two.jsonl"), "--db", again]) == 0
    assert main(["backup", str(tmp_path / "three.jsonl"), "--db", again]) == 0
    assert rows_of(tmp_path / "three.jsonl") == rows_of(tmp_path / "one.jsonl")
    header = json.loads((tmp_path / "two.jsonl").read_text().splitlines()[0])
    assert header["from"] == "postgresql" and header["genial_backup"] == 2


def test_a_table_added_later_with_bytes_comes_along(tmp_path: Path, postgres_url: str) -> None:
    """A table the dump was never told about (an outbox of attachments): its bytes, its
    true and false, and keys that go on after the restored ones on PostgreSQL."""
    source = str(tmp_path / "s.sqlite3")
    open_store(source).close()
    picture = bytes(range(256)) * 3
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE extra (id INTEGER PRIMARY KEY, body BLOB, sent BOOLEAN)")
        db.executemany("INSERT INTO extra VALUES (?, ?, ?)", [(1, picture, True), (7, b"", False)])
    dump = tmp_path / "b.jsonl"
    assert main(["backup", str(dump), "--db", source]) == 0
    lines = dump.read_text().splitlines()
    at = lines.index(json.dumps({"table": "extra", "columns": ["id", "body", "sent"]}))
    assert json.loads(lines[at + 2]) == [7, {"base64": ""}, 0]

    url = schema_url(postgres_url, f"{tmp_path}/bytes")
    open_store(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE extra (id BIGSERIAL PRIMARY KEY, body BYTEA, sent BOOLEAN)")
    assert main(["restore", str(dump), "--db", url]) == 0
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT id, body, sent FROM extra ORDER BY id").fetchall()
        assert rows == [(1, picture, True), (7, b"", False)]
        (new,) = conn.execute("INSERT INTO extra (body) VALUES ('') RETURNING id").fetchone()
        assert new == 8

    target = str(tmp_path / "t.sqlite3")
    open_store(target).close()
    with sqlite3.connect(target) as db:
        db.execute("CREATE TABLE extra (id INTEGER PRIMARY KEY, body BLOB, sent BOOLEAN)")
    assert main(["backup", str(tmp_path / "c.jsonl"), "--db", url]) == 0
    assert main(["restore", str(tmp_path / "c.jsonl"), "--db", target]) == 0
    with sqlite3.connect(target) as db:
        got = db.execute("SELECT id, body, sent FROM extra ORDER BY id").fetchall()
    assert got == [(1, picture, 1), (7, b"", 0), (8, b"", None)]


def sealed(text: str) -> str:
    """Hand-made backup lines with the trailer that ends a whole backup: the rows of each
    table counted here, and the SHA-256 of every byte before it."""
    rows: dict[str, int] = {}
    table = ""
    for line in text.splitlines()[1:]:
        item = json.loads(line)
        if isinstance(item, dict):
            table = item["table"]
            rows[table] = 0
        else:
            rows[table] += 1
    digest = hashlib.sha256(text.encode()).hexdigest()
    return text + json.dumps({"trailer": {"rows": rows, "sha256": digest}}) + "\n"


def test_a_restore_never_mixes_two_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(tmp_path / "s.sqlite3")
    fill(service_at(source))
    dump = tmp_path / "b.jsonl"
    assert main(["backup", str(dump), "--db", source]) == 0
    before = dump.read_text()
    capsys.readouterr()
    assert main(["restore", str(dump), "--db", source]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"genial-bot: {source}: not empty (rows in ")
    assert err.endswith("); restore into a new store\n") and err.count("\n") == 1
    # Nothing was added: a second backup is the first.
    assert main(["backup", str(tmp_path / "c.jsonl"), "--db", source]) == 0
    assert (tmp_path / "c.jsonl").read_text() == before


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty, not a genial-bot backup"),
        ("hello\n", "1: not a line of a genial-bot backup (not JSON)"),
        ('{"genial_backup": 3, "schema": 4}\n', "not a genial-bot backup (format 2)"),
        ('{"genial_backup": 2}\n', "1: the header has no schema version"),
        ('{"genial_backup": 2, "schema": 4}\n[1]\n', "2: a row before any table's line"),
        (
            '{"genial_backup": 2, "schema": 4}\n{"table": "notes", "columns": ["chat"]}\n[1, 2]\n',
            "3: a row of 2 values in notes, which has 1 columns",
        ),
        (
            '{"genial_backup": 2, "schema": 4}\n{"table": "notes", "columns": ["chat"]}\n'
            '[{"x": 1}]\n',
            '3: a value that is an object must be {"base64": ...}',
        ),
        (
            '{"genial_backup": 2, "schema": 4}\n{"table": "notes", "columns": ["chat"]}\n'
            '[[["x"]]]\n',
            "3: a value that is a list (a JSON column is written as its text)",
        ),
        (
            '{"genial_backup": 2, "schema": 4}\n' + "[" * 100_000 + "]" * 100_000 + "\n",
            "2: not a line of a genial-bot backup (nested too deep)",
        ),
        (
            "SEALED" + '{"genial_backup": 2, "schema": 999}\n',
            "STORE: the backup is of schema 999, this genial-bot's store is of schema SCHEMA;"
            " restore it with the genial-bot that wrote it, then upgrade",
        ),
        (
            "SEALED" + '{"genial_backup": 2, "schema": SCHEMA}\n{"table": "nope", "columns": []}\n',
            "STORE: has no table 'nope' of the backup",
        ),
        (
            "SEALED"
            + '{"genial_backup": 2, "schema": SCHEMA}\n{"table": "notes", "columns": ["x"]}\n',
            "STORE: table notes has no column 'x'",
        ),
    ],
)
def test_a_file_that_is_no_backup_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, why: str
) -> None:
    from bot.store.sqlite import SCHEMA_VERSION

    bad = tmp_path / "bad.jsonl"
    text = text.replace("SCHEMA", str(SCHEMA_VERSION))
    if text.startswith("SEALED"):
        text = sealed(text.removeprefix("SEALED"))
    bad.write_text(text)
    # Into a folder not made yet: a refused restore leaves neither it nor a file behind.
    target = str(tmp_path / "new" / "store" / "new.sqlite3")
    assert main(["restore", str(bad), "--db", target]) == 2
    err = capsys.readouterr().err
    # The one line exactly: the file's line (or the file, or the store) and what is wrong.
    why = why.replace("SCHEMA", str(SCHEMA_VERSION))
    if why.startswith("STORE: "):
        assert err == f"genial-bot: {target}: {why.removeprefix('STORE: ')}\n"
    elif why[0].isdigit():
        assert err == f"genial-bot: {bad}:{why}\n"
    else:
        assert err == f"genial-bot: {bad}: {why}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_a_backup_of_nothing_and_a_password_kept_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nothing.sqlite3")
    assert main(["backup", str(tmp_path / "b.jsonl"), "--db", missing]) == 2
    assert capsys.readouterr().err == (
        f"genial-bot: {missing}: no such store (a SQLite file or a postgresql:// URL)\n"
    )
    assert not (tmp_path / "b.jsonl").exists()
    assert not Path(missing).exists()
    url = "postgresql://genial:s3cret-pw@127.0.0.1:1/genial"
    assert main(["backup", str(tmp_path / "b.jsonl"), "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("genial-bot: postgresql://genial@127.0.0.1:1/genial: ")
    # libpq's first line, which names what failed (its second suggests a cause).
    assert err.endswith(" failed: Connection refused\n")
    assert "s3cret" not in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_values_round_trip() -> None:
    for value in (None, 0, -3, 1.5, "naïve", b"\x00\xff", True):
        assert backup.decode(json.loads(json.dumps(backup.encode(value)))) == value


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_all_or_nothing_in_batches(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """More rows than one statement inserts; a row the store refuses at the very end (a
    key twice) leaves the store as empty as it was."""
    source = str(tmp_path / "s.sqlite3")
    store = open_store(source)
    count = backup.BATCH * 2 + 7
    for n in range(count):
        store.set_note(f"chat-{n}", "k", f"v{n}")
    store.close()
    good = tmp_path / "good.jsonl"
    assert main(["backup", str(good), "--db", source]) == 0
    bad = tmp_path / "bad.jsonl"
    lines = good.read_text().splitlines()
    at = lines.index(json.dumps({"table": "notes", "columns": ["chat", "key", "value"]}))
    lines.insert(at + count + 1, json.dumps(["chat-0", "k", "again"]))
    # Sealed again: the file is whole, the store refuses it.
    bad.write_text(sealed("\n".join(lines[:-1]) + "\n"))
    target = (
        schema_url(postgres_url, f"{tmp_path}/batches")
        if kind == "postgres"
        else str(tmp_path / "t.sqlite3")
    )
    capsys.readouterr()
    assert main(["restore", str(bad), "--db", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("genial-bot: ") and err.count("\n") == 1
    check = open_store(target)
    try:
        assert check.notes_of("chat-1") == {}
    finally:
        check.close()
    assert main(["restore", str(good), "--db", target]) == 0
    assert f"notes {count}" in capsys.readouterr().out
    check = open_store(target)
    try:
        assert check.notes_of(f"chat-{count - 1}") == {"k": f"v{count - 1}"}
        assert sum(len(check.notes_of(f"chat-{n}")) for n in range(count)) == count
    finally:
        check.close()


def tables_at(url: str) -> list[str]:
    """The tables in the schema of ``url``."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
    return sorted(str(r[0]) for r in rows)


def cut(lines: list[str], how: str) -> list[str]:
    """A whole backup's lines, damaged as ``how`` says (the games of :func:`fill`: two
    finished games, so two rows in ``finished``)."""
    at = next(n for n, line in enumerate(lines) if line.startswith('{"table": "finished"'))
    if how == "no trailer":
        return lines[:-1]
    if how == "cut in a table":  # at a line's end, inside the finished games
        return lines[: at + 2]
    if how == "a row dropped":
        return lines[: at + 1] + lines[at + 2 :]
    if how == "a value changed":
        row = json.loads(lines[at + 1])
        row[2] += 1.0  # (id, chat, finished_at, data): a second later; the counts stay
        return [*lines[: at + 1], json.dumps(row), *lines[at + 2 :]]
    if how == "a line after it":
        return [*lines, lines[at + 1]]
    if how == "format 1":
        header = json.loads(lines[0])
        return [json.dumps({**header, "genial_backup": 1}), *lines[1:-1]]
    raise AssertionError(how)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("no trailer", "b.jsonl: no trailer at its end: the backup is cut short (or not whole)"),
        ("cut in a table", "b.jsonl: no trailer at its end"),
        (
            "a row dropped",
            "b.jsonl: its trailer counts 2 rows in finished, the file holds 1: the backup is"
            " not whole",
        ),
        (
            "a value changed",
            "b.jsonl: the checksum in its trailer does not match the lines before it",
        ),
        ("a line after it", "a line after the trailer, which ends a backup"),
        ("format 1", "b.jsonl: a backup of format 1, without the trailer that shows it whole"),
    ],
)
def test_a_backup_cut_short_or_changed_is_refused_and_nothing_is_made(
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    how: str,
    why: str,
) -> None:
    """A backup cut at a line's end restored without a word, with fewer rows (issue 45):
    now its trailer shows it, one line, exit status 2, and no store is made."""
    source = str(tmp_path / "s.sqlite3")
    fill(service_at(source))
    whole = tmp_path / "whole.jsonl"
    assert main(["backup", str(whole), "--db", source]) == 0
    bad = tmp_path / "b.jsonl"
    bad.write_text("\n".join(cut(whole.read_text().splitlines(), how)) + "\n")
    target = (
        schema_url(postgres_url, f"{tmp_path}/cut")
        if kind == "postgres"
        else str(tmp_path / "t.sqlite3")
    )
    capsys.readouterr()
    assert main(["restore", str(bad), "--db", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"genial-bot: {tmp_path}/") and why in err and err.count("\n") == 1
    if kind == "postgres":
        assert tables_at(target) == []
    else:
        assert not Path(target).exists()
    # The whole one restores there.
    assert main(["restore", str(whole), "--db", target]) == 0
    assert "finished 2" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_refused_restore_leaves_no_schema_and_backups_are_the_owners_only(
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    """A restore refused by the store (a column it lacks) made the new store's tables
    first and left them; and backups, holding player ids and names, were written 0644."""
    import os

    source = (
        schema_url(postgres_url, f"{tmp_path}/source")
        if kind == "postgres"
        else str(tmp_path / "s.sqlite3")
    )
    store = open_store(source)
    store.set_note("id-ada", "notify", "on")
    store.close()
    os.umask(0o022)  # what a shell usually has: files 0644
    dump = tmp_path / "b.jsonl"
    (tmp_path / "b.jsonl.partial").write_text("left by a killed backup")
    (tmp_path / "b.jsonl.partial").chmod(0o644)
    assert main(["backup", str(dump), "--db", source]) == 0
    assert dump.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "b.jsonl.partial").exists()

    lines = dump.read_text().splitlines()
    at = lines.index(json.dumps({"table": "notes", "columns": ["chat", "key", "value"]}))
    lines[at] = json.dumps({"table": "notes", "columns": ["chat", "key", "value", "extra"]})
    lines[at + 1] = json.dumps([*json.loads(lines[at + 1]), 1])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(sealed("\n".join(lines[:-1]) + "\n"))
    target = (
        schema_url(postgres_url, f"{tmp_path}/target")
        if kind == "postgres"
        else str(tmp_path / "t.sqlite3")
    )
    capsys.readouterr()
    assert main(["restore", str(bad), "--db", target]) == 2
    err = capsys.readouterr().err
    assert err.endswith(": table notes has no column 'extra'\n") and err.count("\n") == 1
    if kind == "postgres":
        assert tables_at(target) == []
    else:
        assert not Path(target).exists()
        assert not list(tmp_path.glob("t.sqlite3*"))


def test_another_programs_sqlite_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A SQLite file of some other program: its schema version (user_version) is 0, which
    # no store of genial-bot has.
    other = tmp_path / "contacts.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    db.execute("INSERT INTO contacts VALUES ('Ada', '555')")
    db.commit()
    db.close()
    out = tmp_path / "b.jsonl"
    assert main(["backup", str(out), "--db", str(other)]) == 2
    assert capsys.readouterr().err == f"genial-bot: {other}: not a store of genial-bot\n"
    assert not out.exists()


# --- the lines of a backup file, one by one (bot/operator/backup_lines.py) --------------


def backup_file(*items: object, rows: dict[str, int] | None = None, digest: str = "") -> list[str]:
    """A backup's lines as the format says: one JSON value a line; at the end, unless
    ``rows`` is None, the trailer with those counts and the SHA-256 of every line before it
    (``digest`` instead, when given)."""
    import hashlib

    lines = [(i if isinstance(i, str) else json.dumps(i)) + "\n" for i in items]
    if rows is not None:
        sha = digest or hashlib.sha256("".join(lines).encode()).hexdigest()
        lines.append(json.dumps({"trailer": {"rows": rows, "sha256": sha}}) + "\n")
    return lines


HEAD = {"genial_backup": 2, "schema": 3}


def refused(lines: list[str]) -> str:
    from bot.operator.backup_lines import BackupError, scan

    with pytest.raises(BackupError) as info:
        list(scan(lines, "f.jsonl"))
    return str(info.value)


def test_a_whole_backup_is_read_line_by_line() -> None:
    from bot.operator.backup_lines import outline, scan

    lines = backup_file(
        HEAD,
        {"table": "a", "columns": ["x", "y"]},
        [1, "q"],
        "",  # a blank line counts for the checksum too
        [2, {"base64": "AP8="}],
        {"table": "b", "columns": ["z"]},
        rows={"a": 2, "b": 0},
    )
    lines.append("\n")  # and one after the trailer is nothing
    assert list(scan(lines)) == [3, ("a", ["x", "y"]), [1, "q"], [2, b"\x00\xff"], ("b", ["z"])]
    assert outline(lines) == (3, [("a", ["x", "y"]), ("b", ["z"])])


def test_each_fault_of_a_backup_file_is_named_with_its_line() -> None:
    table = {"table": "a", "columns": ["x", "y"]}
    assert refused([]) == "f.jsonl: empty, not a genial-bot backup"
    assert refused(backup_file(HEAD, table, [1, 2])) == (
        "f.jsonl: no trailer at its end: the backup is cut short (or not whole); nothing"
        " was restored"
    )
    assert refused([*backup_file(HEAD, rows={}), "[1]\n"]) == (
        "f.jsonl:3: a line after the trailer, which ends a backup"
    )
    assert refused(backup_file(HEAD, "{", rows={})) == (
        "f.jsonl:2: not a line of a genial-bot backup (not JSON)"
    )
    assert refused(backup_file(HEAD, "[" * 100_000, rows={})) == (
        "f.jsonl:2: not a line of a genial-bot backup (nested too deep)"
    )
    assert refused(backup_file({"genial_backup": 1, "schema": 3}, rows={})) == (
        "f.jsonl: a backup of format 1, without the trailer that shows it whole; restore it"
        " with the genial-bot that wrote it"
    )
    for header in ({"genial_backup": 3, "schema": 3}, [2], {"trailer": {}}):
        assert refused(backup_file(header, rows={})) == (
            "f.jsonl: not a genial-bot backup (format 2)"
        )
    for schema in (None, True, 0, "3"):
        assert refused(backup_file({"genial_backup": 2, "schema": schema}, rows={})) == (
            "f.jsonl:1: the header has no schema version"
        )
    for bad in ({"table": 1, "columns": []}, {"table": "a"}, {"table": "a", "columns": [1]}):
        assert refused(backup_file(HEAD, bad, rows={})) == (
            "f.jsonl:2: a table's line needs its name and columns"
        )
    assert refused(backup_file(HEAD, [1, 2], rows={})) == (
        "f.jsonl:2: a row before any table's line"
    )
    assert refused(backup_file(HEAD, table, [1], rows={"a": 1})) == (
        "f.jsonl:3: a row of 1 values in a, which has 2 columns"
    )
    assert refused(backup_file(HEAD, table, [1, [2]], rows={"a": 1})) == (
        "f.jsonl:3: a value that is a list (a JSON column is written as its text)"
    )
    for value in ({"base64": 1}, {"base64": "AP8=", "more": 1}, {"text": "AP8="}):
        assert refused(backup_file(HEAD, table, [1, value], rows={"a": 1})) == (
            'f.jsonl:3: a value that is an object must be {"base64": ...}'
        )
    assert refused(backup_file(HEAD, table, [1, {"base64": "AP8"}], rows={"a": 1})).startswith(
        "f.jsonl:3: "
    )
    assert refused(backup_file(HEAD, "7", rows={})) == (
        "f.jsonl:2: not a line of a genial-bot backup"
    )


def test_a_trailer_that_disagrees_with_the_file_is_refused() -> None:
    table = {"table": "a", "columns": ["x"]}
    needs = "a trailer needs the rows of each table and a sha256"
    for trailer in (
        {"rows": {"a": True}, "sha256": "0"},
        {"rows": {"a": 1.0}, "sha256": "0"},
        {"rows": [], "sha256": "0"},
        {"rows": {"a": 1}, "sha256": 0},
        {"rows": {"a": 1}},
        "rows",
    ):
        lines = backup_file(HEAD, table, [1], {"trailer": trailer})
        assert refused(lines) == f"f.jsonl:4: {needs}"
    assert refused(backup_file(HEAD, table, [1], rows={})) == (
        "f.jsonl: its trailer does not count table a"
    )
    assert refused(backup_file(HEAD, table, [1], [2], rows={"a": 3})) == (
        "f.jsonl: its trailer counts 3 rows in a, the file holds 2: the backup is not whole"
    )
    # Tables in the order of their names: the first that disagrees is named.
    other = {"table": "b", "columns": ["x"]}
    assert refused(backup_file(HEAD, other, table, [1], rows={"b": 5, "a": 7})) == (
        "f.jsonl: its trailer counts 7 rows in a, the file holds 1: the backup is not whole"
    )
    assert refused(backup_file(HEAD, table, [1], rows={"a": 1, "z": 1})) == (
        "f.jsonl: its trailer counts 1 rows in z, the file holds no: the backup is not whole"
    )
    assert refused(backup_file(HEAD, table, [1], rows={"a": 1}, digest="0" * 64)) == (
        "f.jsonl: the checksum in its trailer does not match the lines before it: the file"
        " was changed after it was written"
    )


def test_stored_values_as_json() -> None:
    import datetime
    import decimal

    from bot.operator.backup_lines import decode, encode

    assert encode(b"\x00\xff") == {"base64": "AP8="}
    assert encode(bytearray(b"\x00\xff")) == {"base64": "AP8="}
    assert encode(memoryview(b"\x00\xff")) == {"base64": "AP8="}
    assert encode(datetime.date(2026, 12, 5)) == "2026-12-05"
    assert encode(datetime.datetime(2026, 12, 5, 14, 40)) == "2026-12-05T14:40:00"
    assert encode(datetime.time(14, 40)) == "14:40:00"
    assert encode(decimal.Decimal("1.5")) == 1.5
    assert encode({"a": [1, 2]}) == '{"a":[1,2]}'
    assert encode([1, "b"]) == '[1,"b"]'
    assert encode("text") == "text" and encode(7) == 7 and encode(None) is None
    assert decode({"base64": "AP8="}) == b"\x00\xff"
    assert decode("AP8=") == "AP8="


def test_a_backup_file_that_cannot_be_read_or_written_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = str(tmp_path / "t.sqlite3")
    missing = tmp_path / "missing.jsonl"
    assert main(["restore", str(missing), "--db", target]) == 2
    assert capsys.readouterr().err == (
        f"genial-bot: {missing}: cannot read the backup (No such file or directory)\n"
    )
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"genial_backup": 2, "schema": 4, "from": "caf\xe9"}\n')
    assert main(["restore", str(latin), "--db", target]) == 2
    assert capsys.readouterr().err == (
        f"genial-bot: {latin}: not a genial-bot backup (not UTF-8 text)\n"
    )
    assert not Path(target).exists()
    source = str(tmp_path / "s.sqlite3")
    open_store(source).close()
    nowhere = tmp_path / "no-folder" / "b.jsonl"
    assert main(["backup", str(nowhere), "--db", source]) == 2
    assert capsys.readouterr().err == (
        f"genial-bot: {nowhere}: cannot write the backup (No such file or directory)\n"
    )
    assert not nowhere.parent.exists()


def test_the_first_schema_version_is_a_backup_too() -> None:
    from bot.operator.backup_lines import outline

    # Schema versions count from 1 (a header without one, or with 0, is refused above).
    first = backup_file({"genial_backup": 2, "schema": 1}, rows={})
    assert outline(first) == (1, [])


def test_base64_with_a_character_outside_its_alphabet_is_refused() -> None:
    table = {"table": "a", "columns": ["x"]}
    # "AP8=" is b"\x00\xff"; a space or a "!" inside is no base64 (RFC 4648, section 3.3),
    # not a character to skip.
    for bad in ("A P8=", "AP!8="):
        assert refused(backup_file(HEAD, table, [{"base64": bad}], rows={"a": 1})).startswith(
            "f.jsonl:3: "
        )


def test_a_backup_without_a_name_is_called_backup_in_its_faults() -> None:
    from bot.operator.backup_lines import BackupError, outline, scan

    empty = "backup: empty, not a genial-bot backup"
    with pytest.raises(BackupError, match=f"^{empty}$"):
        list(scan([]))
    with pytest.raises(BackupError, match=f"^{empty}$"):
        outline([])
    with pytest.raises(BackupError) as info:
        outline(backup_file(HEAD, rows={"a": 1}), "f.jsonl")
    assert str(info.value) == (
        "f.jsonl: its trailer counts 1 rows in a, the file holds no: the backup is not whole"
    )


def test_what_is_a_url_and_what_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A location is a PostgreSQL URL when it starts with a scheme of ``URL_SCHEMES`` and
    ``://`` (the first one: a later ``://`` in the URL's query is part of it), anything else
    a SQLite file, even one called ``postgresql`` in the working folder. A row is one
    line of compact JSON, as the stores keep their JSON."""
    monkeypatch.chdir(tmp_path)
    made = service_at("postgresql")  # a SQLite file named like the scheme
    made.store.set_note("ada", "lang", "de")
    made.store.close()
    assert main(["backup", "b.jsonl", "--db", "postgresql"]) == 0
    lines = Path("b.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert header["genial_backup"] == backup.FORMAT and header["from"] == "sqlite"
    assert lines[lines.index('{"table": "notes", "columns": ["chat", "key", "value"]}') + 1] == (
        '["ada","lang","de"]'
    )
    capsys.readouterr()
    url = "postgresql://genial:s3cret-pw@127.0.0.1:1/genial?application_name=a://b"
    assert main(["backup", "c.jsonl", "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("genial-bot: postgresql://genial@127.0.0.1:1/genial")
    assert err.endswith(" failed: Connection refused\n") and "s3cret" not in err


def test_a_file_that_is_no_sqlite_database_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that is there but no SQLite database: SQLite's own reason ("file is not a
    database", its SQLITE_NOTADB), after the file's name, and no backup made."""
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database, only words\n" * 100)
    assert main(["backup", str(tmp_path / "b.jsonl"), "--db", str(bad)]) == 2
    assert capsys.readouterr().err == f"genial-bot: {bad}: file is not a database\n"
    assert not (tmp_path / "b.jsonl").exists()


def test_a_postgresql_schema_of_another_program_is_refused(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema without genial-bot's ``genial_schema`` table is not backed up as a store
    of version 0 but refused, named by its URL without the password."""
    url = schema_url(postgres_url, f"{tmp_path}/foreign")  # a fresh, empty schema
    assert url.startswith("postgresql://postgres@")
    with_password = url.replace("postgres@", "postgres:s3cret-pw@", 1)  # trust: not checked
    assert main(["backup", str(tmp_path / "b.jsonl"), "--db", with_password]) == 2
    assert capsys.readouterr().err == f"genial-bot: {url}: not a store of genial-bot\n"
    assert not (tmp_path / "b.jsonl").exists()


# --- the rest of issue 46's mutation run over backup.py --------------------------------


def notes_backup(*rows: list[str]) -> list[str]:
    """A whole hand-made backup of the notes table alone, holding ``rows``."""
    from bot.store.sqlite import SCHEMA_VERSION

    text = json.dumps({"genial_backup": 2, "schema": SCHEMA_VERSION}) + "\n"
    text += json.dumps({"table": "notes", "columns": ["chat", "key", "value"]}) + "\n"
    text += "".join(json.dumps(row) + "\n" for row in rows)
    return sealed(text).splitlines(keepends=True)


def test_the_last_tables_rows_are_restored_too(tmp_path: Path) -> None:
    """A backup whose last table has rows (here its only one): they are loaded after the
    last line, not only when the next table's line comes."""
    target = str(tmp_path / "t.sqlite3")
    lines = notes_backup(["ada", "lang", "de"], ["bob", "lang", "nl"])
    assert backup.restore(target, lambda: lines, "n.jsonl") == {"notes": 2}
    store = open_store(target)
    try:
        assert store.notes_of("ada") == {"lang": "de"}
        assert store.notes_of("bob") == {"lang": "nl"}
    finally:
        store.close()


def test_a_restore_inserts_at_most_a_batch_a_statement() -> None:
    """``BATCH`` rows at most go into one statement: 2 × 500 + 1 rows are 500, 500, 1."""
    from contextlib import contextmanager

    batches: list[tuple[str, list[str], int]] = []

    from bot.operator.backup_lines import Row

    def insert(table: str, columns: list[str], rows: list[Row]) -> None:
        batches.append((table, columns, len(rows)))

    @contextmanager
    def loader() -> Iterator[backup.Insert]:
        yield insert

    count = 2 * backup.BATCH + 1
    lines = notes_backup(*([f"chat-{n}", "k", "v"] for n in range(count)))
    assert backup._load(loader(), lambda: lines, "n.jsonl") == {"notes": count}
    columns = ["chat", "key", "value"]
    assert batches == [("notes", columns, 500), ("notes", columns, 500), ("notes", columns, 1)]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_backup_changed_between_its_check_and_its_load_is_named_and_nothing_made(
    tmp_path: Path, postgres_url: str, kind: str
) -> None:
    """The file is read twice: one changed in between (another program writing it) is
    refused at the line that changed, named by the file, and the store is not made."""
    good = notes_backup(["ada", "lang", "de"], ["bob", "lang", "nl"])
    changed = [*good[:3], '["bob", "lang"]\n', *good[4:]]
    reads = iter([good, changed])
    target = (
        schema_url(postgres_url, f"{tmp_path}/changed")
        if kind == "postgres"
        else str(tmp_path / "t.sqlite3")
    )
    with pytest.raises(backup.BackupError) as info:
        backup.restore(target, lambda: next(reads), "n.jsonl")
    assert str(info.value) == "n.jsonl:4: a row of 2 values in notes, which has 3 columns"
    if kind == "postgres":
        assert tables_at(target) == []
    else:
        assert not list(tmp_path.iterdir())


def test_a_store_not_empty_names_each_table_that_has_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "t.sqlite3"
    store = open_store(str(target))
    store.set_note("ada", "lang", "de")
    store.close()
    with sqlite3.connect(target) as db:
        db.execute("CREATE TABLE extra (id INTEGER PRIMARY KEY)")
        db.execute("INSERT INTO extra VALUES (1)")
    dump = tmp_path / "b.jsonl"
    dump.write_text("".join(notes_backup(["bob", "lang", "nl"])))
    assert main(["restore", str(dump), "--db", str(target)]) == 2
    err = capsys.readouterr().err
    # Rows in notes and extra, and in no other table; in SQLite's own order.
    assert err in (
        f"genial-bot: {target}: not empty (rows in {a}, {b}); restore into a new store\n"
        for a, b in (("notes", "extra"), ("extra", "notes"))
    )


def test_a_store_file_is_shown_as_it_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a URL loses its password in an output line: a file whose name looks like a
    URL's query keeps it."""
    source = str(tmp_path / "s?password=1234.sqlite3")
    open_store(source).close()
    dump = tmp_path / "b.jsonl"
    assert main(["backup", str(dump), "--db", source]) == 0
    assert capsys.readouterr().out.endswith(f" from {source}\n")
    assert backup.shown(source) == source


def test_a_backup_to_standard_output_is_the_backup_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-`` writes the backup to standard output, with no summary line and no file."""
    monkeypatch.chdir(tmp_path)
    source = str(tmp_path / "s.sqlite3")
    store = open_store(source)
    store.set_note("ada", "lang", "de")
    store.close()
    assert main(["backup", "b.jsonl", "--db", source]) == 0
    capsys.readouterr()
    assert main(["backup", "-", "--db", source]) == 0
    assert capsys.readouterr().out == Path("b.jsonl").read_text()
    assert not Path("-").exists()


def test_a_backup_file_is_the_owners_only_from_its_making(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made with mode 0600 (not only changed to it afterwards): another user never gets
    to open it. Here the change afterwards is left out."""
    import os

    source = str(tmp_path / "s.sqlite3")
    open_store(source).close()
    monkeypatch.setattr(os, "fchmod", lambda fd, mode: None)
    old = os.umask(0o022)
    try:
        assert main(["backup", str(tmp_path / "b.jsonl"), "--db", source]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "b.jsonl").stat().st_mode & 0o777 == 0o600


def test_a_blobs_text_from_sqlite_is_bytes_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    """SQLite lets a BLOB column hold text: restored into a ``bytea`` column it is its
    UTF-8 bytes, a backslash too (not PostgreSQL's escapes of a ``bytea`` literal)."""
    source = str(tmp_path / "s.sqlite3")
    open_store(source).close()
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE extra (id INTEGER PRIMARY KEY, body BLOB)")
        db.execute("INSERT INTO extra VALUES (1, ?)", ("C:\\new\\x41 é",))
    dump = tmp_path / "b.jsonl"
    assert main(["backup", str(dump), "--db", source]) == 0
    url = schema_url(postgres_url, f"{tmp_path}/blob-text")
    open_store(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE extra (id BIGINT PRIMARY KEY, body BYTEA)")
    assert main(["restore", str(dump), "--db", url]) == 0
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT id, body FROM extra").fetchall()
    assert rows == [(1, "C:\\new\\x41 é".encode())]


def test_a_postgresql_server_that_never_answers_is_given_up_after_the_timeout(
    tmp_path: Path,
) -> None:
    """A port that takes the connection and then says nothing: the backup gives up after
    its timeout (10 s, the store's own; 2 s here, libpq's least) instead of psycopg's
    default of 130 s. The ceiling of a minute is far from both."""
    import inspect
    import socket
    import time

    from bot.store.postgres import connection

    assert backup.OPEN_TIMEOUT == connection.OPEN_TIMEOUT == 10
    assert inspect.signature(backup.backup).parameters["timeout"].default == backup.OPEN_TIMEOUT
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # the kernel completes the handshake; nobody ever answers
        url = f"postgresql://genial@127.0.0.1:{silent.getsockname()[1]}/genial"
        began = time.monotonic()
        with pytest.raises(backup.BackupError, match="timeout expired"):
            backup.backup(url, open(tmp_path / "b.jsonl", "w"), timeout=2)  # noqa: SIM115
        assert time.monotonic() - began < 60


def test_a_postgresql_tables_rows_come_a_batch_at_a_time(tmp_path: Path, postgres_url: str) -> None:
    """Rows are fetched from a server-side cursor, a batch at a time, never the whole
    table at once: when the rows are handed on to be written, the server's last statement
    on the backup's connection declared the cursor; it did not send every row of a SELECT."""
    import io

    url = schema_url(postgres_url, f"{tmp_path}/cursor")
    store = open_store(url)
    for n in range(3):
        store.set_note(f"chat-{n}", "k", "v")
    store.close()
    seen: list[str] = []

    class Watched(backup._Writer):
        def rows(self, rows: Any) -> None:
            pid = rows.connection.info.backend_pid
            with psycopg.connect(url, autocommit=True) as other:
                found = other.execute(
                    "SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)
                ).fetchone()
            super().rows(rows)
            assert found is not None
            seen.append(str(found[0]))

    backup._postgres_dump(url, Watched(io.StringIO()), 10)
    assert seen and all(q.startswith("DECLARE") for q in seen), seen
