"""A table's lobby, options and turn message: which are edited in place, and which keep
live buttons.

A lobby or the options are edited in place, whether a button or a slash command changed
them, unless they scrolled away (then they are posted anew). Only the newest messages keep
live buttons: when the turn passes, the buttons come off the previous turn message, and
off the lobby and options once the game runs. The message ids are notes, so this holds
across restarts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import discord

from bot.core.outbound import Outbound
from bot.discord.failures import why
from bot.discord.messages import edit_kwargs
from bot.discord.parts import Part
from bot.discord.private import Reply

log = logging.getLogger(__name__)

#: Messages edited in place rather than posted anew, while they have not scrolled away.
IN_PLACE = frozenset({"lobby", "options"})
#: A message with this many messages after it has scrolled away: a change posts it anew.
SCROLLED = 5
#: A note (kept in the store across restarts): the message id of the table's open lobby,
#: options or turn message.
NOTE_MESSAGE = "discord.message.{kind}"
#: A note by a thread's table: the channel message that announced the thread, with its
#: Join button ("channel id:message id"), until the game there runs.
NOTE_ANNOUNCE = "discord.announce"


class Lobby(Part):
    """The message ids of a table's lobby, options and turn message, and what becomes of
    those messages."""

    async def in_place(self, outbound: Outbound, reply: Reply | None, nonce: int) -> None:
        """A lobby or the options: the message with the pressed button, or the last one
        posted, edited in place; posted anew when it is gone or scrolled away."""
        chat, key = outbound.chat, NOTE_MESSAGE.format(kind=outbound.kind)
        old = await self._note(chat, key)
        pressed = reply.interaction.message if reply is not None and reply.component else None
        if (
            reply is not None
            and pressed is not None
            and not reply.edited
            and outbound.kind == reply.kind
        ):
            reply.edited = True
            if old != str(pressed.id):
                await self._set_note(chat, key, str(pressed.id))
                await self._strip(chat, old)
            old = str(pressed.id)
            try:
                await reply.interaction.edit_original_response(**edit_kwargs(outbound))
                return
            except discord.HTTPException as exc:
                # The interaction's token expired (or Discord lost it): edit the message
                # through the channel instead.
                log.info("could not edit through the interaction: %s", why(exc))
        channel = self._channel(chat)
        if old is not None and await self._near(channel, int(old)):
            try:
                await channel.get_partial_message(int(old)).edit(**edit_kwargs(outbound))
                return
            except discord.NotFound as exc:  # deleted meanwhile: post it anew
                log.info("could not edit the %s of table %s: %s", outbound.kind, chat, why(exc))
        message = await self._send(channel, outbound, nonce=nonce)
        await self._set_note(chat, key, str(message.id))
        await self._strip(chat, old)

    async def _near(self, channel: Any, message: int) -> bool:
        """Whether fewer than :data:`SCROLLED` messages came after ``message``, so people
        still see it where it is. Without the right to read the history, we cannot tell:
        then posting anew is the safe answer."""
        me = getattr(getattr(channel, "guild", None), "me", None)
        if me is None or not hasattr(channel, "permissions_for"):
            return False
        if not channel.permissions_for(me).read_message_history:
            return False
        try:
            after = discord.Object(message)
            later = [m async for m in channel.history(limit=SCROLLED, after=after)]
        except discord.NotFound as exc:
            log.info("could not read the history of %s: %s", channel.id, why(exc))
            return False
        return len(later) < SCROLLED

    async def retire(self, outbound: Outbound, message: discord.Message) -> None:
        """After a turn message (or the result): buttons stay live on the newest message
        only, so they come off the previous turn message, and off the lobby and options once
        a game runs (the turn message addresses a player) or ended."""
        if outbound.kind not in ("turn", "result"):
            return
        chat = outbound.chat
        key = NOTE_MESSAGE.format(kind="turn")
        old = await self._note(chat, key)
        new = str(message.id) if outbound.buttons else None
        if new != old:
            await self._set_note(chat, key, new)
            await self._strip(chat, old)
        if outbound.kind == "result" or outbound.buttons or outbound.mentions:
            await self.retire_all(chat, IN_PLACE)
            await self._retire_announcement(chat)

    async def _retire_announcement(self, chat: str) -> None:
        """The Join button comes off the channel's announcement of a thread's table once
        its game runs (it would seat nobody)."""
        noted = await self._note(chat, NOTE_ANNOUNCE)
        if noted is None:
            return
        await self._set_note(chat, NOTE_ANNOUNCE, None)
        channel, _, message = noted.partition(":")
        try:
            await self._channel(channel).get_partial_message(int(message)).edit(view=None)
        except Exception as exc:
            log.info("could not take the Join button off message %s: %s", message, why(exc))

    async def retire_all(self, chat: str, kinds: Iterable[str] = (*IN_PLACE, "turn")) -> None:
        """Take the buttons off the table's lobby, options or turn message (``kinds``)."""
        for kind in sorted(kinds):
            key = NOTE_MESSAGE.format(kind=kind)
            old = await self._note(chat, key)
            if old is not None:
                await self._set_note(chat, key, None)
                await self._strip(chat, old)

    async def _strip(self, chat: str, message: str | None) -> None:
        """Take the buttons off one of the table's messages (one edit); a failure is only
        logged (its buttons stay, and the service answers them as stale)."""
        if message is None:
            return
        try:
            await self._channel(chat).get_partial_message(int(message)).edit(view=None)
        except Exception as exc:
            log.info("could not take the buttons off message %s: %s", message, why(exc))
