"""What a table hears around its clocks and votes (issue 44, items 2 to 8): the result after
``/expel``, the options shown back, the reminder, a refused takeback, bad values answered
with what was wrong, and a grace live tables can vote in.

Every expected text is the rule or the catalogue's sentence worked out by hand.
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


def two_with(db: Path, clock: Clock, *options: str, pictures: bool = False) -> Room:
    room = Room(make_service(db, clock=clock, pictures=pictures))
    for name in ("Ada", "Bob"):
        room.ok(name, "/join")
    for option in options:
        room.ok("Ada", f"/option {option}")
    room.ok("Ada", "/start")
    assert room.to_move() == "Ada"
    return room


def test_after_expel_the_result_names_the_winner_the_ladder_rates(tmp_path: Path) -> None:
    clock = Clock()
    room = two_with(tmp_path / "t.db", clock, "clock 1h+10m")
    clock.now = START + HOUR
    room.due(clock.now)
    room.ok("Bob", "/expel")
    room.play_out(random.Random(4))
    (result,) = [o for o in room.log if o.kind == "result"]
    lines = result.text.splitlines()
    # Whatever the scores, Ada's seat (finished by a computer) is rated after Bob, who
    # stayed: the ladder credits Bob with the win, and so does the result.
    places = [line.split(":")[0] for line in lines if line[:1].isdigit()]
    assert places == ["1. Bob", "2. Ada (computer)"]
    assert lines[-2] == "Bob wins!"
    # The computer scored best in Ada's seat here: the case the result got wrong.
    assert room.game().ranking() == [[0], [1]]
    (stats,) = room.ok("Bob", "/stats")
    assert "games 1, wins 1 (100%)" in stats.text
    look = room.service.page_look(room.chat.id)
    assert look is not None and look.result[-1] == "Bob wins!"
