"""The SQLite store: tables round-trip, stale saves are refused, deadlines are found."""

from __future__ import annotations

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
