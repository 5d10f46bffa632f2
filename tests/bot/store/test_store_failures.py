"""The stores when things go wrong, each the gap a surviving mutant showed
(docs/mutation.md): damaged rows, a statement failing inside a transaction, a write lock
held past the busy timeout, a table made at a move's target meanwhile, the pool's
connections, an unreachable server; and what the rows hold (compact JSON, WAL).

A failure inside a transaction is made with a trigger that raises on one marked value,
so the rest of the store goes on as usual.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot.core.table import PLAYING, Seat, Table
from bot.store import DamagedTable, SQLiteStore, StaleTable, StoreBusy, StoreError
from bot.store.base import Letter, SavedTournament
from tests.bot import backends
from tests.bot.backends import schema_url, store_at
from tests.patience import PATIENCE, wait_until

#: Runs a test on SQLite and on PostgreSQL.
both = pytest.mark.usefixtures("backend")


def sample(
    chat: str = "c", version: int = 0, due_at: float | None = None, user: str = "u1"
) -> Table:
    return Table(
        chat=chat,
        title="Kitchen",
        version=version,
        status=PLAYING,
        seats=[Seat("Ada", user), Seat("Computer 1", None, "greedy")],
        record={"game": "genial", "mode": "standard", "players": 2, "moves": []},
        due_at=due_at,
    )


def raw(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """Run one statement on the current backend's database of ``db``, beside the store."""
    location = backends.location(db)
    if backends.current["name"] == "postgres":
        with psycopg.connect(location, autocommit=True) as conn:
            cur = conn.execute(sql.encode())
            return cur.fetchall() if cur.description else []
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# --- damaged rows ------------------------------------------------------------------------


@both
def test_a_damaged_row_names_its_table_version_and_fault(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    store = store_at(db)
    store.save(sample("c"), None)
    raw(db, "UPDATE tables SET data = '{not json', version = 7 WHERE chat = 'c'")
    for read in (lambda: store.load("c"), lambda: store.load_seated("c", ("notify",))):
        with pytest.raises(DamagedTable) as info:
            read()
        assert (info.value.chat, info.value.version, info.value.detail) == (
            "c",
            7,
            "JSONDecodeError",
        )
        assert str(info.value) == "c: damaged table (JSONDecodeError)"


@both
def test_a_damaged_archive_row_is_skipped_and_the_rows_after_it_kept(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    store = store_at(db)
    for n in range(3):
        store.archive("a", float(n), {"n": n})
    raw(db, "UPDATE finished SET data = '{not json' WHERE finished_at = 1")
    assert [(g["n"], g["finished_at"]) for g in store.archived()] == [(0, 0.0), (2, 2.0)]


@both
def test_a_review_wanted_of_a_damaged_game_is_claimed_as_none(tmp_path: Path) -> None:
    # Its game's row cannot be read: nothing to review (nor a failure for the caller).
    db = tmp_path / "t.db"
    store = store_at(db)
    store.archive("a", 1.0, {"n": 1})
    store.want_review("a", 1.0)
    raw(db, "UPDATE finished SET data = '{not json'")
    assert store.claim_review("a", "bot", 2.0, 60.0) is None


# --- what the rows hold ------------------------------------------------------------------


@both
def test_rows_are_compact_json(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    store = store_at(db)
    store.archive("a", 1.0, {"chat": "a", "n": [1, 2], "s": {"k": None}})
    assert raw(db, "SELECT data FROM finished") == [('{"chat":"a","n":[1,2],"s":{"k":null}}',)]
    store.want_review("a", 1.0)
    assert store.save_review("a", 1.0, {"moves": [1, 2], "best": {"k": None}})
    assert raw(db, "SELECT data FROM reviews") == [('{"moves":[1,2],"best":{"k":null}}',)]
    store.save_tournament(SavedTournament("t1", 0, "open", {"rounds": [1, 2], "k": None}), None)
    assert raw(db, "SELECT data FROM tournaments") == [('{"rounds":[1,2],"k":null}',)]
    store.save(sample("a"), None)
    (saved,) = raw(db, "SELECT data FROM tables")[0]
    assert store.move("a", "z")  # the move rewrites the row's JSON with the new chat
    (moved,) = raw(db, "SELECT data FROM tables")[0]
    assert saved.startswith('{"chat":"a","title":"Kitchen",')
    assert moved.startswith('{"chat":"z","title":"Kitchen",')
    for text in (saved, moved):
        assert ", " not in text and '": ' not in text


def test_a_table_as_stored_is_compact_json() -> None:
    from bot.store.base import to_json

    text = to_json(sample("a"))
    assert text.startswith('{"chat":"a","title":"Kitchen","version":0,"status":"playing",')
    assert ", " not in text and '": ' not in text


def test_a_store_file_is_in_wal_mode_in_a_new_folder(tmp_path: Path) -> None:
    path = tmp_path / "one" / "two" / "t.db"  # neither folder exists yet
    store = SQLiteStore(path)
    store.save(sample(), None)
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@both
def test_claims_of_one_deadline_come_in_chat_order(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    for chat in ("c", "a", "d", "b"):
        store.save(sample(chat, due_at=10.0), None)
    assert store.claim(10.0, "me", 0.0, 60.0) == ["a", "b", "c", "d"]


# --- SQLite: a statement failing inside a transaction ---------------------------------------


def boom(path: Path, trigger: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"CREATE TRIGGER boom {trigger} BEGIN SELECT RAISE(ABORT, 'boom'); END")
    conn.close()


def test_a_save_that_fails_midway_leaves_nothing_and_the_store_usable(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    boom(path, "BEFORE INSERT ON seated WHEN NEW.player = 'u-boom'")
    with pytest.raises(sqlite3.IntegrityError, match="boom"):
        store.save(sample("c", user="u-boom"), None)  # the table's row went in first
    assert store.load("c") is None
    store.save(sample("d"), None)
    assert store.load("d") == sample("d") and store.playing("u1") == ["d"]


def test_a_move_that_fails_midway_leaves_the_table_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    store.save(sample("a"), None)
    store.set_note("a", "lobby", "5")
    boom(path, "BEFORE UPDATE ON notes")
    with pytest.raises(sqlite3.IntegrityError, match="boom"):
        store.move("a", "z")  # the table and the players index moved first
    assert store.chats() == ["a"] and store.playing("u1") == ["a"]
    assert store.note("a", "lobby") == "5"
    store.save(sample("b"), None)
    assert store.chats() == ["a", "b"]


def test_a_claim_that_fails_midway_claims_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    store.save(sample("a", due_at=1.0), None)
    store.save(sample("b", due_at=2.0), None)
    boom(path, "BEFORE UPDATE OF claimed_by ON tables WHEN NEW.chat = 'b'")
    with pytest.raises(sqlite3.IntegrityError, match="boom"):
        store.claim(5.0, "me", 0.0, 60.0)  # "a" was claimed first
    assert store.claimants() == []
    store.save(sample("c"), None)
    assert store.chats() == ["a", "b", "c"]


def test_a_write_lock_held_past_the_busy_timeout_is_busy(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = SQLiteStore(path, busy_timeout=0.2)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusy):
            store.save(sample(), None)
        # The store's wait, not SQLite's own default of 5 s: asked of SQLite, not timed.
        assert store._db.execute("PRAGMA busy_timeout").fetchone() == (200,)
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.save(sample(), None)
    assert store.chats() == ["c"]


# --- PostgreSQL ----------------------------------------------------------------------------


@pytest.fixture
def pg_url(postgres_url: str, tmp_path: Path) -> str:
    """A fresh schema on the test server."""
    return schema_url(postgres_url, str(tmp_path))


def test_postgres_a_table_made_at_the_target_meanwhile_stops_a_move(pg_url: str) -> None:
    """Another process makes a table at the new id and commits only once this move has
    looked (and found none): the move's update waits for it, then is refused."""
    from bot.store.postgres import PostgresStore

    store = PostgresStore(pg_url)
    try:
        store.save(sample("old"), None)
        other = psycopg.connect(pg_url)  # a transaction left open
        other.execute(
            "INSERT INTO tables (chat, version, status, data) VALUES ('new', 0, 'lobby', '{}')"
        )
        result: list[bool] = []
        mover = threading.Thread(target=lambda: result.append(store.move("old", "new")))
        mover.start()

        def waiting() -> bool:  # the move waits on the other's row (a lock, not a sleep)
            with psycopg.connect(pg_url, autocommit=True) as admin:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                ).fetchone()
            return row is not None and row[0] > 0

        wait_until(waiting, "the move waiting on the other's row")
        other.commit()
        other.close()
        mover.join(PATIENCE)
        assert result == [False]
        assert store.chats() == ["new", "old"]
        assert store.load("old") == sample("old")
    finally:
        store.close()


def test_postgres_a_held_connection_does_not_stop_the_others(pg_url: str) -> None:
    from bot.store.postgres import PostgresStore

    store = PostgresStore(pg_url, wait=PATIENCE)
    try:
        store.save(sample("c"), None)
        done = threading.Event()
        with store._pool.connection():  # one command thread busy with a long statement
            reader = threading.Thread(target=lambda: (store.load("c"), done.set()))
            reader.start()
            # With one connection the reader would wait for this one as long as the
            # store's wait; the pool's second connection comes long before, however busy
            # the machine (a wait of seconds here was wall time it may take).
            assert done.wait(PATIENCE / 2)
        reader.join()
    finally:
        store.close()


def test_postgres_an_unreachable_server_says_why() -> None:
    from tests.bot.pgserver import free_port

    with pytest.raises(StoreError) as info:
        from bot.store.postgres import PostgresStore

        PostgresStore(f"postgresql://genial:s3cret@127.0.0.1:{free_port()}/genial")
    assert str(info.value).endswith("Connection refused")


def test_postgres_a_failure_without_words_is_named_by_its_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A connection that fails and says nothing (an OperationalError without a message):
    # the error line names the URL, its password starred, and the kind of the failure.
    from bot.store import StoreDown
    from bot.store.postgres import PostgresStore, connection

    def silent(*_: object, **__: object) -> None:
        raise psycopg.OperationalError()

    monkeypatch.setattr(connection.psycopg, "connect", silent)
    with pytest.raises(StoreDown) as info:
        PostgresStore("postgresql://genial:s3cret@127.0.0.1:5/genial")
    assert str(info.value) == "postgresql://genial@127.0.0.1:5/genial: OperationalError"


def test_postgres_a_server_that_never_answers_is_given_up_after_the_open_timeout() -> None:
    """A port that takes the connection and then says nothing (a server hung, a firewall
    that swallows packets): the bot's start fails after the connect timeout instead of
    hanging for good. The timeout is 10 s (``OPEN_TIMEOUT``); 2 s here (libpq's least),
    and nothing is timed: the store gives up by itself or the test never ends."""
    import inspect
    import socket

    from bot.store.postgres import PostgresStore, connection

    assert connection.OPEN_TIMEOUT == 10
    opened = inspect.signature(PostgresStore.__init__).parameters["open_timeout"]
    assert opened.default == connection.OPEN_TIMEOUT  # what the bot's start waits
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # the kernel completes the handshake; nobody ever answers
        port = silent.getsockname()[1]
        with pytest.raises(StoreError, match="timeout expired"):
            PostgresStore(f"postgresql://genial@127.0.0.1:{port}/genial", open_timeout=2)


def test_postgres_the_pool_is_opened_as_psycopg_pool_will_require(pg_url: str) -> None:
    """psycopg_pool warns that a pool not told ``open=`` will one day start closed: the
    store says it, so a newer psycopg_pool cannot leave it without connections."""
    import warnings

    from bot.store.postgres import PostgresStore

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        store = PostgresStore(pg_url)
        try:
            assert store.load("c") is None
        finally:
            store.close()


# --- passwords kept out of error lines --------------------------------------------------------


def test_a_query_password_is_shown_as_stars() -> None:
    from bot.store.base import safe_url

    assert safe_url("postgresql://h/db?sslmode=require&password=pw") == (
        "postgresql://h/db?sslmode=require&password=***"
    )
    assert safe_url("postgresql://ann:s3cret@h:5432/db") == "postgresql://ann@h:5432/db"


def test_a_password_inside_another_is_cleaned_as_a_whole() -> None:
    """The userinfo's password "ab" holds the query's "b": the longer goes first, or "ab"
    in a line would leave its "a" behind."""
    from bot.store.base import without_secrets

    url = "postgresql://ann:ab@h/db?password=b"
    assert without_secrets('password "ab" refused, then "b"', url) == (
        'password "***" refused, then "***"'
    )


def test_postgres_a_connection_the_server_closed_is_not_handed_to_a_command(
    pg_url: str,
) -> None:
    """After a server restart the pool holds connections the server closed: each is
    checked as it is handed out, and a command gets a live one."""
    from bot.store.postgres import PostgresStore

    store = PostgresStore(pg_url)
    try:
        store.save(sample("c"), None)
        with store._pool.connection() as conn:
            pid = conn.info.backend_pid
        with psycopg.connect(pg_url, autocommit=True) as admin:
            # Waits until that backend is gone (up to a minute), as after a restart.
            admin.execute("SELECT pg_terminate_backend(%s, 60000)", (pid,))
        assert store.load("c") == sample("c")
    finally:
        store.close()


# --- what issue 42's rerun found untested ------------------------------------------------------


@both
def test_the_tables_whose_row_holds_a_text_come_in_chat_order(tmp_path: Path) -> None:
    # /forgetme asks for the tables that name a person (their id as JSON text, '"u1"').
    store = store_at(tmp_path / "t.db")
    for chat in ("c3", "c1"):
        store.save(sample(chat), None)
    store.save(sample("c2", user="u2"), None)
    assert store.tables_with('"u1"') == ["c1", "c3"]
    assert store.tables_with('"u2"') == ["c2"]
    assert store.tables_with('"u9"') == []


@both
def test_letters_saved_without_a_time_are_of_time_0_and_claimed_for_no_time(
    tmp_path: Path,
) -> None:
    # save's defaults: now 0 and lease 0, so process a's claim ends at 0; b may take the
    # letter at 0.5, and it is of time 0.
    store = store_at(tmp_path / "t.db")
    (letter,) = store.save(sample("c1"), None, [Letter("c1", "{}")], owner="a")
    (got,) = store.letters("b", 0.5, 10.0)
    assert (got.id, got.since) == (letter, 0.0)


@both
def test_letters_saved_by_a_process_are_its_own_until_its_lease_ends(tmp_path: Path) -> None:
    # Process a saves a move and its letter at 1 with a lease of 10: until 11, b gets none.
    store = store_at(tmp_path / "t.db")
    (letter,) = store.save(sample("c1"), None, [Letter("c1", "{}")], owner="a", now=1.0, lease=10.0)
    assert store.letters("b", 2.0, 10.0) == []
    assert [got.id for got in store.letters("b", 11.0, 10.0)] == [letter]


@both
def test_a_stale_save_names_its_table(tmp_path: Path) -> None:
    # Left uncaught, it names the table in the operator's log.
    store = store_at(tmp_path / "t.db")
    store.save(sample("c1"), None)
    with pytest.raises(StaleTable) as stale:
        store.save(sample("c1"), None)
    assert stale.value.args == ("c1",)


@both
def test_a_tournament_is_saved_only_from_the_version_it_was_loaded_at(tmp_path: Path) -> None:
    # As a table's save: a new tournament, then each change from the version loaded, its
    # letters with it; a change from an older version (another process got there first)
    # is refused, naming the tournament, and writes nothing, letters neither.
    store = store_at(tmp_path / "t.db")
    cup = SavedTournament("t1", 1, "open", {"name": "Cup"}, None, "ABC", ("home",))
    assert store.save_tournament(cup, None) == []
    assert store.load_tournament("t1") == (1, {"name": "Cup"})
    running = SavedTournament("t1", 2, "running", {"name": "Cup", "round": 1}, 30.0, "ABC",
                              ("home", "team"))  # fmt: skip
    (letter,) = store.save_tournament(running, 1, [Letter("team", "{}")])
    assert store.load_tournament("t1") == (2, {"name": "Cup", "round": 1})
    assert (store.due_tournaments(30.0), store.tournaments_of("team")) == (["t1"], ["t1"])
    late = SavedTournament("t1", 2, "done", {"name": "Cup", "round": 9}, None, "ABC", ())
    with pytest.raises(StaleTable) as stale:
        store.save_tournament(late, 1, [Letter("home", "{}")])
    assert stale.value.args == ("t1",)
    assert store.load_tournament("t1") == (2, {"name": "Cup", "round": 1})
    assert store.tournaments_of("team") == ["t1"]
    assert [got.id for got in store.letters("b", 1.0, 10.0)] == [letter]


@both
def test_letters_saved_with_a_tournament_without_a_time_are_of_time_0_and_claimed_for_no_time(
    tmp_path: Path,
) -> None:
    # save_tournament's defaults, as save's: now 0 and lease 0.
    store = store_at(tmp_path / "t.db")
    cup = SavedTournament("t1", 0, "open", {})
    (letter,) = store.save_tournament(cup, None, [Letter("c1", "{}")], owner="a")
    (got,) = store.letters("b", 0.5, 10.0)
    assert (got.id, got.since) == (letter, 0.0)


@both
def test_letters_saved_with_a_tournament_are_the_savers_until_its_lease_ends(
    tmp_path: Path,
) -> None:
    store = store_at(tmp_path / "t.db")
    cup = SavedTournament("t1", 0, "open", {})
    saved = store.save_tournament(cup, None, [Letter("c1", "{}")], owner="a", now=1.0, lease=10.0)
    assert store.letters("b", 2.0, 10.0) == []
    (got,) = store.letters("b", 11.0, 10.0)
    assert ([got.id], got.since) == (saved, 1.0)


class WalClock:
    """The store's clock while it switches a new file to WAL, which a reader holds: each
    pause moves it on by 1/32 s; ``free`` ends the reader's hold at the first pause."""

    def __init__(self, holder: sqlite3.Connection, free: bool) -> None:
        self.now, self.holder, self.free = 100.0, holder, free
        self.pauses: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        assert len(self.pauses) < 10, "tries again forever"
        if self.free and self.holder.in_transaction:
            self.holder.execute("COMMIT")
        self.now += 1 / 32


@pytest.mark.parametrize("free", [True, False])
def test_the_switch_to_wal_is_tried_again_while_the_file_is_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free: bool
) -> None:
    # Another connection reads the new file while the store opens it: the switch to WAL
    # answers "locked"; it is tried again after a short pause, for the store's patience
    # (its busy timeout, 1/16 s here): at 100, 100 + 1/32 and 100 + 1/16 (not past it yet),
    # and given up at 100 + 3/32.
    from bot.store.sqlite import connection

    path = tmp_path / "t.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN")
    holder.execute("SELECT * FROM t").fetchall()
    clock = WalClock(holder, free)
    monkeypatch.setattr(connection, "time", clock)
    if free:
        SQLiteStore(path, busy_timeout=1 / 16).close()
        assert raw(path, "PRAGMA journal_mode") == [("wal",)]
        assert len(clock.pauses) == 1
    else:
        with pytest.raises(StoreError, match="locked"):
            SQLiteStore(path, busy_timeout=1 / 16)
        assert len(clock.pauses) == 3
        holder.execute("COMMIT")
    assert all(0 < pause <= 0.05 for pause in clock.pauses)
    holder.close()


def test_a_store_file_is_listened_to_by_a_daemon_thread_and_a_memory_store_by_none(
    tmp_path: Path,
) -> None:
    # SQLite has no notifications: a file's listener is a thread of its own that looks at
    # the file, wakes once at its start (letters may wait already) and never keeps the
    # process from ending. A store in memory is one connection: no other process to hear.
    woken = threading.Event()
    before = set(threading.enumerate())
    stop = SQLiteStore(":memory:").listen(woken.set)
    try:
        assert set(threading.enumerate()) - before == set()
    finally:
        stop()
    stop = SQLiteStore(tmp_path / "t.db").listen(woken.set)
    try:
        (listener,) = set(threading.enumerate()) - before
        assert (listener.name, listener.daemon) == ("genial-letters", True)

        def alive() -> str | None:
            return None if listener.is_alive() else "the listener ended"

        wait_until(woken.is_set, "the listener wakes at its start", alive=alive)
    finally:
        stop()


class Looks:
    """The SQLite listener's own connections, counting its looks at the file (``PRAGMA
    data_version``) and the connections it closes; ``fail`` makes the next look fail as a
    locked file does."""

    def __init__(self) -> None:
        self.count = self.closed = self.opened = 0
        self.fail = False

    def connect(self, *args: Any, **kwargs: Any) -> Looks.Connection:
        self.opened += 1
        return Looks.Connection(sqlite3.connect(*args, **kwargs), self)

    class Connection:
        def __init__(self, db: sqlite3.Connection, looks: Looks) -> None:
            self.db, self.looks = db, looks

        def execute(self, sql: str, *params: Any) -> sqlite3.Cursor:
            looking = "data_version" in sql.lower()
            if looking and self.looks.fail:
                self.looks.fail = False
                raise sqlite3.OperationalError("database is locked")
            cursor = self.db.execute(sql, *params)
            if looking:
                self.looks.count += 1
            return cursor

        def close(self) -> None:
            self.looks.closed += 1
            self.db.close()


def test_the_sqlite_listener_wakes_on_a_letter_left_unclaimed_and_on_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The listener looks at the file every LISTEN_POLL (1/100 s here); a commit by another
    # connection (a table saved, a letter left) is seen at the next look, the letters
    # only then: it wakes for a letter nobody claimed, not for a table. A look that fails
    # (the file locked) closes its connection and opens a new one at the next. Looks are
    # counted: a look is over when the one after it began (n + 3 below: the look under
    # way when a commit ends may have read the file before it).
    from types import SimpleNamespace

    from bot.store.sqlite import letters

    store, other = SQLiteStore(tmp_path / "t.db"), SQLiteStore(tmp_path / "t.db")
    looks = Looks()
    fake = SimpleNamespace(connect=looks.connect, Error=sqlite3.Error)
    monkeypatch.setattr(letters, "sqlite3", fake)
    monkeypatch.setattr(letters, "LISTEN_POLL", 0.01)
    wakes: list[int] = []
    before = set(threading.enumerate())
    stop = store.listen(lambda: wakes.append(looks.count))
    (listener,) = set(threading.enumerate()) - before

    def alive() -> str | None:
        return None if listener.is_alive() else "the listener ended"

    def looked(times: int) -> None:
        n = looks.count
        wait_until(lambda: looks.count >= n + times, f"{times} looks", alive=alive)

    try:
        wait_until(lambda: wakes, "the wake at the start", alive=alive)
        assert wakes == [0]  # before any look
        looked(3)  # at the file as it is: nothing new
        other.save(sample("c1"), None)
        looked(3)
        assert len(wakes) == 1  # a table saved: no letter
        other.post([Letter("c1", "{}")], owner=None, now=1.0, lease=0)
        n = looks.count
        wait_until(lambda: len(wakes) == 2 or looks.count >= n + 3, "a wake", alive=alive)
        assert len(wakes) == 2
        looked(3)
        assert len(wakes) == 2  # the same letter, nothing committed since: not again
        assert [ltr.chat for ltr in other.letters("bot", 2.0, 60.0)] == ["c1"]
        looked(3)
        assert len(wakes) == 2  # the letter claimed: none left for anyone
        looks.fail = True
        looked(3)
        assert (looks.opened, looks.closed) == (2, 1)
        assert len(wakes) == 2
        other.post([Letter("c2", "{}")], owner=None, now=2.0, lease=0)
        n = looks.count
        wait_until(lambda: len(wakes) == 3 or looks.count >= n + 3, "a wake", alive=alive)
        looked(3)
        assert len(wakes) == 3
    finally:
        stop()
    listener.join(PATIENCE)
    assert not listener.is_alive()
    assert (looks.opened, looks.closed) == (2, 2)
    other.close()
