"""The Telegram clock's step at a table finds what is due when it gets the table, not
when the clock looked: a step that waited for the table behind a command there (whose
messages wait for the group's room meanwhile) plays the computer player due by then,
and the table does not rest as if its step could do nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from bot.core.outbound import Outbound
from bot.telegram.clock import Clock
from bot.telegram.outbox import TableLocks
from tests.bot.helpers import Clock as Time
from tests.bot.helpers import Room, make_service


class Told:
    """The outbox as the clock uses it: what each step said, as it was said."""

    def __init__(self) -> None:
        self.gathering: set[str] = set()
        self.paused: set[str] = set()
        self.held: set[str] = set()
        self.said: list[Outbound] = []

    async def deliver(
        self, outs: Sequence[Outbound], origin: object, *, gather: bool = False
    ) -> None:
        self.said += outs


def test_a_step_that_waited_behind_a_command_plays_what_is_due_by_then(tmp_path: Path) -> None:
    time = Time()
    service = make_service(tmp_path / "t.db", seed=6, clock=time)
    room = Room(service)
    for text in ("/join", "/addbot random", "/addbot random", "/start"):
        room.ok("Ada", text)
    # Ada leaves: a computer takes her seat, and the table is due at once (computers alone).
    service.handle(room.chat, room.person("Ada"), "/leave")
    for out in service.waiting():
        service.delivered(out)  # all told: no letter waits for the clock to post it
    table = room.chat.id
    assert room.table().due_at == time.now
    answered: list[int] = []  # the game's placements once the command's computers answered

    told = Told()
    locks = TableLocks()
    clock = Clock(service, locks, told, due_interval=60.0, sleep=None)  # type: ignore[arg-type]

    async def scene() -> None:
        async with locks.hold(table):  # a command at the table, as bot.telegram.updates
            await clock.look()  # the table is due: the clock starts its step, which waits
            assert table in clock.busy
            # The command's messages waited 3 s for the group's room; then its computer
            # players answered, as bot.telegram.updates has Clock.due do after a command.
            time.advance(3.0)
            await clock.due(table)
            answered.append(len(room.game().moves))
        await clock.settle()

    asyncio.run(scene())
    # The command's computer turns left the next one due at the command's time (3 s after
    # the look), which the clock's step, taken after the command, had reached: it played.
    assert len(room.game().moves) > answered[0]
    assert table not in clock.turns.resting
    assert room.table().due_at == time.now  # the next computer player's, at once
