"""What goes to one person only: the answer to whoever acted, and direct messages.

A private message (a rack, a hint) and every error go only to the person who acted, as
ephemeral answers; a rack for someone else reaches them by direct message if the ``dm``
setting is on (unless their direct messages turned out closed, until they ask for their
tiles again), otherwise through the "My tiles" button on the turn message. A turn ping
asked for with ``/notify`` goes by direct message whatever the ``dm`` setting says.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.outbound import Outbound
from bot.discord.failures import why
from bot.discord.links import Links
from bot.discord.messages import direct_kwargs, send_kwargs
from bot.discord.parts import Part, title
from bot.service import Service

log = logging.getLogger(__name__)

#: A note (kept in the store across restarts): the person's direct messages are closed.
NOTE_NO_DM = "discord.no_dm.{user}"
#: A note by table, per person: the turn ping sent to them by direct message, as
#: ``channel:message`` ids, deleted when that turn passes.
NOTE_PING = "discord.ping.{user}"


@dataclass
class Reply:
    """The interaction being answered: who acted, and what was sent back to them."""

    interaction: discord.Interaction[Any]
    user: str
    #: A button press (acknowledged without a visible answer) rather than a slash command.
    component: bool = False
    #: The kind of message the pressed button sits on.
    kind: str | None = None
    #: Chat messages go back privately too (help and rules are nobody else's business).
    quiet: bool = False
    #: Something was sent back privately.
    answered: bool = False
    #: The message with the pressed button was replaced.
    edited: bool = False
    #: Direct messages to the person had failed; they asked for their tiles, so we try again.
    reopened: bool = False
    #: When the interaction came, by the service's clock (its token lasts 15 minutes).
    at: float = 0.0
    #: The "thinking" answer was completed with a short private note, so that the table's
    #: messages can follow as public follow-ups (a chat the bot only answers in).
    placeholder: bool = False


class Private(Part):
    """The answers to the person who acted, and direct messages to the others."""

    def __init__(self, client: discord.Client, service: Service, links: Links, *, dm: bool) -> None:
        """
        Args:
            links: the links to a table's latest turn message (pings lead there).
            dm: send racks to players who did not ask by direct message too.
        """
        super().__init__(client, service)
        self.links = links
        self.dm = dm

    async def deliver(self, outbound: Outbound, reply: Reply | None) -> None:
        """An outbound for one person: a ping or a rack for someone else by direct message,
        anything else as the answer to the person who acted."""
        if outbound.tables:  # /games: a jump URL to each table's latest message
            outbound = await self.links.with_links(outbound)
        if outbound.kind == "ping":
            # Asked for with /notify on, so sent by direct message even where racks are
            # not (the server's dm switch); dropped for a person whose DMs are closed.
            assert outbound.user is not None
            await self._direct(outbound)
            return
        if outbound.kind == "unping":
            await self._unping(outbound)
            return
        if outbound.user is None:
            assert reply is not None
            await self.answer(reply, outbound)
        elif reply is not None and outbound.user == reply.user:
            await self.answer(reply, outbound)
        elif self.dm:
            await self._direct(outbound)

    async def reopen(self, reply: Reply, chat: str) -> None:
        """The person asked for their tiles (``/hand``), which is asking for direct messages
        again: if theirs had turned out closed, the next rack is tried by DM once more."""
        if not self.dm:
            return
        key = NOTE_NO_DM.format(user=reply.user)
        if await self._note(chat, key) is not None:
            await self._set_note(chat, key, None)
            reply.reopened = True

    async def answer(self, reply: Reply, outbound: Outbound) -> None:
        """Privately to the person who acted (an ephemeral message)."""
        if reply.reopened and outbound.kind == "rack":
            texts = await asyncio.to_thread(self._texts, outbound.chat)
            extra = texts("discord.dm_reopened", hand=texts("button.hand"))
            outbound = dataclasses.replace(outbound, text=f"{outbound.text}\n{extra}")
        await reply.interaction.followup.send(ephemeral=True, **send_kwargs(outbound))
        reply.answered = True

    async def _unping(self, outbound: Outbound) -> None:
        """The turn a direct-message ping was sent for has passed: the ping is deleted
        (one the person deleted already is gone anyway)."""
        assert outbound.user is not None
        key = NOTE_PING.format(user=outbound.user)
        noted = await self._note(outbound.chat, key)
        if noted is None:
            return
        channel, _, message = noted.partition(":")
        if channel.isdigit() and message.isdigit():
            dm = self.client.get_partial_messageable(int(channel), type=discord.ChannelType.private)
            try:
                await dm.get_partial_message(int(message)).delete()
            except (discord.NotFound, discord.Forbidden) as exc:
                log.info("could not delete a turn ping to %s: %s", outbound.user, why(exc))
        await self._set_note(outbound.chat, key, None)

    async def _direct(self, outbound: Outbound) -> None:
        """A rack by direct message, unless the player's direct messages turned out closed
        (then not again until they ask for their tiles)."""
        assert outbound.user is not None
        chat, key = outbound.chat, NOTE_NO_DM.format(user=outbound.user)
        if await self._note(chat, key) is not None:
            return
        texts = await asyncio.to_thread(self._texts, chat)
        channel = self.client.get_channel(int(chat))
        table = getattr(channel, "jump_url", None) or title(channel) or chat
        if outbound.kind == "ping":  # back to the board it is about, as on Telegram
            table = await self.links.latest_link(chat) or table
            if chat == outbound.user:
                # A ping about a table on the other platform, sent to this account of a
                # person linked on both (issue 49): the ping names the table, no link here.
                table = ""
        user = self.client.get_user(int(outbound.user)) or await self.client.fetch_user(
            int(outbound.user)
        )
        try:
            sent = await user.send(**direct_kwargs(outbound, texts, table))
            if outbound.kind == "ping":
                where = f"{sent.channel.id}:{sent.id}"
                await self._set_note(chat, NOTE_PING.format(user=outbound.user), where)
        except discord.Forbidden as exc:
            log.info(
                "direct messages to %s are closed (%s): not again until they ask for their tiles",
                outbound.user,
                exc.text or exc.status,
            )
            await self._set_note(chat, key, "1")
