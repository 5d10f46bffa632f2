"""``/mydata`` and ``/forget`` as Discord slash commands: the file and the answers are
ephemeral, only the person who asked sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bot.discord.support import answers, only_answer, text, world


@pytest.mark.asyncio
async def test_mydata_and_forget_are_private(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        (answer,) = answers(await ada.slash(w.channel, "mydata"))
        assert answer.ephemeral
        assert text(answer).startswith("Everything I keep about you is in this file")
        (attachment,) = answer.attachments
        assert attachment.filename == "mydata.json"
        kept = json.loads(await attachment.read())
        assert (kept["user"], kept["running_tables"], kept["finished_games"]) == (
            str(ada.id),
            [],
            [],
        )
        first = only_answer(await ada.slash(w.channel, "forget"))
        assert "Send /forget me again within 10 minutes to confirm." in first
        done = only_answer(await ada.slash(w.channel, "forget"))
        assert done.startswith("Done: I have forgotten you.")
        # Her lobby seat went with her: the table is empty.
        assert [s.user for s in w.table().seats] == []
