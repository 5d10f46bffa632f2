"""A thread for each new table (the ``threads`` setting): a command that opens a table in
a channel opens a thread for it, announced in the channel with a button to join, and the
next ones join that thread's table while it gathers players.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final, Literal

import discord

from bot.core.commands import AddBot, Command, CommandError, Join, SetOption
from bot.core.outbound import Button, Outbound
from bot.core.parsing import parse_command
from bot.core.table import CLOSED, LOBBY, MAX_SEATS, Table
from bot.discord.failures import why
from bot.discord.lobby import NOTE_ANNOUNCE
from bot.discord.parts import Part
from bot.discord.views import view_for
from bot.service import Service
from bot.store import StoreError
from bot.words.texts import Texts, shown_name

log = logging.getLogger(__name__)

#: A note (kept in the store across restarts): a channel's thread gathering players.
NOTE_THREAD = "discord.thread"
#: A thread a table opens archives after a week without messages (Discord's longest).
THREAD_ARCHIVE_MINUTES: Final[Literal[10080]] = 10080


def _opening(command: str) -> Command | None:
    """The command, if it opens a table where there is none (joining, seating a computer
    player, setting an option)."""
    try:
        parsed = parse_command(command)
    except CommandError:
        return None
    return parsed if isinstance(parsed, Join | AddBot | SetOption) else None


class Threads(Part):
    """Which table a command is for, when tables play in threads."""

    def __init__(self, client: discord.Client, service: Service, *, threads: bool) -> None:
        """
        Args:
            threads: open a thread for each new table instead of using the channel.
        """
        super().__init__(client, service)
        self.threads = threads

    async def table_chat(
        self, interaction: discord.Interaction[Any], chat: str, command: str
    ) -> str:
        """The table a command is for: the channel's, or with threads on, a thread's (a
        new one when the command opens a table and the channel has no table of its own)."""
        channel = interaction.channel
        if not self.threads or not isinstance(channel, discord.TextChannel):
            return chat
        opening = _opening(command)
        if opening is None:
            return chat
        service = self.service

        def current() -> tuple[str | None, Table | None, Table | None]:
            gathering = service.note(chat, NOTE_THREAD)
            there = service.table(gathering) if gathering else None
            return gathering, service.table(chat), there

        try:
            gathering, here, there = await asyncio.to_thread(current)
        except StoreError as exc:
            # The store does not answer: the channel's table, which the service answers
            # for ("not answering"). No thread is opened while it cannot tell whether one
            # gathers players already.
            log.info("could not tell the table of channel %s: %s", chat, exc)
            return chat
        if here is not None and here.status != CLOSED:
            return chat
        if (
            gathering
            and there is not None
            and there.status == LOBBY
            and (len(there.seats) < MAX_SEATS or not isinstance(opening, Join))
        ):
            # The table gathering players in this channel's newest thread: joining it
            # beats opening a second one (a full one lets /join open a new thread).
            return gathering
        texts = Texts(service.settings.language)
        who = shown_name(interaction.user.display_name)  # never a mention chip
        name = texts("discord.thread_name", name=who)[:100]
        try:
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except Exception as exc:
            log.warning("could not open a thread in channel %s, playing there: %s", chat, why(exc))
            return chat
        await self._set_note(chat, NOTE_THREAD, str(thread.id))
        text = texts("discord.thread_opened", name=who, thread=thread.mention)
        view = view_for((Button(texts("button.join"), "/join"),), str(thread.id), "announce")
        try:
            sent = await self._send(channel, Outbound(chat, text), view=view)
        except Exception as exc:
            log.warning("could not announce the thread in channel %s: %s", chat, why(exc))
        else:
            # Its Join button comes off once the thread's game runs (Lobby.retire).
            await self._set_note(str(thread.id), NOTE_ANNOUNCE, f"{chat}:{sent.id}")
        return str(thread.id)

    async def open_for_tournament(self, chat: str, name: str) -> str | None:
        """A thread of its own for a tournament's table in channel ``chat`` (issue 30):
        its id, or ``None`` where none can be opened (not a text channel of a server, no
        right to open threads): then the table is played in the channel itself."""
        if not chat.isdigit():
            return None
        channel: Any = self.client.get_channel(int(chat))
        if channel is None:  # a guild of another process's shards: asked of Discord
            try:
                channel = await self.client.fetch_channel(int(chat))
            except discord.HTTPException as exc:
                log.info("no thread for a tournament table in channel %s: %s", chat, why(exc))
                return None
        if not isinstance(channel, discord.TextChannel):
            return None
        try:
            thread = await channel.create_thread(
                name=name[:100],
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except Exception as exc:
            log.info("no thread for a tournament table in channel %s: %s", chat, why(exc))
            return None
        return str(thread.id)
