"""Issue 27, item 3: one request per move under Telegram's 20 messages a minute in a group.

A fast game (a move every 4 s, 15 moves in a minute) through the real bot and the fake Bot
API: the requests into the group, counted in every minute of the service's clock (which
the test moves by hand), stay within Telegram's 20, so the rate limiter (bot.telegram.limiter,
which paces each group to its rolling minute: tests/bot/telegram/test_chat_pacing.py) would
hold none of them back and every board goes out with its move. The buttons of older
turn messages come off once the pace slows down.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core import games
from tests.bot.helpers import Clock
from tests.bot.telegram import test_adapter as base
from tests.bot.telegram.fake_api import Call, FakeBotAPI, buttons
from tests.bot.telegram.test_adapter import ADA, CAROL, GROUP, Room, _typed_move, start_bot

# The fake server and the bots' clean-up, as in the other Telegram tests.
api = base.api
stop_bots = base.stop_bots

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
#: Telegram's limit: requests into one group per minute.
LIMIT, MINUTE = 20, 60.0


def busiest_minute(stamped: list[tuple[float, Call]]) -> int:
    """The most requests into the group within any 60 s (each minute ending at a request)."""
    times = [t for t, _ in stamped]
    return max((sum(1 for s in times if end - MINUTE < s <= end) for end in times), default=0)


def test_fifteen_moves_in_a_minute_send_every_board_at_once(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    clock = Clock()
    room = Room(api, start_bot(api, tmp_path / "t.db", clock=clock, seed=4))
    stamped: list[tuple[float, Call]] = []

    def pressable() -> list[dict[str, object]]:
        """The group's messages that still show buttons."""
        with api._cond:
            return [m for (c, _), m in api.messages.items() if c == GROUP and buttons(m)]

    def act(user: int, text: str) -> list[Call]:
        """``user`` types ``text`` in the group; every request into the group it caused
        (posts and edits alike: Telegram counts both), stamped with the clock's time."""
        seen = len(api.calls)
        room.say(user, text)
        with api._cond:
            calls = [c for c in api.calls[seen:] if c.chat == GROUP]
        stamped.extend((clock.now, c) for c in calls)
        return calls

    act(ADA, "/join")
    act(CAROL, "/join")
    act(CAROL, "/notify on")
    act(ADA, "/start")
    rng = random.Random(4)
    boards = 0
    pinged = 0
    for _ in range(15):
        clock.advance(4.0)
        game = room.game()
        private = len(api.sent(CAROL))
        mover = room.mover()
        # Sorted: the engine's order of legal moves may differ from run to run.
        moves = sorted(game.legal_moves(), key=lambda m: games.format_move(game, m))
        calls = act(mover, f"/{_typed_move(game, rng.choice(moves))}")
        # The move's board went out while the move was handled (nothing held it back).
        photos = [c for c in calls if c.method == "sendPhoto"]
        assert len(photos) == 1, [c.method for c in calls]
        boards += 1
        if mover == ADA and room.mover() == CAROL:
            # Carol's turn ping comes with her rack: one private message, one image.
            (ping,) = api.sent(CAROL)[private:]
            assert ping.method == "sendPhoto" and len(ping.files) == 1
            assert ping.text.startswith("Your turn at") and "Your tiles at" in ping.text
            pinged += 1
    assert pinged >= 3  # the turn passed from Ada to Carol in 15 moves
    assert boards == 15
    # Within Telegram's limit in every minute: the rate limiter would never have to wait.
    assert busiest_minute(stamped) <= LIMIT, [(t, c.method) for t, c in stamped]
    # Fewer than two requests per move: most button removals waited.
    moves = [(t, c) for t, c in stamped if t > stamped[0][0]]
    assert len(moves) < 2 * 15
    # The old buttons waited (a press on one is answered as stale). Worked out by hand:
    # the start (lobby, its edit, the first board, the lobby's buttons off: 4 requests)
    # and the first move's board and edit leave 6 in the minute, so from the second move
    # on no edit fits (fewer than 7 before one): the boards of moves 1 to 14 kept theirs.
    assert len(pressable()) == 1 + 14
    # The players pause: the clock's looks take the waiting buttons off, as many in each
    # minute as leave room for boards, until only the newest message can be pressed.
    ticks = 0
    while len(pressable()) > 1:
        assert ticks < 3, "the old buttons stayed"
        clock.advance(MINUTE)
        seen = len(api.calls)
        room.runner.tick()
        with api._cond:
            edits = [c for c in api.calls[seen:] if c.chat == GROUP]
        assert {c.method for c in edits} == {"editMessageReplyMarkup"}
        assert len(edits) <= LIMIT - 13  # at most 7 in a quiet minute
        ticks += 1
    assert ticks == 2  # 14 old messages: 7 in each quiet minute
    # The game goes on at a person's pace: the board first, nothing left to take off.
    clock.advance(MINUTE)
    game = room.game()
    calls = act(room.mover(), f"/{_typed_move(game, game.legal_moves()[0])}")
    assert [c.method for c in calls] == ["sendPhoto", "editMessageReplyMarkup"]
    assert [m["message_id"] for m in pressable()] == [api.last_message(GROUP)["message_id"]]
