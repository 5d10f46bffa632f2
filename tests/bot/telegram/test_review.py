"""/review through the Telegram fake: the chart with the summary, then the boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.review_fixtures import store_puzzle_game, store_reviewed_game
from tests.bot.telegram.fake_api import FakeBotAPI
from tests.bot.telegram.test_adapter import ADA, BOB, GROUP, Room, api, start_bot, stop_bots

__all__ = ["api", "stop_bots"]  # the fixtures, used by name
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

#: The coloured squares the turn messages show for the colour letters (issue 44, item 32).
SQUARES = {"R": "🟥", "G": "🟩", "B": "🟦", "O": "🟧", "Y": "🟨", "P": "🟪"}


def told(move: str) -> str:
    """A placement as the chat is told it: ``RG A2 B3`` -> ``🟥🟩 A2 B3``."""
    tile, _, cells = move.partition(" ")
    return f"{''.join(SQUARES[c] for c in tile)} {cells}"


def test_review_sends_the_chart_and_the_costliest_boards(
    api: FakeBotAPI, tmp_path: Path, shared: Path
) -> None:
    runner = start_bot(api, tmp_path / "t.db")
    review, _ = store_reviewed_game(runner.service.store, str(GROUP), (str(ADA), str(BOB)), shared)
    Room(api, runner).say(ADA, "/review")
    photos = api.sent(GROUP, "sendPhoto")
    ada = review.seats[0]
    assert len(photos) == 1 + len(ada.costliest)
    assert photos[0].text.startswith("The expert's review (")
    assert f"Ada: accuracy {ada.accuracy}%" in photos[0].text
    for photo, n in zip(photos[1:], ada.costliest, strict=True):
        played = told(review.placement(n).played)
        assert photo.text.startswith(f"Ada, move {n + 1}: played {played}")


def test_a_puzzle_in_the_group_and_its_answer_in_the_private_chat(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    runner = start_bot(api, tmp_path / "t.db")
    found, _ = store_puzzle_game(runner.service.store, "elsewhere")
    room = Room(api, runner)
    room.say(ADA, "/puzzle")
    (photo,) = api.sent(GROUP, "sendPhoto")
    assert photo.text.startswith("Puzzle 1: the player to move has ")
    assert found.answer not in photo.text
    # Ada answers in her private chat with the bot: the answer is told there only.
    before = len(api.sent(GROUP))
    room.say(ADA, f"/puzzle 1 {found.answer}", chat=ADA)
    assert [c.text for c in api.sent(ADA)][-1] == "Right: that is the best placement of puzzle 1."
    assert len(api.sent(GROUP)) == before
    room.say(BOB, "/puzzle answer")
    assert api.sent(GROUP)[-1].text.endswith("Found by: Ada.")
