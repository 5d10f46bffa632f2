"""Jump URLs to a table's latest turn message: noted as it is posted, and handed out with
``/games`` (one per table) and in turn pings (back to the board they are about).
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord

from bot.core.outbound import NOTE_WHERE, Outbound, Where, with_places
from bot.discord.messages import jump_url
from bot.discord.parts import Part
from bot.discord.shards import DIRECT, NOTE_GUILD

#: The table's latest turn (or result) message, for jump URLs to it (/games, turn pings):
#: ``<guild id or @me>/<message id>``.
NOTE_LATEST = "discord.latest"
#: This platform's name in a table's :data:`~bot.core.outbound.NOTE_WHERE`.
PLATFORM = "discord"


class Links(Part):
    """The table's latest turn message, noted, and the links to it."""

    async def note_latest(self, chat: str, channel: Any, message: discord.Message) -> None:
        """Keep the table's newest turn message (and its server) for jump URLs to it."""
        guild = getattr(message.guild or getattr(channel, "guild", None), "id", None)
        if (
            guild is None
            and not isinstance(channel, discord.DMChannel | discord.GroupChannel)
            and await self._note(chat, NOTE_GUILD) != DIRECT
        ):
            # A channel not in the cache: without its server no jump URL works (a
            # person's DM with the bot, never cached, is noted as one by its commands).
            return
        where = "@me" if guild is None else str(guild)
        await self._set_note(chat, NOTE_LATEST, f"{where}/{message.id}")
        # Where the table is, for Telegram's listings of a person linked on both (issue 49).
        link = jump_url(where, chat, str(message.id))
        await self._set_note(chat, NOTE_WHERE, Where(PLATFORM, link).dump())

    async def latest_link(self, chat: str) -> str | None:
        """The jump URL of the table's latest turn message; ``None`` if none was noted."""
        where, _, message = (await self._note(chat, NOTE_LATEST) or "").partition("/")
        if not message.isdigit() or not (where == "@me" or where.isdigit()):
            return None
        return jump_url(where, chat, message)

    async def with_links(self, outbound: Outbound) -> Outbound:
        """A listing of tables (/games) with a jump URL to each table's latest message; a
        Telegram table with the link the Telegram bot noted (a person linked on both,
        issue 49): its latest message in a supergroup, an inline message's board."""
        texts = await asyncio.to_thread(self._texts, outbound.chat)
        places: dict[str, Where] = {}
        for table in outbound.tables:
            link = await self.latest_link(table)
            if link is not None:
                places[table] = Where(PLATFORM, link)
                continue
            noted = Where.read(await self._note(table, NOTE_WHERE))
            if noted is not None:
                places[table] = noted
        return with_places(outbound, PLATFORM, places, texts)
