"""The SQLite store: tables round-trip, stale saves are refused, deadlines are found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.store import SQLiteStore, StaleTable, StoreError
from bot.table import PLAYING, Options, Seat, Table


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


def test_round_trip(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.db")
    table = sample()
    store.save(table, None)
    assert store.load("c") == table
    assert store.load("other") is None


def test_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "t.db"
    store = SQLiteStore(path)
    store.save(sample(), None)
    store.close()
    assert SQLiteStore(path).load("c") == sample()


def test_save_needs_the_loaded_version(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.db")
    store.save(sample(version=0), None)
    store.save(sample(version=1), 0)
    with pytest.raises(StaleTable):
        store.save(sample(version=2), 0)  # loaded at 0, but the table is at 1 now
    with pytest.raises(StaleTable):
        store.save(sample(version=1), None)  # a second new table for the same chat
    assert store.load("c") == sample(version=1)


def test_due_finds_tables_in_deadline_order(tmp_path: Path) -> None:
    store = SQLiteStore(":memory:")
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


def test_next_due_is_the_earliest_deadline(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.db")
    assert store.next_due() is None
    store.save(sample("never"), None)
    assert store.next_due() is None
    store.save(sample("late", due_at=30.0), None)
    store.save(sample("early", due_at=10.5), None)
    assert store.next_due() == 10.5


def test_notes_are_kept_per_chat_and_key_outside_the_version(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    store.save(sample("c"), None)
    assert store.note("c", "lobby") is None
    store.set_note("c", "lobby", "101")
    store.set_note("c", "lobby", "202")  # a second note under a key replaces the first
    store.set_note("c", "thread", "7")
    store.set_note("d", "lobby", "303")  # a chat without a table may have notes too
    assert store.load("c") == sample("c")  # the table (and its version) did not change
    store.close()
    store = SQLiteStore(path)
    assert (store.note("c", "lobby"), store.note("c", "thread")) == ("202", "7")
    assert store.note("d", "lobby") == "303"
    store.set_note("c", "lobby", None)
    assert store.note("c", "lobby") is None
    assert store.note("c", "thread") == "7"


def test_move_carries_the_table_and_its_notes_to_the_new_chat(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "t.db")
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
    store.archive("c", 5.0, {"seats": []})  # and the finished games' table
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 3

    newer = tmp_path / "v9.db"
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 9")
    db.close()
    with pytest.raises(StoreError, match=r"newer genial-bot \(schema 9\)"):
        SQLiteStore(newer)


def test_finished_games_are_kept_in_order_and_move_with_their_chat(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
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
