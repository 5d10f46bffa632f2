"""Slash commands and buttons in: each acknowledged at once, then carried out.

Every slash command and button is acknowledged at once (Discord allows three seconds),
then the service runs in a worker thread, so rendering or a computer player's thinking
never blocks other tables. What the service says goes out through
:mod:`bot.discord.delivery`; whatever is for the person who acted only is answered
privately (ephemeral).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.core.outbound import Chat, Outbound, User
from bot.core.table import Table
from bot.discord.clock import Clock
from bot.discord.commands import Look
from bot.discord.delivery import Delivery
from bot.discord.failures import why
from bot.discord.lobby import Lobby
from bot.discord.parts import Part, title
from bot.discord.private import Private, Reply
from bot.discord.shards import Shards
from bot.discord.threads import Threads
from bot.discord.views import ACTIVITY, outbound_view
from bot.pages.links import note_press
from bot.service import Service
from bot.store import StoreError
from bot.words.texts import Texts, shown_name

log = logging.getLogger(__name__)


def in_bots_dm(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction came in the person's direct messages with the bot."""
    return interaction.guild_id is None and bool(interaction.context.dm_channel)


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Whether the person may manage the server (change options, kick, abort any table)."""
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


class Interactions(Part):
    """What people do: slash commands, buttons, and the autocomplete as they type."""

    def __init__(
        self,
        client: discord.Client,
        service: Service,
        *,
        delivery: Delivery,
        private: Private,
        lobby: Lobby,
        shards: Shards,
        clock: Clock,
        threads: Threads,
    ) -> None:
        """
        Args:
            delivery: sends what the service says.
            private: opens a person's direct messages again when they ask for their tiles.
            lobby: takes the buttons off a closed table's messages.
            shards: notes the guild of a table's channel for the process doing its due work.
            clock: the table's lock, its due work after a command, and the wake-up.
            threads: the table a command is for (a thread's, with threads on).
        """
        super().__init__(client, service)
        self.delivery = delivery
        self.private = private
        self.lobby = lobby
        self.shards = shards
        self.clock = clock
        self.threads = threads

    async def run_command(
        self,
        interaction: discord.Interaction[Any],
        command: str | Callable[[Table | None], str],
        *,
        quiet: bool = False,
    ) -> None:
        """A slash command: acknowledged at once (privately), then carried out.

        ``command`` is the command text, or makes it from the table (``/play`` depends on
        the game being played).
        """
        await self._acknowledge(interaction, ephemeral=True, thinking=True)
        reply = Reply(interaction, str(interaction.user.id), quiet=quiet)
        chat = str(interaction.channel_id)
        if not isinstance(command, str):
            command = command(await self._table(chat))
        chat = await self.threads.table_chat(interaction, chat, command)
        await self.delivery.answers.saw(chat, reply)
        await self._carry_out(reply, chat, command)
        if not reply.answered or reply.placeholder:
            # Everything went to the channel (or followed the short note that let it be
            # public): the "thinking..." note has done its job.
            try:
                await interaction.delete_original_response()
            except Exception as exc:
                log.debug("could not remove the acknowledgement: %s", why(exc))

    async def _table(self, chat: str) -> Table | None:
        """The table, for what the command text depends on; ``None`` while the store does
        not answer (the service then answers the command itself, in the table's language)."""
        try:
            return await asyncio.to_thread(self.service.table, chat)
        except StoreError as exc:
            log.info("could not read table %s before its command: %s", chat, exc)
            return None

    async def _acknowledge(self, interaction: discord.Interaction[Any], **kw: Any) -> None:
        """Tell Discord the interaction arrived. If that fails (its token expired, Discord
        did not answer), the command is carried out all the same: the person meant it, and
        what it does is shown in the channel."""
        try:
            await interaction.response.defer(**kw)
        except Exception as exc:
            log.warning("could not acknowledge an interaction: %s", why(exc))

    async def press(
        self, interaction: discord.Interaction[Any], chat: str, kind: str, command: str
    ) -> None:
        """A button: acknowledged at once without a visible answer, then carried out."""
        if command == ACTIVITY:
            await self.launch(interaction, chat)
            return
        await self._acknowledge(interaction)
        reply = Reply(interaction, str(interaction.user.id), component=True, kind=kind)
        await self.delivery.answers.saw(chat, reply)
        await self._carry_out(reply, chat, command)

    async def launch(self, interaction: discord.Interaction[Any], chat: str) -> None:
        """A board button with ``[discord] activity`` on: the board opened inside Discord
        (``LAUNCH_ACTIVITY``), the press noted so the Activity finds this table wherever
        Discord runs it. Where Discord will not launch it (Activities off for the app, a
        place without them), the person gets the page's link privately, as without."""
        user = str(interaction.user.id)
        try:
            await asyncio.to_thread(note_press, self.service, user, chat, self.service.clock())
        except StoreError as exc:
            log.info("could not note the board button's press: %s", exc)
        try:
            await interaction.response.launch_activity()
            return
        except Exception as exc:
            log.warning("could not launch the board as an Activity: %s", why(exc))
        try:
            table = await asyncio.to_thread(self.service.table, chat)
            kind = "rack" if table is not None and table.seat_of(user) is not None else "turn"
            link = Outbound(chat, "", kind, user=user if kind == "rack" else None)
            linked = await asyncio.to_thread(self.service.web_links, link)
            await interaction.response.send_message(
                view=outbound_view(linked) or discord.utils.MISSING, ephemeral=True
            )
        except Exception as exc:
            log.info("could not give the board's link either: %s", why(exc))

    async def _carry_out(self, reply: Reply, chat: str, command: str) -> None:
        interaction = reply.interaction
        user = User(reply.user, interaction.user.display_name)
        channel = interaction.channel if str(interaction.channel_id) == chat else None
        direct = channel is not None and in_bots_dm(interaction)
        if direct:
            # The bot's DM has no name: the table is the person's direct messages, and
            # its turn messages are linked from /games as Discord links DMs (@me).
            texts = await asyncio.to_thread(self._texts, chat)
            name = texts("discord.dm_title", name=shown_name(interaction.user.display_name))
            where = Chat(chat, name)
            await self.shards.note_guild(chat, None)
        else:
            where = Chat(chat, title(channel or self.client.get_channel(int(chat))))
        admin = is_admin(interaction)
        if command.split()[0] == "/hand":
            await self.private.reopen(reply, chat)
        async with self.clock.lock(chat):
            try:
                out = await asyncio.to_thread(
                    self.service.handle, where, user, command, admin=admin
                )
            except Exception:
                log.exception("%s at table %s failed", command.split()[0], chat)
                texts = await asyncio.to_thread(self._texts, chat)
                out = [Outbound(chat, texts("discord.failed"), "error")]
            await self.delivery.deliver(out, reply)
        if not any(o.kind == "error" for o in out):
            if self.shards.running() is not None:
                # Once per table and process: which shard's process does its due work.
                await self.shards.note_guild(chat, interaction.guild_id)
            if command.split()[0] == "/abort":
                # A closed table has no live buttons: nothing on its messages works now.
                async with self.delivery.post_lock(chat):
                    await self.lobby.retire_all(chat)
            await self.clock.due(chat, reply)
            self.clock.wake()

    async def from_page(self, chat: str, user: User, text: str) -> list[Outbound]:
        """A command from the web board's page (docs/web.md): carried out as a typed one in
        its turn at the table, what the service says posted in the channel (its errors go
        back to the page), then computer players move. What the service said is returned."""
        async with self.clock.lock(chat):
            out = await asyncio.to_thread(self.service.handle, Chat(chat), user, text)
            await self.delivery.deliver([o for o in out if o.kind != "error"], None)
        if not any(o.kind == "error" for o in out):
            await self.clock.due(chat, None)
            self.clock.wake()
        return out

    async def look(self, interaction: discord.Interaction[Any], *, with_view: bool = False) -> Look:
        """The table of the interaction's channel, for autocomplete. While the store does
        not answer, no table (so no tiles, cells or seats to offer) and the texts of the
        language it spoke when last seen: Discord waits for no traceback."""
        chat, user = str(interaction.channel_id), str(interaction.user.id)

        def read() -> Look:
            try:
                table = self.service.table(chat)
                texts = Texts(table.options.lang if table else self.service.settings.language)
                seat = self.service.seat_look(chat, user) if with_view and table else None
            except StoreError as exc:
                log.info("autocomplete without table %s: %s", chat, exc)
                return Look(None, Texts(self.service.last_language(chat)))
            return Look(table, texts, seat)

        return await asyncio.to_thread(read)

    async def on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        log.error("slash command failed", exc_info=error)
        if interaction.type is discord.InteractionType.autocomplete:
            return
        texts = await asyncio.to_thread(self._texts, str(interaction.channel_id))
        text = texts("discord.failed")
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            pass
