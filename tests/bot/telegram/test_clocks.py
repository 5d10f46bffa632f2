"""Time banks on Telegram, end to end through the fake Bot API: a player out of time and
the others' vote by button, and a takeback accepted by button (issue 26)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core import games
from tests.bot.helpers import Clock
from tests.bot.telegram.fake_api import FakeBotAPI, buttons
from tests.bot.telegram.test_adapter import (  # the fake server and the bot, as there
    ADA,
    CAROL,
    GROUP,
    NAMES,
    Room,
    api,
    start_bot,
    stop_bots,
)

__all__ = ["api", "stop_bots"]  # fixtures, used by name
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def seated(room: Room, *extra: str) -> None:
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    for command in extra:
        room.say(ADA, command)
    room.say(ADA, "/start")


def test_a_player_out_of_time_and_the_vote_by_button(api: FakeBotAPI, tmp_path: Path) -> None:
    clock = Clock()
    runner = start_bot(api, tmp_path / "t.db", clock=clock, pictures=False)
    room = Room(api, runner)
    seated(room, "/option clock 1h+10m")
    mover = room.mover()
    other = CAROL if mover == ADA else ADA
    turn = api.last_message(GROUP, "My tiles")
    assert f"Time left: {NAMES[ADA]} 1h · {NAMES[CAROL]} 1h" in turn["text"]
    clock.advance(3600)
    runner.tick()
    told = api.last_message(GROUP, "Skip this move")
    assert told["text"].startswith(f"{NAMES[mover]} is out of time.")
    expected = ["Skip this move", "Computer takes the seat", "Wait"]
    assert [b["text"] for b in buttons(told)] == expected
    assert room.game().moves == []
    room.press(other, told, "Skip this move")
    runner.tick()
    said = [m.text for m in api.sent(GROUP)]
    decided = f"The table decided: a computer player makes this move for {NAMES[mover]}."
    assert any(decided in t for t in said)
    assert any(t.startswith(f"Time is up for {NAMES[mover]}") for t in said)
    assert len(room.game().moves) >= 1 and room.mover() == other


def test_a_takeback_accepted_by_button(api: FakeBotAPI, tmp_path: Path) -> None:
    runner = start_bot(api, tmp_path / "t.db", clock=Clock(), pictures=False)
    room = Room(api, runner)
    seated(room)
    mover = room.mover()
    other = CAROL if mover == ADA else ADA
    game = room.game()
    room.say(mover, f"/play {games.format_move(game, random.Random(1).choice(game.legal_moves()))}")
    assert len(room.game().moves) == 1
    room.say(mover, "/undo")
    asked = api.last_message(GROUP, "Accept takeback")
    assert asked["text"].startswith(f"{NAMES[mover]} asks to take back their last move (1 move).")
    room.press(other, asked, "Accept takeback")
    assert room.game().moves == [] and room.mover() == mover
    assert any(f"{NAMES[mover]}'s move is taken back (1 move)." in m.text for m in api.sent(GROUP))
