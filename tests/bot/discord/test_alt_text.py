"""Board pictures on Discord carry alt text (the attachment's ``description``): the moves
so far, the last placement's symbols and cells, and the scores (issue 48)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bot.discord.support import play_turn, world

pytestmark = pytest.mark.asyncio


async def test_the_board_picture_names_the_last_placement_and_the_scores(tmp_path: Path) -> None:
    async with world(tmp_path, pictures=True) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        await ada.click(w.last_public(), label="Add computer")
        await ada.click(w.last_public(), label="Start")
        await play_turn(w, random.Random(3))
        game = w.game()
        boards = [a for m in w.public() for a in m.attachments if a.filename.startswith("board-")]
        assert boards, "no board picture"
        alt = boards[-1].description or ""
        # The record's last placement, its cells as the chat names them.
        last = game.moves[-1].split()
        assert alt.startswith(f"Genial board after {len(game.moves)} moves. Last placement: ")
        assert last[-2] in alt and last[-1] in alt
        assert "Ada (red " in alt and "Computer 1 (red " in alt
