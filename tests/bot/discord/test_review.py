"""/review through SimCord: the chart with the summary, then the boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.discord.support import only_answer, text, world
from tests.bot.review_fixtures import store_puzzle_game, store_reviewed_game


@pytest.mark.asyncio
async def test_review_posts_the_chart_and_the_costliest_boards(
    tmp_path: Path, shared: Path
) -> None:
    async with world(tmp_path, pictures=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        users = (str(ada.id), str(bob.id))
        review, _ = store_reviewed_game(w.service.store, w.chat, users, shared)
        await ada.slash(w.channel, "review")
        posts = [m for m in w.public() if m.attachments]
        ada_review = review.seats[0]
        assert [a.filename for m in posts for a in m.attachments] == [
            "review-chances.png",
            *(f"review-{n + 1:03d}.png" for n in ada_review.costliest),
        ]
        assert text(posts[0]).startswith("The expert's review (")
        assert f"Ada: accuracy {ada_review.accuracy}%" in text(posts[0])


@pytest.mark.asyncio
async def test_a_puzzle_and_its_answer_that_only_the_sender_sees(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        found, _ = store_puzzle_game(w.service.store, "elsewhere")
        await ada.slash(w.channel, "puzzle")
        assert text(w.last_public()).startswith("Puzzle 1: the player to move has ")
        shown = len(w.public())
        result = await bob.slash(w.channel, "puzzle", answer=f"1 {found.answer}")
        assert only_answer(result) == "Right: that is the best placement of puzzle 1."
        assert len(w.public()) == shown  # nothing of the answer in the channel
        await ada.slash(w.channel, "puzzle", answer="answer")
        assert text(w.last_public()).endswith("Found by: Bob.")
