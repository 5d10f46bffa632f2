"""The stores (SQLite and PostgreSQL alike): tables round-trip, stale saves are refused,
deadlines are found and claimed once, a player's tables come from an index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.core.table import LOBBY, PLAYING, Options, Seat, Table
from bot.store import SQLiteStore, StaleTable, StoreError
from bot.store.base import CLAIM_BATCH, Letter
from tests.bot.backends import schema_url, store_at

#: Runs a test on SQLite and on PostgreSQL.
both = pytest.mark.usefixtures("backend")


def sample(chat: str = "c", version: int = 0, due_at: float | None = None) -> Table:
    return Table(
        chat=chat,
        title="Kitchen",
        version=version,
        status=PLAYING,
        host="u1",
        host_name="Ada",
        seats=[Seat("Ada", "u1"), Seat("Computer 1", None, "greedy"), Seat("Bob", level="x")],
        options=Options(game="genial", team=False, timeout=3600, hints=True, lang="nl"),
        record={"game": "genial", "mode": "standard", "players": 3, "moves": ["keep"]},
        seed=99,
        turn_started=12.5,
        reminded=True,
        due_at=due_at,
        bots_added=1,
    )


@both
def test_round_trip(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    table = sample()
    store.save(table, None)
    assert store.load("c") == table
    assert store.load("other") is None


@both
def test_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "t.db"
    store = store_at(path)
    store.save(sample(), None)
    store.close()
    assert store_at(path).load("c") == sample()


@both
def test_save_needs_the_loaded_version(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(sample(version=0), None)
    store.save(sample(version=1), 0)
    with pytest.raises(StaleTable):
        store.save(sample(version=2), 0)  # loaded at 0, but the table is at 1 now
    with pytest.raises(StaleTable):
        store.save(sample(version=1), None)  # a second new table for the same chat
    assert store.load("c") == sample(version=1)


@both
def test_due_finds_tables_in_deadline_order(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(sample("late", due_at=30.0), None)
    store.save(sample("never"), None)
    store.save(sample("early", due_at=10.0), None)
    assert store.due(5.0) == []
    assert store.due(10.0) == ["early"]
    assert store.due(100.0) == ["early", "late"]
    assert store.chats() == ["early", "late", "never"]


def test_a_file_that_is_no_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 100)
    with pytest.raises(StoreError, match=r"notes\.txt"):
        SQLiteStore(path)


@both
def test_next_due_is_the_earliest_deadline(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    assert store.next_due() is None
    store.save(sample("never"), None)
    assert store.next_due() is None
    store.save(sample("late", due_at=30.0), None)
    store.save(sample("early", due_at=10.5), None)
    assert store.next_due() == 10.5


@both
def test_notes_are_kept_per_chat_and_key_outside_the_version(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = store_at(path)
    store.save(sample("c"), None)
    assert store.note("c", "lobby") is None
    store.set_note("c", "lobby", "101")
    store.set_note("c", "lobby", "202")  # a second note under a key replaces the first
    store.set_note("c", "thread", "7")
    store.set_note("d", "lobby", "303")  # a chat without a table may have notes too
    assert store.load("c") == sample("c")  # the table (and its version) did not change
    store.close()
    store = store_at(path)
    assert (store.note("c", "lobby"), store.note("c", "thread")) == ("202", "7")
    assert store.note("d", "lobby") == "303"
    assert store.notes_of("c") == {"lobby": "202", "thread": "7"}  # a chat's every note
    assert store.notes_of("e") == {}
    store.set_note("c", "lobby", None)
    assert store.note("c", "lobby") is None
    assert store.note("c", "thread") == "7"
    assert store.notes_of("c") == {"thread": "7"}


@both
def test_a_note_is_swapped_only_from_the_value_it_has(tmp_path: Path) -> None:
    """Of processes racing to change one note (the heartbeat's outage to credit), one does."""
    store = store_at(tmp_path / "t.db")
    assert store.swap_note("bot", "k", None, None) is True  # none there, as expected
    assert store.swap_note("bot", "k", None, "1") is True
    assert store.swap_note("bot", "k", None, "2") is False  # one is there now
    assert store.swap_note("bot", "k", None, None) is False
    assert store.swap_note("bot", "k", "2", "3") is False  # it is not 2
    assert store.note("bot", "k") == "1"
    assert store.swap_note("bot", "k", "1", "3") is True
    assert store.swap_note("bot", "k", "1", None) is False
    assert store.note("bot", "k") == "3"
    assert store.swap_note("bot", "k", "3", None) is True
    assert store.note("bot", "k") is None
    assert store.swap_note("bot", "k", "3", "4") is False  # gone: nothing to change
    assert store.note("bot", "k") is None


@both
def test_move_carries_the_table_and_its_notes_to_the_new_chat(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(sample("old", version=5, due_at=20.0), None)
    store.set_note("old", "lobby", "11")
    store.set_note("new", "stale", "x")  # notes left from before belong to no table
    assert store.move("old", "new") is True
    assert store.load("old") is None
    moved = store.load("new")
    assert moved is not None and moved.chat == "new" and moved.version == 5
    assert moved == sample("new", version=5, due_at=20.0)
    assert store.due(20.0) == ["new"]
    assert (store.note("new", "lobby"), store.note("new", "stale")) == ("11", None)
    assert store.note("old", "lobby") is None
    # Nothing to move, or the new chat has a table already: nothing changes.
    assert store.move("old", "other") is False
    store.save(sample("other"), None)
    assert store.move("new", "other") is False
    assert store.load("new") == moved


def test_a_version_1_file_is_migrated_and_a_newer_one_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "v1.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE tables (chat TEXT PRIMARY KEY, version INTEGER NOT NULL,"
        " status TEXT NOT NULL, due_at REAL, data TEXT NOT NULL);"
        "PRAGMA user_version = 1;"
    )
    db.execute(
        "INSERT INTO tables VALUES (?, ?, ?, ?, ?)",
        ("c", 0, PLAYING, None, json.dumps(sample("c").to_dict())),
    )
    db.commit()
    db.close()
    store = SQLiteStore(path)
    assert store.load("c") == sample("c")
    store.set_note("c", "lobby", "1")  # the notes table exists now
    assert store.playing("u1") == ["c"]  # the players index was filled from the tables
    store.archive("c", 5.0, {"seats": []})  # and the finished games' table
    assert store.post([Letter("c", "{}")], owner=None, now=1.0, lease=0.0) == [1]  # the outbox
    assert store.tournaments_of("c") == []  # and the tournaments' tables
    store.want_review("c", 5.0)  # and the reviews
    assert [data for _, data in store.reviews("c")] == [None]
    assert store.links() == {}  # and the linked accounts
    store.close()
    # Steps 1 to 8: tables, notes, the players index, finished games, the outbox,
    # tournaments, reviews, linked accounts.
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 8

    newer = tmp_path / "v9.db"
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 9")
    db.close()
    with pytest.raises(StoreError, match=r"newer genial-bot \(schema 9\)"):
        SQLiteStore(newer)


def test_processes_opening_a_new_file_together_migrate_it_once(tmp_path: Path) -> None:
    # Webhook workers started together open the same new file: each must find the schema
    # made (or make it), none fail on a step another one ran meanwhile ("duplicate column
    # name", or "database is locked" while another turns on write-ahead logging). Several
    # openers at once, on several new files: before the fix most such starts failed.
    import sqlite3
    import threading

    from bot.store.sqlite import SCHEMA_VERSION

    for attempt in range(5):
        path = tmp_path / f"new-{attempt}.db"
        start = threading.Barrier(4)
        errors: list[Exception] = []

        def open_it(
            path: Path = path, start: threading.Barrier = start, errors: list[Exception] = errors
        ) -> None:
            start.wait()
            try:
                SQLiteStore(path).close()
            except Exception as exc:
                errors.append(exc)

        openers = [threading.Thread(target=open_it) for _ in range(4)]
        for t in openers:
            t.start()
        for t in openers:
            t.join()
        assert errors == []
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        db.close()


@both
def test_a_players_tables_come_from_the_index_kept_with_each_save(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(sample("b"), None)  # Ada (u1) plays here; Bob's seat has no user id
    store.save(sample("a"), None)
    lobby = sample("lobby")
    lobby.status = LOBBY  # seated, but no game runs: not one of Ada's games
    store.save(lobby, None)
    assert store.playing("u1") == ["a", "b"]
    assert store.playing("Bob") == []
    ended = sample("a", version=1)
    ended.status = LOBBY
    store.save(ended, 0)
    assert store.playing("u1") == ["b"]
    with pytest.raises(StaleTable):  # a refused save leaves the index as it was
        store.save(sample("a", version=2), 0)
    assert store.playing("u1") == ["b"]
    left = sample("b", version=1)
    left.seats = [Seat("Eve", "u9"), Seat("Eve", "u9")]  # a name twice is indexed once
    store.save(left, 0)
    assert (store.playing("u1"), store.playing("u9")) == ([], ["b"])
    assert store.move("b", "b2") is True
    assert store.playing("u9") == ["b2"]


@both
def test_a_table_is_read_with_the_notes_of_the_people_at_its_game(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    keys = ("notify", "away")
    assert store.load_seated("c", keys) == (None, {})
    game = sample("c")  # Ada (u1) plays here, and two seats without a user id
    store.save(game, None)
    store.set_note("u1", "notify", "on")
    store.set_note("u1", "away", "1:2")
    store.set_note("u1", "other", "x")  # another key
    store.set_note("u2", "notify", "on")  # someone not at this table
    store.set_note("c", "notify", "table")  # a note of the table itself
    table, notes = store.load_seated("c", keys)
    assert table == store.load("c") and notes == {"u1": {"notify": "on", "away": "1:2"}}
    assert store.load_seated("c", ("notify",))[1] == {"u1": {"notify": "on"}}
    assert store.load_seated("c", ())[1] == {}
    joined = sample("c", version=1)
    joined.seats = [Seat("Ada", "u1"), Seat("Eve", "u2")]
    store.save(joined, 0)
    assert store.load_seated("c", keys)[1] == {
        "u1": {"notify": "on", "away": "1:2"},
        "u2": {"notify": "on"},
    }
    store.set_note("u1", "notify", None)
    store.set_note("u1", "away", None)
    assert store.load_seated("c", keys)[1] == {"u2": {"notify": "on"}}
    lobby = sample("c", version=2)
    lobby.status = LOBBY  # the game ended: nobody is in the index for it any more
    store.save(lobby, 1)
    table, notes = store.load_seated("c", keys)
    assert table is not None and table.version == 2 and notes == {}


@both
def test_due_tables_are_claimed_by_one_owner_until_the_lease_ends(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(sample("late", due_at=30.0), None)
    store.save(sample("early", due_at=10.0), None)
    store.save(sample("later", due_at=500.0), None)
    assert store.claim(100.0, "A", now=1000.0, lease=60.0) == ["early", "late"]
    # B finds nothing while A's lease runs (until 1060), A renews its own claims.
    assert store.claim(100.0, "B", now=1059.0, lease=60.0) == []
    assert store.claim(100.0, "A", now=1059.0, lease=60.0, chat="late") == ["late"]
    # A was killed: "early" (lease ended at 1060) goes to B; "late" was renewed to 1119.
    assert store.claim(100.0, "B", now=1060.0, lease=60.0) == ["early"]
    store.release("A", ["late", "early"])  # "early" is B's now: A's release leaves it
    assert store.claim(100.0, "C", now=1061.0, lease=60.0) == ["late"]
    assert store.claim(1000.0, "C", now=1061.0, lease=60.0, chat="later") == ["later"]
    store.release("B", ["early"])
    assert store.claim(100.0, "D", now=1062.0, lease=60.0) == ["early"]


@both
def test_a_claim_takes_one_batch_of_the_soonest(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    for i in range(CLAIM_BATCH + 5):
        store.save(sample(f"c{i:03}", due_at=float(1000 - i)), None)
    first = store.claim(2000.0, "A", now=0.0, lease=60.0)
    assert first == [f"c{i:03}" for i in range(CLAIM_BATCH + 4, 4, -1)]
    assert store.claim(2000.0, "B", now=0.0, lease=60.0) == [f"c{i:03}" for i in (4, 3, 2, 1, 0)]


@pytest.fixture
def pg_url(postgres_url: str, tmp_path: Path) -> str:
    """A fresh schema on the test server."""
    return schema_url(postgres_url, str(tmp_path))


def test_postgres_two_processes_race_and_the_version_decides(pg_url: str) -> None:
    from bot.store.postgres import PostgresStore

    one, two = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        one.save(sample(version=0), None)
        loaded_one, loaded_two = one.load("c"), two.load("c")
        assert loaded_one == loaded_two == sample(version=0)
        two.save(sample(version=1), 0)
        with pytest.raises(StaleTable):
            one.save(sample(version=1), 0)  # loaded at 0, but the other process saved 1
        assert one.load("c") == sample(version=1)
        one.set_note("c", "lobby", "5")
        assert two.note("c", "lobby") == "5"
    finally:
        one.close()
        two.close()


def test_postgres_a_version_1_database_is_migrated_and_a_newer_one_refused(
    pg_url: str,
) -> None:
    import psycopg

    from bot.store.postgres import PostgresStore

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE tables (chat TEXT PRIMARY KEY, version BIGINT NOT NULL,"
            " status TEXT NOT NULL, due_at DOUBLE PRECISION, data TEXT NOT NULL)"
        )
        conn.execute("CREATE TABLE genial_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO genial_schema VALUES (1)")
        conn.execute(
            "INSERT INTO tables VALUES (%s, %s, %s, %s, %s)",
            ("c", 0, PLAYING, None, json.dumps(sample("c").to_dict())),
        )
    store = PostgresStore(pg_url)
    assert store.load("c") == sample("c")
    assert store.playing("u1") == ["c"]  # the players index was filled from the tables
    store.set_note("c", "lobby", "1")  # the notes table exists now
    assert store.post([Letter("c", "{}")], owner=None, now=1.0, lease=0.0) == [1]  # the outbox
    assert store.tournaments_of("c") == []  # and the tournaments' tables
    store.want_review("c", 5.0)  # the reviews table exists now
    assert store.links() == {}  # and the linked accounts' (issue 49)
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM genial_schema").fetchone() == (8,)
        conn.execute("UPDATE genial_schema SET version = 9")
    with pytest.raises(StoreError, match=r"newer genial-bot \(schema 9\)$") as info:
        PostgresStore(pg_url)
    assert "\n" not in str(info.value)


def test_postgres_an_unreachable_server_is_one_line_without_the_password() -> None:
    from tests.bot.pgserver import free_port

    url = f"postgresql://genial:s3cret@127.0.0.1:{free_port()}/genial"
    from bot.store import open_store

    with pytest.raises(StoreError) as info:
        open_store(url)
    text = str(info.value)
    assert text.startswith(f"postgresql://genial@127.0.0.1:{url.rsplit(':', 1)[1].split('/')[0]}/")
    assert "s3cret" not in text and "\n" not in text


def test_open_store_picks_the_backend_by_the_location(pg_url: str, tmp_path: Path) -> None:
    from bot.store import open_store
    from bot.store.postgres import PostgresStore

    server = open_store(pg_url)
    file = open_store(str(tmp_path / "postgresql.db"))  # a path, whatever its name
    try:
        assert isinstance(server, PostgresStore)
        assert isinstance(file, SQLiteStore)
    finally:
        server.close()
        file.close()


@both
def test_census_counts_tables_by_status_and_the_due_ones(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    assert store.census(0.0) == {"lobby": 0, "playing": 0, "closed": 0, "due": 0, "waiting": 0}
    store.save(sample("a", due_at=10.0), None)
    store.save(sample("b", due_at=20.0), None)
    lobby = sample("c")
    lobby.status = LOBBY
    store.save(lobby, None, [Letter("c", "{}"), Letter("c", "{}")], owner="p", now=1.0, lease=9)
    assert store.census(15.0) == {"lobby": 1, "playing": 2, "closed": 0, "due": 1, "waiting": 2}
    assert store.census(20.0)["due"] == 2


def test_a_table_is_stored_as_the_json_of_its_dict() -> None:
    from bot.store.base import to_json

    table = sample(due_at=3.5)
    assert json.loads(to_json(table)) == table.to_dict()
    assert list(json.loads(to_json(table))) == list(table.to_dict())  # the same field order


def test_the_stored_json_is_the_tables_dict_with_every_field() -> None:
    from bot.store.base import to_json

    table = sample("c", version=3, due_at=5.0)
    table.players = [Seat("Ada", "u1"), Seat("Computer 1", level="greedy", left=True)]
    table.pending = ["Computer 1 placed RG A2 A3: +1 red."]
    table.pending_cells = ["A2", "A3"]
    assert json.loads(to_json(table)) == table.to_dict()
    assert Table.from_dict(json.loads(to_json(table))) == table


@both
def test_finished_games_are_kept_in_order_and_move_with_their_chat(tmp_path: Path) -> None:
    store = store_at(tmp_path / "s.db")
    store.archive("a", 20.0, {"chat": "a", "n": 2})
    store.archive("b", 10.0, {"chat": "b", "n": 1})
    store.archive("a", 5.0, {"chat": "a", "n": 0})
    assert [g["n"] for g in store.archived()] == [0, 1, 2]  # by finished_at, not insertion
    assert [(g["chat"], g["finished_at"]) for g in store.archived("a")] == [("a", 5.0), ("a", 20.0)]
    store.save(sample("a"), None)
    assert store.move("a", "z")
    assert store.archived("a") == []
    assert [g["n"] for g in store.archived("z")] == [0, 2]
    assert all(g["chat"] == "z" for g in store.archived("z"))
    store.close()


@both
def test_next_due_after_a_moment_is_the_first_deadline_past_it(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(sample("early", due_at=10.0), None)
    store.save(sample("late", due_at=30.0), None)
    assert store.next_due(10.0) == 30.0  # later than the moment, not at it
    assert store.next_due(9.5) == 10.0
    assert store.next_due(30.0) is None


@both
def test_letters_are_claimed_as_written_and_posted_once(tmp_path: Path) -> None:
    # The outbox's contract (Store.post, Store.letters): a letter posted by an owner is
    # that owner's until now + lease; one posted by nobody is anyone's; a claim takes a
    # chat's letters in the order written, with their chat, body, file and the moment
    # they were written, and keeps the chat from others until the lease ends.
    store = store_at(tmp_path / "t.db")
    mine = store.post([Letter("a", '{"n":1}', b"\x89PNG")], owner="p", now=10.0, lease=5.0)
    anyones = store.post(
        [Letter("b", '{"n":2}'), Letter("b", '{"n":3}')], owner=None, now=11.0, lease=5.0
    )
    assert len(mine + anyones) == 3 and mine[0] < anyones[0] < anyones[1]
    assert store.letters("q", now=14.0, lease=10.0, chat="a") == []  # p's until 15
    assert store.letters("q", now=12.0, lease=10.0, chat="b") == [
        Letter("b", '{"n":2}', None, anyones[0], 11.0),
        Letter("b", '{"n":3}', None, anyones[1], 11.0),
    ]
    assert store.letters("p", now=20.0, lease=10.0, chat="b") == []  # q's until 22
    # p's claim ran out at 15: q takes a's letter, and renews its own claim on b's.
    assert [(x.chat, x.attachment, x.id, x.since) for x in store.letters("q", 15.5, 1.0)] == [
        ("a", b"\x89PNG", mine[0], 10.0),
        ("b", None, anyones[0], 11.0),
        ("b", None, anyones[1], 11.0),
    ]
    assert store.letters("p", now=16.0, lease=10.0) == []  # q's, until 16.5
    store.unclaim("p", [anyones[1]])  # not p's: nothing changes
    assert store.letters("p", now=16.0, lease=10.0, chat="b") == []
    store.unclaim("q", [anyones[1]])  # q gives b's letters back: anyone may take them now
    store.unclaim("q", [anyones[0]])
    assert [x.id for x in store.letters("p", now=16.0, lease=10.0, chat="b")] == anyones
    store.posted([*mine, anyones[0]])
    assert store.letters("p", now=26.5, lease=1.0) == [
        Letter("b", '{"n":3}', None, anyones[1], 11.0)
    ]


@both
def test_tournaments_are_found_by_their_chats_and_their_first_due_work(tmp_path: Path) -> None:
    from bot.store.base import SavedTournament

    store = store_at(tmp_path / "t.db")
    assert store.next_tournament_due() is None
    store.save_tournament(SavedTournament("t1", 0, "open", {}, None, None, ("home", "team")), None)
    assert store.next_tournament_due() is None  # nothing due anywhere yet
    store.save_tournament(SavedTournament("t2", 0, "running", {}, 40.5, None, ("home",)), None)
    store.save_tournament(SavedTournament("t3", 0, "running", {}, 12.5, None, ("other",)), None)
    assert store.next_tournament_due() == 12.5
    assert store.due_tournaments(12.0) == []
    assert store.due_tournaments(50.0) == ["t3", "t2"]  # soonest first
    assert sorted(store.tournaments_of("home")) == ["t1", "t2"]
    assert store.tournaments_of("team") == ["t1"]
    assert store.tournaments_of("nowhere") == []


@both
def test_reviews_are_those_wanted_of_the_chat_asked(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.archive("a", 1.0, {"n": 1})
    store.archive("b", 2.0, {"n": 2})
    store.archive("a", 3.0, {"n": 3})
    store.want_review("a", 3.0)
    store.want_review("b", 2.0)
    assert store.save_review("b", 2.0, {"best": "RG A1 A2"})
    assert [(g["n"], r) for g, r in store.reviews("a")] == [(3, None)]
    assert [(g["n"], r) for g, r in store.reviews("b")] == [(2, {"best": "RG A1 A2"})]
    assert [g["n"] for g, _ in store.reviews()] == [2, 3]


def test_a_damaged_game_or_review_is_skipped_and_the_rows_after_it_kept() -> None:
    from bot.store.base import reviewed_games

    game = '{"n":1}'
    rows = [
        ("c", 1.0, "not json", None),  # a damaged game
        ("c", 2.0, game, '{"ok":true}'),
        ("c", 3.0, game, "not json"),  # a damaged review
        ("c", 4.0, game, "[1]"),  # a review that is no object
        ("c", 5.0, game, None),  # not done yet
    ]
    assert reviewed_games(rows) == [
        ({"n": 1, "chat": "c", "finished_at": 2.0}, {"ok": True}),
        ({"n": 1, "chat": "c", "finished_at": 5.0}, None),
    ]


@both
def test_linked_accounts_are_each_accounts_person_in_order(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    assert store.linked("tg:7") == []
    assert store.link("tg:7", "dc:5")
    assert store.linked("tg:7") == ["dc:5", "tg:7"]  # by account, the person's among them
    assert store.linked("dc:5") == ["dc:5", "tg:7"]
    assert store.links() == {"dc:5": "tg:7", "tg:7": "tg:7"}  # each account with its person
    # An account linked already, or linked to itself, is not linked again: nothing changes.
    assert not store.link("tg:7", "dc:5") and not store.link("tg:9", "dc:5")
    assert not store.link("tg:9", "tg:9")
    assert store.links() == {"dc:5": "tg:7", "tg:7": "tg:7"}


@both
def test_a_wanted_review_is_claimed_by_one_process_until_its_lease_ends(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.archive("a", 1.0, {"n": 1})
    store.archive("a", 2.0, {"n": 2})
    assert store.claim_review("a", "p", now=10.0, lease=5.0) is None  # none wanted
    store.want_review("a", 2.0)
    store.want_review("a", 1.0)
    assert store.claim_review("a", "p", now=10.0, lease=5.0) == {
        "n": 1,
        "chat": "a",
        "finished_at": 1.0,
    }
    assert store.claim_review("a", "q", now=11.0, lease=5.0) == {
        "n": 2,
        "chat": "a",
        "finished_at": 2.0,
    }
    assert store.claim_review("a", "q", now=14.5, lease=5.0) is None  # p's until 15, q's until 16
    assert store.claim_review("a", "q", now=15.5, lease=5.0) == {
        "n": 1,
        "chat": "a",
        "finished_at": 1.0,
    }
    assert store.save_review("a", 1.0, {"done": True})
    assert store.claim_review("a", "p", now=30.0, lease=5.0) == {
        "n": 2,
        "chat": "a",
        "finished_at": 2.0,
    }
    assert store.save_review("a", 2.0, {"done": True})
    store.want_review("a", 9.0)  # of a game never archived: nothing to review
    assert store.claim_review("a", "p", now=40.0, lease=5.0) is None


@both
def test_a_review_wanted_of_a_game_never_archived_holds_back_no_other(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.want_review("a", 1.0)  # no such game in the archive, and the oldest wanted
    store.archive("a", 2.0, {"n": 2})
    store.want_review("a", 2.0)
    assert store.claim_review("a", "p", now=10.0, lease=5.0) == {
        "n": 2,
        "chat": "a",
        "finished_at": 2.0,
    }
    assert store.save_review("a", 2.0, {"done": True})
    assert store.claim_review("a", "p", now=20.0, lease=5.0) is None
