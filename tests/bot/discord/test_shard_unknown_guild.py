"""A process running some of the shards leaves alone a due table whose guild it cannot
tell (issue 22): no note of the guild, no channel of that id in its cache, and Discord
does not know the channel either. The process whose shard sees that channel will tell
(and note) the guild; this one must not claim the table nor remind anyone there, while it
goes on with the tables of its own shards.

Only what the process does is read: what the store holds, what it claimed, what its
channel was told; so this holds however the client is split into modules.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import simcord

from bot.core.outbound import User
from bot.discord.shards import NOTE_GUILD
from tests.bot.discord.test_shards import GUILD_ON_SHARD_0, HALF, Process, said, seat_two

#: A channel id that names no channel in this process's Discord (Discord answers 404).
NOWHERE = "987654321987654321"


def test_a_due_table_of_an_unknown_guild_is_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    zero = Process(db, 0)  # shard 0 of 2
    asked: list[int] = []
    fetch = zero.client.fetch_channel

    async def fetch_channel(channel_id: int) -> Any:
        asked.append(channel_id)
        return await fetch(channel_id)

    zero.client.fetch_channel = fetch_channel  # type: ignore[method-assign]
    service = zero.service

    def state(chat: str) -> tuple[bool, int]:
        table = service.store.load(chat)
        assert table is not None and table.record is not None
        return table.reminded, len(table.record["moves"])

    async def run() -> list[str]:
        async with simcord.run(zero.client) as env:
            zero.clock.env = env
            guild = env.create_guild("Zero", id=GUILD_ON_SHARD_0)
            channel = guild.create_text_channel("genial")
            await seat_two(env, channel, guild)
            # A table at a channel nobody here can see, with no note of its guild (as a
            # table from before the notes, or one whose channel is gone for the bot).
            for name in ("Cy", "Di"):
                service.handle(NOWHERE, User(f"id-{name.lower()}", name), "/join")
            service.handle(NOWHERE, User("id-cy", "Cy"), "/option timeout 1h")
            service.handle(NOWHERE, User("id-cy", "Cy"), "/start")
            assert service.store.note(NOWHERE, NOTE_GUILD) is None
            assert set(service.due_tables(service.clock() + HALF)) == {str(channel.id), NOWHERE}
            # Half the hour and a minute: the reminders are due at both tables (the one
            # left stays due, so the clock looks every few seconds meanwhile).
            await env.advance_time(HALF)
            assert state(str(channel.id)) == (True, 0)
            assert state(NOWHERE) == (False, 0)
            return said(channel)

    lines = asyncio.run(run())
    # Discord was asked about the channel, and could not say; nothing was claimed there.
    assert int(NOWHERE) in asked
    assert NOWHERE not in zero.claimed
    assert zero.service.store.note(NOWHERE, NOTE_GUILD) is None
    # This process's own table was served as usual: its players were reminded, once.
    assert sum("30m left, then a computer player moves for you" in x for x in lines) == 1
