"""Three friends play a whole game in one inline message (issue 49), as they would: Ada
sends "Genial for 3-4" into their chat (the bot no member of it), Bob and Carol join by
the button, a passer-by's Start is refused, Ada starts; placements are typed in each
player's private chat, swaps decided by the message's buttons; Carol gives up midway by
Leave; Ada and Bob play to the end, the result shows in the same message with Play
again, which sets the table again for those who stayed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.community.ratings import rebuild_archive
from bot.core import games
from bot.core.table import LOBBY, PLAYING
from tests.bot.telegram.fake_api import FakeBotAPI
from tests.bot.telegram.inline_world import (
    ADA,
    BOB,
    CAROL,
    DAN,
    MEDIA,
    RACK_TEXT,
    Chat,
    labels,
    make_api,
    start_bot,
    stop_bots,
)

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = make_api()
    yield api
    stop_bots()
    api.close()


def test_three_friends_play_to_the_end_one_leaving_midway(api: FakeBotAPI, tmp_path: Path) -> None:
    chat = Chat(api, start_bot(api, tmp_path / "t.db", level="random"))
    chat.offer(ADA, "party")
    chat.press(BOB, "Join")
    chat.press(CAROL, "Join")
    assert "1. Ada\n2. Bob\n3. Carol\n" in chat.shown()
    assert chat.press(DAN, "Start")["text"] == "Only the host (Ada) or a chat admin may do that."
    chat.press(ADA, "Start")
    assert "The game begins: Genial. Seats: 1. Ada, 2. Bob, 3. Carol." in chat.shown()

    rng = random.Random(4)
    placements = swaps = 0
    while chat.table().status == PLAYING:
        game = chat.game()
        mover, before = chat.mover(), len(game.moves)
        assert not RACK_TEXT.search(chat.shown())
        assert {"My tiles", "Leave"} <= set(labels(chat.message()))
        if game.awaiting == "swap":
            chat.press(mover, rng.choice(["Swap", "Keep"]))
            swaps += 1
        else:
            move = rng.choice(game.legal_moves())
            chat.say(mover, f"/play {games.format_move(game, move)}")
            placements += 1
        assert len(chat.game().moves) > before
        if placements == 6 and chat.table().seat_of(str(CAROL)) is not None:
            chat.press(CAROL, "Leave")
            assert chat.shown().startswith(
                "Carol leaves the table.\nA computer player takes over the seat of Carol."
            )
            assert chat.mover() != CAROL  # her turn, if it was, went to the computer
    assert placements > 6

    # The end, in the same message: Carol, who left, is placed after the two who stayed
    # (RULES.md and the ladder: a leaver is rated last), and the winner of those two is
    # the one whose lowest colour is higher (ties: the next lowest, and so on).
    game = chat.game()
    message = chat.message()
    lines = message["caption"].split("\n")
    assert lines[0] == "Game over: Genial." and message["photo"] in api.uploaded
    scores = {seat: sorted(game.score(seat).values()) for seat in (0, 1)}
    best = max(scores, key=lambda seat: scores[seat])
    if scores[0] != scores[1]:
        assert f"{('Ada', 'Bob')[best]} wins!" in lines
    assert [line for line in lines if line.startswith("3. ")] == [
        next(line for line in lines if line.startswith("3. Carol (computer): "))
    ]
    # Typed commands don't reach the bot there: the way on is the button.
    assert lines[-1] == (
        "Play again sets the table again with the same seats; Join and Leave then change them."
    )
    assert labels(message) == ["Play again"]
    (row,) = chat.runner.service.store.archived()
    ladder = rebuild_archive([row])
    assert all(
        ladder.standing(str(user), "genial", "inline") is not None for user in (ADA, BOB, CAROL)
    )

    chat.press(BOB, "Play again")
    assert chat.table().status == LOBBY
    assert [s.user for s in chat.table().seats] == [str(ADA), str(BOB)]
    assert {"Join", "Start", "Leave"} <= set(labels(chat.message()))
    # Every board went up to the media chat; no rack ever did.
    assert len(api.sent(MEDIA, "sendPhoto")) >= placements
    assert not any(RACK_TEXT.search(c.text) for c in api.sent(MEDIA))
