"""Two paths of the Telegram adapter the mutation run of issue 22 found untested.

A 429 that gets past the rate limiter (bot.telegram.limiter): the limiter here sends nothing
again (``flood_retries=0``), so the flood wait reaches the adapter itself, which must keep
the message (Telegram surely did not take it) until the clock's next look, not count it as
"maybe delivered" and drop it. And a player who blocked the bot: their private chat
answering "bot was blocked" closes nothing, whatever was sent there.

Only the bot's behaviour towards the fake Bot API is read (what the group was told, the
table in the store), so these tests hold however the adapter is split into modules.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core import games
from bot.core.table import PLAYING
from bot.words.texts import squared
from tests.bot.telegram import test_adapter as base
from tests.bot.telegram.fake_api import FLOOD, FakeBotAPI, announced, bot_texts
from tests.bot.telegram.test_adapter import ADA, CAROL, GROUP
from tests.bot.telegram.test_faults import bot, expected, play_out, seat_two

# The fake server and the bots' clean-up, as in the other Telegram tests.
api = base.api
stop_bots = base.stop_bots

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def test_a_flood_wait_past_the_rate_limiter_keeps_the_board_until_telegram_takes_it(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path, pictures=False, flood_retries=0)
    seat_two(room)  # Ada and Carol; Ada is to move
    racks = len(api.sent(CAROL))
    # Every message the bot sends is answered 429 for now (the clock's own looks too).
    calls = len(api.calls)
    api.chaos(1.0, seed=1, faults=(FLOOD,), methods=frozenset({"sendMessage"}))
    game = room.game()
    move = games.format_move(game, game.legal_moves()[0])
    room.say(ADA, f"/play {move}")
    assert len(room.game().moves) == 1  # the move was accepted and stored
    refused = [c for c in api.calls[calls:] if c.method == "sendMessage"]
    assert refused and {c.status for c in refused} == {429}
    assert announced(bot_texts(api, GROUP)) == []  # not told: Telegram did not take it
    api.chaos(0, seed=0)  # the flood wait is over
    room.runner.tick()  # the clock's next look sends what waited, in order
    texts = bot_texts(api, GROUP)
    assert announced(texts) == ["placed"] == expected(room)
    assert any(f"placed {squared(move)}" in t for t in texts)
    # Carol's rack waited behind the board and came after it, once.
    assert len(api.sent(CAROL)) == racks + 1
    assert api.sent(CAROL)[-1].text.startswith("Your tiles at")
    room.runner.tick()  # nothing waits any more: nothing is sent twice
    assert announced(bot_texts(api, GROUP)) == ["placed"]
    assert len(api.sent(CAROL)) == racks + 1


def test_a_blocked_private_chat_leaves_the_groups_table_alone(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path, pictures=False)
    seat_two(room)
    game = room.game()
    room.say(ADA, f"/play {games.format_move(game, game.legal_moves()[0])}")
    assert room.mover() == CAROL
    api.block(ADA)
    # Ada, out of turn, sends a move from her private chat: the service answers "not your
    # turn" there, and Telegram refuses it, "bot was blocked by the user" (a chat gone for
    # the bot, but hers, not the group's).
    game = room.game()
    calls = len(api.calls)
    room.say(ADA, f"/play {games.format_move(game, game.legal_moves()[0])}", chat=ADA)
    answers = [c for c in api.calls[calls:] if c.chat == ADA]
    assert [(c.method, c.status) for c in answers] == [("sendMessage", 403)]
    assert answers[0].text == "It is not your turn: Carol is to move."
    table = room.table()
    assert table.status == PLAYING
    assert [s.user for s in table.seats] == [str(ADA), str(CAROL)]
    # The group's game goes on, every move told there.
    play_out(room, random.Random(3), limit=3)
    assert len(room.game().moves) == 4
    assert announced(bot_texts(api, GROUP)) == expected(room)
