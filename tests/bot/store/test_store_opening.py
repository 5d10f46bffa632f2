"""Opening a store, as an operator's mistakes and a boot's races would (issue 23): several
processes opening one new SQLite file at once, storage values that are no store, passwords
that must never reach an error line, and files the bot cannot use. Every start-up failure
is one line and exit status 2, but for a server that is not there (yet): that is waited for
(tests/bot/operator/test_waiting.py)."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
import sys
import tempfile
import urllib.parse
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.core.table import Table
from bot.operator import waiting
from bot.store import StoreDown, StoreError, open_store
from bot.store.sqlite import SCHEMA_VERSION, SQLiteStore

#: A port on this machine where nothing listens (port 1 needs root to serve).
CLOSED = "127.0.0.1:1"
PASSWORD = "S3cr3t"
#: The user id of nobody, who owns no file here.
NOBODY = 65534


def _open_at(path: str, barrier: multiprocessing.synchronize.Barrier) -> None:
    barrier.wait()
    try:
        SQLiteStore(path).close()
    except StoreError as exc:
        print(exc, file=sys.stderr)
        os._exit(1)
    os._exit(0)


def test_eight_processes_opening_one_new_file_all_end_on_the_newest_schema(
    tmp_path: Path,
) -> None:
    """Eight processes released together at a new file, twenty times: each opens it, and
    afterwards the file opens and holds the newest schema. (With the version read outside
    the migration's transaction, two processes ran the same step and the file answered
    "duplicate column name" for good.)"""
    ctx = multiprocessing.get_context("fork")
    for round_no in range(20):
        path = str(tmp_path / f"round{round_no}.sqlite3")
        barrier = ctx.Barrier(8)
        workers = [ctx.Process(target=_open_at, args=(path, barrier)) for _ in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=300)
        assert [w.exitcode for w in workers] == [0] * 8, f"round {round_no}"
        store = SQLiteStore(path)
        store.save(Table(chat="c", title="Kitchen"), None)
        assert store.load("c") is not None
        store.close()
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
        assert {"claimed_by", "claimed_until"} <= columns
        db.close()


@pytest.mark.parametrize(
    ("url", "waited"),
    [
        (f"postgresql://bob:{PASSWORD}@{CLOSED}/genial", True),
        (f"postgresql://bob@{CLOSED}/genial?password={PASSWORD}", True),
        (f"postgresql://bob@{CLOSED}/genial?sslmode=disable&PASSWORD={PASSWORD}", False),
        (f"postgresql://bob:{PASSWORD}%ZZ@{CLOSED}/genial", False),  # a bad percent escape
        (f"postgresql://bob:{PASSWORD[:3]} {PASSWORD[3:]}@{CLOSED}/genial", False),  # a space
        (f"postgresql://bob:{PASSWORD[:3]}%20{PASSWORD[3:]}@{CLOSED}/genial", True),
        (f"POSTGRESQL://bob:{PASSWORD}@{CLOSED}/genial", True),
        (f"postgresql:/bob:{PASSWORD}@{CLOSED}/genial", False),
        (f"pgsql://bob:{PASSWORD}@{CLOSED}/genial", False),
    ],
)
def test_no_error_line_holds_a_password(
    url: str,
    waited: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A URL the bot cannot use stops it in one line with status 2; a server that is not
    there (the closed port) is waited for, a line each try (issue 43; stopped here after
    the first, as SIGTERM would stop it). Neither kind of line holds the password."""
    tries: list[float] = []

    def stop(seconds: float) -> None:
        tries.append(seconds)
        raise waiting.Stopped

    monkeypatch.setattr(waiting, "pause", stop)
    monkeypatch.chdir(tmp_path)
    assert main(["console", "--db", url, "--no-images"]) == (0 if waited else 2)
    err = capsys.readouterr().err
    if waited:
        assert tries == [1.0]
        assert "the store is not reachable yet (postgresql://bob@127.0.0.1:1/genial" in err
    else:
        assert err.startswith("genial-bot: ") and err.count("\n") == 1
    for part in (PASSWORD, PASSWORD[:3], PASSWORD[3:]):
        assert part not in err
    # Neither a file nor a folder named after the URL: nothing was taken for a path.
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("url", "server"),
    [
        (f"POSTGRESQL://bob@{CLOSED}/genial", True),
        (f"Postgres://bob@{CLOSED}/genial", True),
        (f"postgresql:/bob@{CLOSED}/genial", False),
        (f"pgsql://bob@{CLOSED}/genial", False),
        (f"sqlite:///{CLOSED}/genial", False),
    ],
)
def test_a_storage_value_is_a_server_url_in_any_case_or_a_path(
    url: str, server: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError) as caught:
        open_store(url)
    if server:  # tried on the server, which is not there
        assert "connection" in str(caught.value).lower()
    else:
        assert "not a storage location" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("url", "down"),
    [
        (f"postgresql://bob@{CLOSED}/genial", True),  # refused
        ("postgresql://bob@genial-db.invalid:5432/genial", True),  # the name is not known
        ("postgresql://bob@127.0.0.1:99999/genial", False),  # no port
        (f"postgresql://bob@{CLOSED}/genial?sslmode=sometimes", False),
        (f"postgresql://bob@{CLOSED}/genial?no_such_option=1", False),
        (f"postgresql://bob:pass word@{CLOSED}/genial", False),
    ],
)
def test_a_server_not_there_is_down_a_url_that_is_wrong_is_not(url: str, down: bool) -> None:
    """Down (waited for): refused, an unknown host (a container's database not started yet
    has no name either). Not down (exit status 2): what libpq refuses before it asks any
    server."""
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert isinstance(caught.value, StoreDown) is down, caught.value


def test_a_server_store_waits_for_a_pooled_connection_as_long_as_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``[bot] store_wait`` reaches the PostgreSQL store; without it the store keeps its
    own default (5 s, docs/operating.md: When something fails)."""
    import bot.store.postgres as postgres

    opened: list[tuple[str, dict[str, object]]] = []
    monkeypatch.setattr(
        postgres, "PostgresStore", lambda url, **kwargs: opened.append((url, kwargs))
    )
    open_store("Postgres://bob@db.example:5432/genial", wait=0.25)
    open_store("postgresql://bob@db.example:5432/genial")
    assert opened == [
        ("postgres://bob@db.example:5432/genial", {"wait": 0.25}),
        ("postgresql://bob@db.example:5432/genial", {}),
    ]
    assert postgres.WAIT == 5.0


def test_a_database_not_made_yet_is_waited_for(postgres_url: str) -> None:
    """A server that answers but does not know the database (or the role, or the password)
    may be set up after the bot starts (an init job, an operator running createdb): down,
    waited for, each try's line saying what the server said."""
    parts = urllib.parse.urlsplit(postgres_url)
    url = urllib.parse.urlunsplit(parts._replace(path="/no_such_database"))
    with pytest.raises(StoreDown, match='database "no_such_database" does not exist'):
        open_store(url)


def test_a_windows_drive_is_a_path_not_a_scheme(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    open_store("C:/genial.sqlite3").close()  # a relative folder named C: here
    assert (tmp_path / "C:" / "genial.sqlite3").exists()


def _damaged_file(path: Path) -> None:
    store = SQLiteStore(path)
    for n in range(200):
        store.save(Table(chat=str(n), title="x" * 500), None)
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    data = bytearray(path.read_bytes())
    data[page * 5 : page * 5 + 12] = b"Z" * 12  # a b-tree page's header: garbage
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("case", ["under_a_file", "under_proc", "damaged", "config_not_utf8"])
def test_start_up_failures_are_one_line_and_status_2(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["console", "--no-images", "--db"]
    if case == "under_a_file":
        (tmp_path / "plain").write_text("")
        args.append(str(tmp_path / "plain" / "genial.sqlite3"))
        why = "cannot make its folder"
    elif case == "under_proc":
        args.append("/proc/genial-test/genial.sqlite3")
        why = "cannot make its folder"
    elif case == "damaged":
        _damaged_file(tmp_path / "genial.sqlite3")
        args.append(str(tmp_path / "genial.sqlite3"))
        why = "damaged"
    else:
        (tmp_path / "bad.toml").write_bytes(b"\xff\xfe[bot]\n")
        args = ["--config", "bad.toml", *args, str(tmp_path / "genial.sqlite3")]
        why = "not UTF-8"
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("genial-bot: ") and err.count("\n") == 1 and why in err


def test_a_read_only_file_is_refused_at_start() -> None:
    """The bot opened a read-only file, showed the game and crashed on the first move; now
    it says so at start. Root may write any file, so the bot runs as nobody then (in a
    forked process: the code is loaded already, only the store's folder must be open)."""
    folder = Path(tempfile.mkdtemp(prefix="genial-ro-"))
    path = folder / "genial.sqlite3"
    SQLiteStore(path).close()
    path.chmod(0o444)
    folder.chmod(0o555)  # nor may a -wal file be made beside it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the bot as a user who may not write the file
        status = 1
        try:
            os.close(read)
            if os.geteuid() == 0:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            sys.stderr = os.fdopen(write, "w")
            status = main(["console", "--no-images", "--db", str(path)])
            sys.stderr.flush()
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read) as pipe:
        err = pipe.read()
    _, wait_status = os.waitpid(pid, 0)
    folder.chmod(0o755)
    shutil.rmtree(folder)
    assert os.waitstatus_to_exitcode(wait_status) == 2, err
    assert err == f"genial-bot: {path}: read-only, the bot must be able to write it\n"


def test_an_empty_file_that_claims_the_schema_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A SQLite file with the current ``user_version`` and no table (made by hand, or
    left by a tool) made the console exit 1 with "no such table: finished" and a
    traceback: now one line, status 2, and the file is left as it was, with nothing
    beside it."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "genial.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.close()
    assert main(["console", "--no-images", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"genial-bot: {path}: not a store of genial-bot (schema {SCHEMA_VERSION} without its"
        " table tables)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["genial.sqlite3"]
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        db.close()


def test_a_server_schema_that_claims_the_version_without_tables_is_refused(
    postgres_url: str, tmp_path: Path
) -> None:
    import psycopg

    from bot.store.postgres.schema import SCHEMA_VERSION as SERVER_SCHEMA
    from tests.bot.backends import schema_url

    url = schema_url(postgres_url, f"{tmp_path}/claims")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE genial_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO genial_schema VALUES (%s)", (SERVER_SCHEMA,))
    with pytest.raises(StoreError) as refused:
        open_store(url)
    assert str(refused.value).endswith(
        f": not a store of genial-bot (schema {SERVER_SCHEMA} without its table tables)"
    )
