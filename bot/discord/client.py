"""The Discord client: interactions in, the table service's outbounds out.

Every slash command and button is acknowledged at once (Discord allows three seconds),
then the service runs in a worker thread, so rendering or a computer player's thinking
never blocks other tables. What the service says goes out in Discord's idiom:

- a message to the chat is posted in the table's channel (or thread); a lobby or the
  options, changed by a button on them, are edited in place;
- a private message (a rack, a hint) and every error go only to the person who acted, as
  ephemeral answers; a rack for someone else reaches them by direct message if the
  ``dm`` setting is on, otherwise through the "My tiles" button on the turn message;
- failures to post or to send a direct message are logged and never stop the table.

A periodic task calls :meth:`Service.due` for computer players, reminders and timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import discord
from discord import app_commands

from bot.commands import AddBot, Command, CommandError, Join, SetOption, parse_command
from bot.discord import commands as discord_commands
from bot.discord.commands import Look
from bot.discord.messages import edit_kwargs, send_kwargs
from bot.discord.views import TableButton, view_for
from bot.outbound import Button, Chat, Outbound, User
from bot.service import Service
from bot.table import CLOSED, LOBBY, MAX_SEATS, Table
from bot.texts import Texts

log = logging.getLogger(__name__)

#: Seconds between two looks at the clock for computer players, reminders and timeouts.
DUE_EVERY = 10.0
#: Messages a button on them replaces in place, rather than posting a new one.
IN_PLACE = frozenset({"lobby", "options"})
#: A thread a table opens archives after a week without messages (Discord's longest).
THREAD_ARCHIVE_MINUTES: Final[Literal[10080]] = 10080


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


@dataclass
class _Tables:
    """Per-table bookkeeping of this process (nothing here needs to survive a restart)."""

    locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    #: Tables whose computer players or deadlines are being dealt with now.
    thinking: set[str] = field(default_factory=set)
    #: With threads on: the channel's thread whose table is still gathering players.
    gathering: dict[str, str] = field(default_factory=dict)

    def lock(self, chat: str) -> asyncio.Lock:
        return self.locks.setdefault(chat, asyncio.Lock())


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Whether the person may manage the server (change options, kick, abort any table)."""
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def _title(channel: Any) -> str:
    name = getattr(channel, "name", None)
    if not name:
        return ""
    guild = getattr(channel, "guild", None)
    return f"#{name} ({guild.name})" if guild is not None else f"#{name}"


def _opening(command: str) -> Command | None:
    """The command, if it opens a table where there is none (joining, seating a computer
    player, setting an option)."""
    try:
        parsed = parse_command(command)
    except CommandError:
        return None
    return parsed if isinstance(parsed, Join | AddBot | SetOption) else None


class GenialClient(discord.Client):
    """The bot on Discord: slash commands, persistent buttons and the periodic clock."""

    def __init__(
        self,
        service: Service,
        *,
        threads: bool = False,
        dm: bool = False,
        due_every: float = DUE_EVERY,
    ) -> None:
        """
        Args:
            service: the table service (its store holds every table).
            threads: open a thread for each new table instead of using the channel.
            dm: send racks to players who did not ask by direct message too.
            due_every: seconds between two calls of :meth:`Service.due`.
        """
        # No privileged intents: slash commands and buttons arrive as interactions; the
        # guilds intent only keeps channels and threads in the cache.
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents, allowed_mentions=discord.AllowedMentions.none())
        self.service = service
        self.threads = threads
        self.dm = dm
        self.due_every = due_every
        self.tree: app_commands.CommandTree[GenialClient] = app_commands.CommandTree(self)
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]
        discord_commands.install(self.tree)
        self._tables = _Tables()
        self._clock_task: asyncio.Task[None] | None = None

    # --- life cycle ---------------------------------------------------------------------

    async def setup_hook(self) -> None:
        # Buttons are answered from their custom ids alone, so messages sent before a
        # restart keep working.
        self.add_dynamic_items(TableButton)
        try:
            await self.tree.sync()
        except discord.HTTPException as exc:
            log.error("could not register the slash commands: %s", exc)
        self._clock_task = asyncio.create_task(self._clock(), name="genial-due")

    async def close(self) -> None:
        if self._clock_task is not None:
            self._clock_task.cancel()
        await super().close()

    async def _clock(self) -> None:
        await self.wait_until_ready()
        while not self.is_closed():
            try:
                await self.tick()
            except Exception:
                log.exception("the periodic look at the clock failed")
            await asyncio.sleep(self.due_every)

    async def tick(self) -> None:
        """Everything due now at tables nobody is acting at this moment."""
        service = self.service
        due = await asyncio.to_thread(lambda: service.store.due(service.clock()))
        idle = [c for c in due if not self._tables.lock(c).locked()]
        await asyncio.gather(*(self._due(chat, None) for chat in idle))

    # --- interactions -------------------------------------------------------------------

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
        await interaction.response.defer(ephemeral=True, thinking=True)
        reply = Reply(interaction, str(interaction.user.id), quiet=quiet)
        chat = str(interaction.channel_id)
        if not isinstance(command, str):
            command = command(await asyncio.to_thread(self.service.table, chat))
        chat = await self._table_chat(interaction, chat, command)
        await self._carry_out(reply, chat, command)
        if not reply.answered:
            # Everything went to the channel: the "thinking..." note has done its job.
            try:
                await interaction.delete_original_response()
            except discord.HTTPException as exc:
                log.debug("could not remove the acknowledgement: %s", exc)

    async def press(
        self, interaction: discord.Interaction[Any], chat: str, kind: str, command: str
    ) -> None:
        """A button: acknowledged at once without a visible answer, then carried out."""
        await interaction.response.defer()
        reply = Reply(interaction, str(interaction.user.id), component=True, kind=kind)
        await self._carry_out(reply, chat, command)

    async def _carry_out(self, reply: Reply, chat: str, command: str) -> None:
        interaction = reply.interaction
        user = User(reply.user, interaction.user.display_name)
        channel = interaction.channel if str(interaction.channel_id) == chat else None
        where = Chat(chat, _title(channel or self.get_channel(int(chat))))
        admin = is_admin(interaction)
        async with self._tables.lock(chat):
            try:
                out = await asyncio.to_thread(
                    self.service.handle, where, user, command, admin=admin
                )
            except Exception:
                log.exception("%s at table %s failed", command.split()[0], chat)
                out = [Outbound(chat, self._texts(chat)("discord.failed"), "error")]
            await self.deliver(out, reply)
        if not any(o.kind == "error" for o in out):
            await self._due(chat, reply)

    async def _due(self, chat: str, reply: Reply | None) -> None:
        """Computer players' turns (and deadlines) at one table, in a worker thread."""
        tables = self._tables
        if chat in tables.thinking:
            return
        tables.thinking.add(chat)
        try:
            out = await asyncio.to_thread(self.service.due, None, chat=chat)
            await self.deliver(out, reply)
        except Exception:
            log.exception("computer players or deadlines at table %s failed", chat)
        finally:
            tables.thinking.discard(chat)

    async def look(self, interaction: discord.Interaction[Any], *, with_view: bool = False) -> Look:
        """The table of the interaction's channel, for autocomplete."""
        chat, user = str(interaction.channel_id), str(interaction.user.id)

        def read() -> Look:
            table = self.service.table(chat)
            texts = Texts(table.options.lang if table else self.service.settings.language)
            seat = self.service.seat_look(chat, user) if with_view and table else None
            return Look(table, texts, seat)

        return await asyncio.to_thread(read)

    def _texts(self, chat: str) -> Texts:
        try:
            table = self.service.table(chat)
        except Exception:
            table = None
        return Texts(table.options.lang if table else self.service.settings.language)

    async def _on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        log.error("slash command failed", exc_info=error)
        if interaction.type is discord.InteractionType.autocomplete:
            return
        text = self._texts(str(interaction.channel_id))("discord.failed")
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            pass

    # --- threads ------------------------------------------------------------------------

    async def _table_chat(
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
        service, gathering = self.service, self._tables.gathering.get(chat)

        def current() -> tuple[Table | None, Table | None]:
            return service.table(chat), service.table(gathering) if gathering else None

        here, there = await asyncio.to_thread(current)
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
        name = texts("discord.thread_name", name=interaction.user.display_name)[:100]
        try:
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.HTTPException as exc:
            log.warning("could not open a thread in channel %s, playing there: %s", chat, exc)
            return chat
        self._tables.gathering[chat] = str(thread.id)
        text = texts(
            "discord.thread_opened", name=interaction.user.display_name, thread=thread.mention
        )
        view = view_for((Button(texts("button.join"), "/join"),), str(thread.id), "announce")
        try:
            await self._send(channel, Outbound(chat, text), view=view)
        except discord.HTTPException as exc:
            log.warning("could not announce the thread in channel %s: %s", chat, exc)
        return str(thread.id)

    # --- delivery -----------------------------------------------------------------------

    async def deliver(self, out: list[Outbound], reply: Reply | None) -> None:
        """Send each outbound in Discord's idiom; a failure is logged and skipped."""
        for outbound in out:
            try:
                await self._deliver(outbound, reply)
            except discord.HTTPException as exc:
                log.warning(
                    "could not deliver a %s message for table %s: %s %s",
                    outbound.kind,
                    outbound.chat,
                    exc.status,
                    exc.text,
                )
                if reply is not None and outbound.user is None:
                    # The channel did not take it (a missing permission?): at least the
                    # person who acted learns what happened.
                    with contextlib.suppress(discord.HTTPException):
                        await self._answer(reply, outbound)

    async def _deliver(self, outbound: Outbound, reply: Reply | None) -> None:
        if outbound.user is not None:
            if reply is not None and outbound.user == reply.user:
                await self._answer(reply, outbound)
            elif self.dm:
                await self._direct(outbound)
            return
        if reply is not None and (outbound.kind == "error" or reply.quiet):
            await self._answer(reply, outbound)
            return
        if (
            reply is not None
            and reply.component
            and not reply.edited
            and outbound.kind in IN_PLACE
            and outbound.kind == reply.kind
        ):
            reply.edited = True
            await reply.interaction.edit_original_response(**edit_kwargs(outbound))
            return
        channel = self.get_channel(int(outbound.chat)) or self.get_partial_messageable(
            int(outbound.chat)
        )
        await self._send(channel, outbound)

    async def _answer(self, reply: Reply, outbound: Outbound) -> None:
        """Privately to the person who acted (an ephemeral message)."""
        await reply.interaction.followup.send(ephemeral=True, **send_kwargs(outbound))
        reply.answered = True

    async def _direct(self, outbound: Outbound) -> None:
        assert outbound.user is not None
        user = self.get_user(int(outbound.user)) or await self.fetch_user(int(outbound.user))
        await user.send(**send_kwargs(outbound))

    async def _send(
        self, channel: Any, outbound: Outbound, view: discord.ui.View | None = None
    ) -> None:
        kw = send_kwargs(outbound)
        if view is not None:
            kw["view"] = view
        await channel.send(**kw)
