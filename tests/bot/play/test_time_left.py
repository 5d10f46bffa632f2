"""Time left as of now (issue 44, item 1): ``/board``, ``/games`` and the web board's look
show each person's bank less their running turn's time, never below zero; a vacation pauses
it, and a player out of time while the others vote has none.

Every time below is worked out by hand from the rule: a turn's time comes off the bank,
then the increment goes on, never above the bank's start.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

DAY = 86400.0
HOUR = 3600.0


def clocked_room(db: Path, clock: Clock, option: str) -> Room:
    room = Room(make_service(db, clock=clock))
    for name in ("Ada", "Bob"):
        room.ok(name, "/join")
    room.ok("Ada", f"/option clock {option}")
    room.ok("Ada", "/start")
    assert room.to_move() == "Ada"
    return room


def time_left_line(room: Room, name: str) -> str:
    (board,) = [o for o in room.ok(name, "/board") if o.kind == "turn"]
    (line,) = [x for x in board.text.splitlines() if x.startswith("Time left: ")]
    return line


def games_line(room: Room, name: str) -> str:
    (answer,) = room.ok(name, "/games")
    return answer.text.splitlines()[1]


def test_the_board_and_games_tell_a_live_bank_as_of_now(tmp_path: Path) -> None:
    # The reproduction: 40 s into Ada's turn on 1m+10s, 20 s are left.
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, "1m+10s")
    clock.now = START + 40
    assert time_left_line(room, "Ada") == "Time left: Ada 20s · Bob 1m"
    assert games_line(room, "Ada") == "Test room: Genial, your turn, 20s left"


def test_a_day_into_a_three_day_turn_two_days_are_left(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, "3d+1d")
    # Ada plays after an hour: 3d - 1h + 1d, never above 3d: 3d.
    clock.now = START + HOUR
    room.play_turn(random.Random(1))
    assert room.to_move() == "Bob"
    # A day and a half hour into Bob's turn: 3d - 1d 30m = 1d 23h 30m, told in two units.
    clock.now = START + HOUR + DAY + 1800
    assert time_left_line(room, "Ada") == "Time left: Ada 3d · Bob 1d 23h"
    assert games_line(room, "Bob") == "Test room: Genial, your turn, 1d 23h left"
    # The web board's look says the same, and counts down from the turn's start.
    look = room.service.page_look(room.chat.id)
    assert look is not None
    assert [s.clock for s in look.sides] == ["3d", "1d 23h"]
    assert look.started == START + HOUR and look.deadline == START + HOUR + 3 * DAY


def test_a_player_in_a_vote_is_shown_out_of_time(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, "1h+10m")
    clock.now = START + HOUR
    (told,) = room.due(clock.now)
    assert told.text.startswith("Ada is out of time.")
    clock.now = START + HOUR + 60
    assert time_left_line(room, "Bob") == "Time left: Ada 0s · Bob 1h"
    assert games_line(room, "Ada") == "Test room: Genial, your turn, 0s left"
    look = room.service.page_look(room.chat.id)
    assert look is not None and look.sides[0].clock == "0s"
    assert look.deadline is not None and look.deadline <= clock.now and look.started is None


def test_a_vacation_pauses_the_time_left(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, "10m+5s")
    # One second into her turn Ada goes away for two days: 9m 59s wait for her.
    clock.now = START + 1
    dm = Room(room.service, "dm-ada", "")
    dm.people = room.people
    dm.ok("Ada", "/away 2d")
    clock.now = START + DAY
    assert games_line(room, "Ada") == "Test room: Genial, your turn, 9m 59s left"
    assert time_left_line(room, "Bob") == "Time left: Ada 9m 59s · Bob 10m"
    look = room.service.page_look(room.chat.id)
    assert look is not None and look.sides[0].clock == "9m 59s"
    back = START + 1 + 2 * DAY
    assert look.started == back and look.deadline == back + 599
    # Back by herself once the vacation ends: a minute later, 8m 59s.
    clock.now = back + 60
    assert games_line(room, "Ada") == "Test room: Genial, your turn, 8m 59s left"


def test_a_turn_limit_without_a_bank_is_paused_too(tmp_path: Path) -> None:
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    for name in ("Ada", "Bob"):
        room.ok(name, "/join")
    room.ok("Ada", "/option timeout 24h")
    room.ok("Ada", "/start")
    clock.now = START + HOUR
    assert games_line(room, "Ada") == "Test room: Genial, your turn, 23h left"
    dm = Room(room.service, "dm-ada", "")
    dm.people = room.people
    dm.ok("Ada", "/away 3d")
    # Her turn's limit starts afresh once she is back (bot.play.absence): a day, not the
    # vacation's rest with it.
    clock.now = START + 2 * DAY
    assert games_line(room, "Ada") == "Test room: Genial, your turn, 1d left"
