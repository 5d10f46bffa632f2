"""Time banks on Discord: a player out of time and the vote by button, and a takeback
accepted by button (issue 26), in SimCord's virtual time."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bot.discord.support import World, labels, play_turn, text, world


async def _two_seated(w: World) -> None:
    await w.person("Ada").slash(w.channel, "join")
    await w.person("Bob").slash(w.channel, "join")


@pytest.mark.asyncio
async def test_a_player_out_of_time_and_the_vote_by_button(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "option", setting="clock", value="1h+10m")
        await ada.slash(w.channel, "start")
        assert "Time left: Ada 1h · Bob 1h" in text(w.last_public())
        await w.env.advance_time(3600)
        told = w.last_public()
        assert text(told).startswith(f"{bob.mention}\nAda is out of time.")
        assert labels(told)[:3] == ["Skip this move", "Computer takes the seat", "Wait"]
        assert w.game().moves == []
        await bob.click(told, label="Skip this move")
        await w.env.advance_time(1)
        said = "\n".join(text(m) for m in w.public()[-3:])
        assert "The table decided: a computer player makes this move for Ada." in said
        assert "Time is up for Ada: a computer player makes this turn for them." in said
        assert w.game().to_move == 1 and len(w.game().moves) >= 1
        assert w.table().seats[0].user == str(ada.id)


@pytest.mark.asyncio
async def test_a_takeback_accepted_by_button(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "start")
        await play_turn(w, random.Random(1))
        assert len(w.game().moves) == 1
        await ada.slash(w.channel, "undo")
        asked = w.last_public()
        assert "Ada asks to take back their last move (1 move)." in text(asked)
        assert labels(asked)[:2] == ["Accept takeback", "Refuse"]
        await bob.click(asked, label="Accept takeback")
        assert w.game().moves == [] and w.game().to_move == 0
        assert "Ada's move is taken back (1 move)." in text(w.last_public())
