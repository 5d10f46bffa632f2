"""Which due tables are this process's own, when processes share the bot's shards.

Each process receives the commands of its own shards' guilds only, and does the due work
(computer players, reminders, timeouts) of the tables in those guilds: it delivers their
messages through the connection it has. A process running every shard owns every table.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.discord.failures import why
from bot.discord.parts import Part
from bot.service import Service, is_tournament_table

log = logging.getLogger(__name__)

#: The guild a table's channel is in (:data:`DIRECT` for a direct-message channel), noted
#: when a command there is handled: a process running some of the shards tells from it
#: which due tables are its own, without asking Discord.
NOTE_GUILD = "discord.guild"
DIRECT = "dm"
#: How long a process waits before asking Discord again about the channel of a due table
#: whose guild it could not tell (the channel is gone for the bot, or Discord failed).
UNKNOWN_RETRY = 3600.0


def shard_of(guild: int | None, shard_count: int) -> int:
    """The shard that receives a guild's events, by Discord's formula; direct messages come
    on shard 0."""
    return 0 if guild is None else (guild >> 22) % shard_count


class Shards(Part):
    """The shards this process runs, and the guild of each table's channel."""

    def __init__(self, client: discord.Client, service: Service) -> None:
        super().__init__(client, service)
        #: The guild of each table's channel this process has learnt (``None``: a
        #: direct-message channel). A channel never changes guild, so this is kept.
        self._guilds: dict[str, int | None] = {}
        #: Due tables whose guild could not be told, with when to ask Discord again.
        self._unknown: dict[str, float] = {}

    def running(self) -> frozenset[int] | None:
        """The shards this process runs, ``None`` if it runs all of them (one process, or
        an ``AutoShardedClient`` given no shard ids): then every table is its own."""
        count = self.client.shard_count
        ids = getattr(self.client, "shard_ids", None)
        if not isinstance(self.client, discord.AutoShardedClient) or count is None or ids is None:
            return None
        mine = frozenset(int(i) for i in ids)
        return None if mine >= frozenset(range(count)) else mine

    async def ours(self, chat: str) -> bool:
        """Whether the table's guild is on one of this process's shards, so that its due
        work is done here. A table whose guild cannot be told is left alone: the process
        that sees its channel will tell (and note) it."""
        shards, count = self.running(), self.client.shard_count
        if shards is None or count is None:
            return True
        if is_tournament_table(chat):
            # A tournament (pairing its rounds, opening its tables) and its tables' due
            # work (their deadlines, computer players) belong to no guild: the process
            # running shard 0 does it (the store's claim keeps it to one anyway), and each
            # place's letters go to the process of that place's guild (Clock.due).
            return 0 in shards
        if chat not in self._guilds and not await self._learn_guild(chat):
            return False
        return shard_of(self._guilds[chat], count) in shards

    async def _learn_guild(self, chat: str) -> bool:
        """Find out the guild of a table's channel: from its note, else from this
        process's cache (a channel of its own shards' guilds), else by asking Discord
        once in a while (a direct-message channel, or a table older than the notes)."""
        noted = await self._note(chat, NOTE_GUILD)
        if noted is not None:
            if noted == DIRECT or noted.isdigit():
                self._guilds[chat] = None if noted == DIRECT else int(noted)
                return True
            log.warning("table %s has a note of its guild that is not one: %r", chat, noted[:40])
        now = self.service.clock()
        if not chat.isdigit() or self._unknown.get(chat, 0.0) > now:
            return False  # (not a Discord channel's id at all, or asked about lately)
        channel: Any = self.client.get_channel(int(chat))
        if channel is None:
            try:
                channel = await self.client.fetch_channel(int(chat))
            except Exception as exc:
                self._unknown[chat] = now + UNKNOWN_RETRY
                log.info("could not tell the guild of table %s: %s", chat, why(exc))
                return False
        self._unknown.pop(chat, None)
        guild = getattr(channel, "guild", None)
        await self.note_guild(chat, None if guild is None else int(guild.id))
        return True

    async def note_guild(self, chat: str, guild: int | None) -> None:
        """Keep the guild of a table's channel, in this process and for the others."""
        if chat in self._guilds:
            return
        self._guilds[chat] = guild
        await self._set_note(chat, NOTE_GUILD, DIRECT if guild is None else str(guild))
