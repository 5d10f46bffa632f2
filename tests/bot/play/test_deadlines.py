"""Play by message: reminders at half time, a computer move when time runs out, deadlines
kept in the store across a restart."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

HOUR = 3600.0


def timed_room(db: Path, clock: Clock, timeout: str = "1h") -> Room:
    room = Room(make_service(db, clock=clock))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", f"/option timeout {timeout}")
    room.ok("Ada", "/start")
    return room


def test_reminder_at_half_time(tmp_path: Path) -> None:
    clock = Clock()
    room = timed_room(tmp_path / "t.db", clock)
    assert room.table().due_at == START + HOUR / 2
    assert room.due(START + HOUR / 2 - 1) == []
    (reminder,) = room.due(START + HOUR / 2)
    assert reminder.kind == "reminder" and reminder.user is None
    assert reminder.mentions == ("id-ada",)
    assert reminder.text == (
        "Ada, it is your turn at Test room: 30m left, then a computer player moves for you."
    )
    # Once only; the next thing due is the end of the hour.
    assert room.due(START + HOUR / 2) == []
    assert room.due(START + HOUR - 1) == []
    assert room.table().due_at == START + HOUR


def test_each_turn_has_its_own_deadline(tmp_path: Path) -> None:
    clock = Clock()
    room = timed_room(tmp_path / "t.db", clock)
    clock.now = START + 2000  # after Ada's reminder was due, but before her time ran out
    room.play_turn(random.Random(1))
    # Bob's hour starts when his turn does.
    assert room.table().turn_started == START + 2000
    assert room.due(START + 2000 + HOUR / 2 - 1) == []
    (reminder,) = room.due(START + 2000 + HOUR / 2)
    assert reminder.mentions == ("id-bob",)
    assert reminder.text.startswith("Bob, it is your turn at Test room: 30m left")


def test_no_timeout_no_deadline(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    assert room.table().due_at is None
    assert room.due(START + 365 * 86400) == []


def test_deadlines_survive_a_restart(tmp_path: Path) -> None:
    clock = Clock()
    room = timed_room(tmp_path / "t.db", clock, timeout="2h")
    room.service.store.close()
    restarted = Room(make_service(tmp_path / "t.db", clock=clock, seed=77))
    assert restarted.due(START + HOUR - 1) == []
    (reminder,) = restarted.due(START + HOUR)
    assert reminder.text == (
        "Ada, it is your turn at Test room: 1h left, then a computer player moves for you."
    )


def test_time_runs_out_and_a_computer_player_moves(tmp_path: Path) -> None:
    clock = Clock()
    room = timed_room(tmp_path / "t.db", clock)
    out = room.due(START + HOUR)  # nobody asked for the reminder: the hour is simply over
    chat = [o for o in out if o.user is None]
    assert [o.kind for o in chat] == ["turn"]
    lines = chat[0].text.splitlines()
    assert lines[0] == "Time is up for Ada: a computer player makes this turn for them."
    assert lines[1].startswith("Ada placed ")
    assert "Bob, your turn." in lines
    # The seat is still Ada's; Bob's hour starts now.
    t = room.table()
    assert t.seats[0].user == "id-ada" and not t.seats[0].left
    assert t.turn_started == START + HOUR
    assert t.due_at == START + HOUR + HOUR / 2
    assert [o.user for o in out if o.user] == ["id-bob"]


def test_a_computer_players_seed_is_worked_out_from_the_tables_seed_and_version() -> None:
    # A computer move is not stored until it is played: a bot restarted meanwhile, or
    # continued by its next version, thinks again and must come to the same move. So the
    # seed of each position is a fixed formula of stored values (bot/play/clock.py):
    # (seed * 1,000,003 + version * 7,919) mod 2**63, worked out here by hand.
    from bot.play.clock import _ai_seed

    assert _ai_seed(5, 3) == 5_000_015 + 23_757 == 5_023_772
    assert _ai_seed(0, 0) == 0
    # 2**62 * 1,000,003 = 2**62 * (2 * 500,001 + 1) = 2**62 mod 2**63.
    big = _ai_seed(2**62, 1)
    assert big == 2**62 + 7_919 and type(big) is int
    # A table's seed is below 2**62 (bot/play/lobby.py): the largest wraps round too,
    # (2**62 - 1) * 1,000,003 = 2**62 * 1,000,003 - 1,000,003 = 2**62 - 1,000,003 mod 2**63.
    assert _ai_seed(2**62 - 1, 10) == 2**62 - 1_000_003 + 79_190


def test_a_computer_players_own_turn_is_no_timeout(tmp_path: Path) -> None:
    """A computer seat plays its turn when it comes (the clock's due work): its turn
    message tells the move, never "Time is up", which is for a person out of time."""
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot random")
    room.ok("Ada", "/start")
    for _ in range(2):
        room.play_turn(random.Random(1))  # Ada's turn; then the computer's comes
        room.due(clock.now)
    turns = [o for o in room.log if o.kind == "turn"]
    # The start's turn message, Ada's and at least one of the computer's.
    assert len(turns) >= 3 and not any("Time is up" in o.text for o in turns)
