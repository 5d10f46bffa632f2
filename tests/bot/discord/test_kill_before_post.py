"""A bot killed between the commit and the post says it after the restart, once (issue
23), on Discord: the bot dies as it posts a move's board, either before the post reached
Discord or once Discord took it, and nothing of it runs on (its clock dies too). A new bot
on the same store (a process elsewhere, which waits for the dead one's claim to run out)
posts what waited, in order, and the channel is told every move exactly once. The second
case holds because the post is sent again with the nonce fixed when it was stored, which
Discord enforces. On SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core.tables import LETTER_LEASE
from tests.bot.discord.faults import Faults, injecting
from tests.bot.discord.support import world
from tests.bot.discord.test_faults import (
    ada_plays,
    announced,
    assert_each_move_said_once,
    recorded,
    seat_ada_and_a_computer,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("backend")]


@pytest.mark.parametrize("fault", ["killed", "killed_after"])
async def test_a_board_cut_off_by_a_kill_is_posted_once_after_the_restart(
    tmp_path: Path, fault: str
) -> None:
    faults = Faults()
    rng = random.Random(5)
    with injecting(faults):
        async with world(tmp_path) as w:
            await seat_ada_and_a_computer(w)
            await ada_plays(w, rng, 3)
            told = announced(w)
            assert told == recorded(w)
            faults.inject("post", fault, times=1, chat=w.channel.id)
            # Its clock dies with it: nothing of the dead bot runs on.
            faults.on_kill = w.client._clock_task.cancel if w.client._clock_task else faults.on_kill
            await ada_plays(w, rng, 1)
            # Ada's move is stored; the bot died posting its board, before the computer
            # player's answer.
            # Ada's move and the computer player's answer are stored; the bot died posting
            # the board that tells both (a computer's move is told with the turn it ends).
            assert len(recorded(w)) == len(told) + 2
            reached = fault == "killed_after"
            assert announced(w) == (recorded(w) if reached else told)
            await w.restart()
            # The dead bot's claim on its letters runs out; the clock's next look posts them.
            await w.env.advance_time(LETTER_LEASE + w.client._clock.max_sleep + 1)
            assert_each_move_said_once(w)
            assert faults.repeated == (1 if reached else 0)
            assert not w.service.anything_waiting()
