"""What adapters keep through the service: notes across restarts, a table that moves to a
new chat id, and when the clock next has work."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.service import Service
from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")


def test_notes_survive_a_restart_and_leave_the_table_alone(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    room = Room(make_service(db))
    room.ok("Ada", "/join")
    version = room.table().version
    room.service.set_note(room.chat.id, "lobby_message", "4242")
    assert room.table().version == version
    # A button from the lobby still works: the note did not make it stale.
    room.ok("Bob", f"/join #{version}")
    restarted = Room(make_service(db))
    assert restarted.service.note(room.chat.id, "lobby_message") == "4242"
    restarted.service.set_note(room.chat.id, "lobby_message", None)
    assert restarted.service.note(room.chat.id, "lobby_message") is None


def test_a_game_moved_to_a_new_chat_goes_on_there(tmp_path: Path) -> None:
    service: Service = make_service(tmp_path / "t.db")
    old = Room(service, "group-1")
    old.ok("Ada", "/join")
    old.ok("Bob", "/join")
    old.ok("Ada", "/start")
    rng = random.Random(3)
    old.play_turn(rng)
    moves_before = len(old.game().moves)
    assert service.move_table("group-1", "supergroup-1") is True
    assert service.table("group-1") is None
    new = Room(service, "supergroup-1")
    new.people = old.people
    assert len(new.game().moves) == moves_before
    new.play_turn(rng)
    assert len(new.game().moves) == moves_before + 1
    assert service.move_table("group-1", "supergroup-1") is False


def test_next_due_names_the_computer_move_or_the_deadline(tmp_path: Path) -> None:
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    assert room.service.next_due() is None
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option timeout 1h")
    room.ok("Ada", "/start")
    # Play by message: the reminder is due at half time, 30 minutes after the start.
    assert room.service.next_due() == START + 30 * 60
