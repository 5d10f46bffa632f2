"""Tables in chats the bot is not a member of: only interactions are answered there.

A person who installed genial-bot for themselves (a user install) brings its commands into
a group DM with friends, or into a server that has not added the bot; the bot is no
member there, so it cannot post, read or edit in that channel. All it can do is answer an
interaction: a first answer and follow-ups, through the interaction's token, for 15
minutes. So at such a table every public message is a follow-up of the command or button
that caused it (the board after a move is that move's answer, its text naming who is
next), messages are posted anew instead of edited in place, and old buttons stay (a press
on one is answered as stale). What the clock does there later (a computer player's move
when nobody acted for 15 minutes, a reminder, a timeout) waits in the table's outbox and
is posted with the next command or button. The lobby says so plainly (docs/discord.md).

The chats are noted in the store (``discord.answers``), so a restarted bot knows them
before anyone acts there again.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import discord

from bot.core.outbound import Outbound
from bot.discord.lobby import IN_PLACE
from bot.discord.messages import edit_kwargs, send_kwargs
from bot.discord.parts import Part
from bot.discord.private import Reply

#: A note (kept in the store across restarts): the bot only answers interactions here.
NOTE_ANSWERS = "discord.answers"
#: How long an interaction's token is used to post (Discord's 15 minutes, less a minute
#: for the call itself and clocks that differ).
FRESH = 14 * 60.0


def answers_only(interaction: discord.Interaction[Any]) -> bool:
    """Whether the bot can only answer in the interaction's channel: a group DM or other
    private channel (the bot is never a member), or a server that has not added the bot
    (the command came through the person's own install)."""
    if interaction.context.private_channel:
        return True
    return interaction.guild_id is not None and not interaction.is_guild_integration()


class Answers(Part):
    """Which tables only get interaction answers, the latest interaction of each, and
    posting through it."""

    def __init__(self, client: discord.Client, service: Any) -> None:
        super().__init__(client, service)
        #: What is known of each chat: True, the bot only answers there.
        self.known: dict[str, bool] = {}
        #: The latest interaction at each such table (a follow-up may use it for 15 minutes).
        self.latest: dict[str, Reply] = {}

    async def saw(self, chat: str, reply: Reply) -> None:
        """An interaction at ``chat``: note whether the bot can only answer there."""
        reply.at = self.service.clock()
        only = answers_only(reply.interaction)
        if only:
            self.latest[chat] = reply
        if await self.only(chat) != only:  # the note is read once, written on a change
            self.known[chat] = only
            await self._set_note(chat, NOTE_ANSWERS, "1" if only else None)

    async def only(self, chat: str) -> bool:
        """Whether the bot can only answer interactions at ``chat`` (from memory, else
        from the store's note)."""
        if chat not in self.known:
            self.known[chat] = await self._note(chat, NOTE_ANSWERS) is not None
        return self.known[chat]

    def reply_for(self, chat: str, reply: Reply | None) -> Reply | None:
        """The interaction to post ``chat``'s message with: the one it answers, else the
        table's latest, while its token lasts; ``None`` when there is none."""
        now = self.service.clock()
        for candidate in (reply, self.latest.get(chat)):
            if candidate is not None and now - candidate.at < FRESH:
                return candidate
        return None

    def expired(self, chat: str, reply: Reply) -> None:
        """Discord refused the token: the interaction is not used again."""
        reply.at = -FRESH
        if self.latest.get(chat) is reply:
            del self.latest[chat]

    async def post(self, outbound: Outbound, reply: Reply) -> discord.Message | None:
        """A public message of the table as an answer to ``reply``'s interaction: the
        lobby or options edited in place when their own button was pressed, anything else
        a public follow-up (the lobby with the notice of what cannot work here).

        Raises:
            discord.HTTPException: Discord did not take it (the token expired, say).
        """
        interaction = reply.interaction
        if outbound.kind == "lobby":
            texts = await asyncio.to_thread(self._texts, outbound.chat)
            text = f"{outbound.text}\n\n{texts('discord.answers.notice')}"
            outbound = dataclasses.replace(outbound, text=text)
        if (
            outbound.kind in IN_PLACE
            and reply.component
            and reply.kind == outbound.kind
            and not reply.edited
        ):
            reply.edited = True
            await interaction.edit_original_response(**edit_kwargs(outbound))
            return None
        if not reply.component and not reply.answered and not reply.placeholder:
            # A slash command's "thinking" answer is private; its first follow-up would
            # complete it, private too. A short note completes it instead (it is removed
            # once the command is done), so the table's message is public.
            texts = await asyncio.to_thread(self._texts, outbound.chat)
            await interaction.edit_original_response(content=texts("discord.answers.below"))
            reply.placeholder = True
        message: discord.Message = await interaction.followup.send(
            wait=True, **send_kwargs(outbound)
        )
        return message
