"""The Discord client: interactions in, the table service's outbounds out.

Every slash command and button is acknowledged at once (Discord allows three seconds),
then the service runs in a worker thread, so rendering or a computer player's thinking
never blocks other tables. What the service says goes out in Discord's idiom:

- a message to the chat is posted in the table's channel (or thread); a lobby or the
  options are edited in place, whether a button or a slash command changed them, unless
  they scrolled away (then they are posted anew);
- only the newest messages keep live buttons: when the turn passes, the buttons come off
  the previous turn message, and off the lobby and options once the game runs;
- a private message (a rack, a hint) and every error go only to the person who acted, as
  ephemeral answers; a rack for someone else reaches them by direct message if the
  ``dm`` setting is on (unless their direct messages turned out closed, until they ask for
  their tiles again), otherwise through the "My tiles" button on the turn message;
- failures to post or to send a direct message are logged and never stop the table.

When Discord misbehaves (rate limits, server errors, timeouts, dropped connections, a
missing permission), a table's public messages wait in its outbox, in order, and go out
once Discord takes them again: each carries a nonce Discord enforces, so a message whose
answer was lost on the way is not posted twice. A table whose channel is gone (deleted,
or the bot removed from the server) is closed as an admin's ``/abort`` would close it, so
its computer players stop.

What must survive a restart is kept in the store as notes beside the table (see
:meth:`Service.note`): the lobby's, the options' and the turn's message ids, a channel's
thread that gathers players, who has closed direct messages.

A clock task calls :meth:`Service.due` for computer players, reminders and timeouts: it
sleeps until the next due time (:meth:`Service.next_due`), at most :data:`MAX_SLEEP`, and
wakes at once after every command, since a command may make something due sooner.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import discord
from discord import app_commands

from bot.commands import AddBot, Command, CommandError, Join, SetOption, parse_command
from bot.discord import commands as discord_commands
from bot.discord.commands import Look
from bot.discord.messages import direct_kwargs, edit_kwargs, jump_url, send_kwargs
from bot.discord.translator import CatalogueTranslator
from bot.discord.views import TableButton, view_for
from bot.outbound import Button, Chat, Outbound, User, with_links
from bot.service import Service
from bot.table import CLOSED, LOBBY, MAX_SEATS, Table
from bot.texts import Texts

log = logging.getLogger(__name__)

#: The longest the clock sleeps between two looks at the store (a safety net: the next due
#: time is known, and a command wakes the clock).
MAX_SLEEP = 60.0
#: How long the clock waits when something stays due after a look (a table busy with a
#: command, which deals with it itself, or one that fails), rather than spinning.
RETRY_SLEEP = 5.0
#: Messages edited in place rather than posted anew, while they have not scrolled away.
IN_PLACE = frozenset({"lobby", "options"})
#: A message with this many messages after it has scrolled away: a change posts it anew.
SCROLLED = 5
#: Notes (kept in the store across restarts): the message ids of the open lobby, options
#: and turn message of a table, a channel's thread gathering players, closed DMs.
NOTE_MESSAGE = "discord.message.{kind}"
NOTE_THREAD = "discord.thread"
NOTE_NO_DM = "discord.no_dm.{user}"
#: The table's latest turn (or result) message, for jump URLs to it (/games, turn pings):
#: ``<guild id or @me>/<message id>``.
NOTE_LATEST = "discord.latest"
#: The guild a table's channel is in (:data:`DIRECT` for a direct-message channel), noted
#: when a command there is handled: a process running some of the shards tells from it
#: which due tables are its own, without asking Discord.
NOTE_GUILD = "discord.guild"
DIRECT = "dm"
#: How long a process waits before asking Discord again about the channel of a due table
#: whose guild it could not tell (the channel is gone for the bot, or Discord failed).
UNKNOWN_RETRY = 3600.0
#: A thread a table opens archives after a week without messages (Discord's longest).
THREAD_ARCHIVE_MINUTES: Final[Literal[10080]] = 10080
#: Waits before posting a table's held-back messages again: doubling from the first, up to
#: the last (unless Discord says how long to wait). discord.py has already retried for a
#: few seconds before a failure reaches us, so the first wait is not short either.
RETRY_FIRST = 8.0
RETRY_LONGEST = 300.0
#: How long a message waits in an outbox at most; then it is given up, with a warning.
PATIENCE = 24 * 3600.0
#: Discord's error codes that mean the channel is gone for the bot: Unknown Channel (it was
#: deleted), Missing Access (the bot was removed or may no longer see it).
GONE_CODES = frozenset({10003, 50001})
#: Missing Permissions: someone may grant it again, so the messages wait.
MISSING_PERMISSIONS = 50013

#: What to do about a failed call: try again later, close the table, or give it up.
RETRY, GONE, DROP = "retry", "gone", "drop"


def failure(exc: BaseException) -> tuple[str, float | None]:
    """What a failed call to Discord means: (:data:`RETRY`, :data:`GONE` or :data:`DROP`,
    the wait Discord asked for, if it did). discord.py has already retried rate limits,
    server errors and reset connections a few times before an error reaches us."""
    if isinstance(exc, discord.RateLimited):
        return RETRY, exc.retry_after
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            return RETRY, _retry_after(exc)
        if exc.status >= 500 or exc.code == MISSING_PERMISSIONS:
            return RETRY, None
        if exc.code in GONE_CODES:
            return GONE, None
        return DROP, None  # a request Discord will never take (our mistake): not again
    # Timeouts, dropped connections, a gateway that went away: the call may or may not have
    # reached Discord; the nonce keeps a second try from doubling a message.
    return RETRY, None


def shard_of(guild: int | None, shard_count: int) -> int:
    """The shard that receives a guild's events, by Discord's formula; direct messages come
    on shard 0."""
    return 0 if guild is None else (guild >> 22) % shard_count


def _retry_after(exc: discord.HTTPException) -> float | None:
    headers = getattr(exc.response, "headers", None) or {}
    try:
        return float(headers.get("Retry-After", ""))
    except ValueError:
        return None


def _why(exc: BaseException) -> str:
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.text}".strip()
    return type(exc).__name__


@dataclass
class Pending:
    """A public message waiting in a table's outbox."""

    outbound: Outbound
    reply: Reply | None
    #: Discord keeps the first message sent with a nonce and answers a second send with
    #: the same nonce (a retry after a lost answer) with that message.
    nonce: int
    since: float
    #: The person who acted has been told privately what the channel did not get.
    told: bool = False


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


@dataclass
class _Tables:
    """Per-table bookkeeping of this process (nothing here needs to survive a restart)."""

    locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    #: One table's public messages go out one after another (each reads and writes notes).
    posting: dict[str, asyncio.Lock] = field(default_factory=dict)
    #: Tables whose computer players or deadlines are being dealt with now.
    thinking: set[str] = field(default_factory=set)
    #: Public messages Discord did not take yet, per table, in order.
    outbox: dict[str, deque[Pending]] = field(default_factory=dict)
    #: When to try a table's outbox again, and how many tries failed in a row.
    retry_at: dict[str, float] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    #: Tables where Discord said how long to wait (a rate limit): no try before that.
    told_to_wait: set[str] = field(default_factory=set)

    def forget(self, chat: str) -> None:
        """No message waits for the table any more."""
        self.outbox.pop(chat, None)
        self.retry_at.pop(chat, None)
        self.failures.pop(chat, None)
        self.told_to_wait.discard(chat)

    def lock(self, chat: str) -> asyncio.Lock:
        return self.locks.setdefault(chat, asyncio.Lock())

    def post_lock(self, chat: str) -> asyncio.Lock:
        return self.posting.setdefault(chat, asyncio.Lock())


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
        max_sleep: float = MAX_SLEEP,
    ) -> None:
        """
        Args:
            service: the table service (its store holds every table).
            threads: open a thread for each new table instead of using the channel.
            dm: send racks to players who did not ask by direct message too.
            max_sleep: the longest the clock sleeps between two looks at the store.
        """
        # No privileged intents: slash commands and buttons arrive as interactions; the
        # guilds intent only keeps channels and threads in the cache.
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents, allowed_mentions=discord.AllowedMentions.none())
        self.service = service
        self.threads = threads
        self.dm = dm
        self.max_sleep = max_sleep
        self.tree: app_commands.CommandTree[GenialClient] = app_commands.CommandTree(self)
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]
        discord_commands.install(self.tree)
        self._tables = _Tables()
        self._clock_task: asyncio.Task[None] | None = None
        self._nap: asyncio.Task[None] | None = None
        self._woken = False
        #: The guild of each table's channel this process has learnt (``None``: a
        #: direct-message channel). A channel never changes guild, so this is kept.
        self._guilds: dict[str, int | None] = {}
        #: Due tables whose guild could not be told, with when to ask Discord again.
        self._unknown: dict[str, float] = {}

    # --- life cycle ---------------------------------------------------------------------

    async def setup_hook(self) -> None:
        # Buttons are answered from their custom ids alone, so messages sent before a
        # restart keep working.
        self.add_dynamic_items(TableButton)
        # The menu texts in German, Dutch and French go along with the commands.
        await self.tree.set_translator(CatalogueTranslator())
        try:
            await self.tree.sync()
        except discord.HTTPException as exc:
            log.error("could not register the slash commands: %s", exc)
        self._clock_task = asyncio.create_task(self._clock(), name="genial-due")

    async def close(self) -> None:
        if self._clock_task is not None:
            self._clock_task.cancel()
        await super().close()

    async def on_resumed(self) -> None:
        # Back after a gateway disconnect: the network is, most likely, so what waits in
        # the outboxes goes out now rather than after the longest wait.
        log.info("the gateway connection is back")
        for chat in list(self._tables.outbox):
            await self._flush(chat, eager=True)
        self.wake()

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self._gone(str(channel.id), "the channel was deleted")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._gone(str(payload.thread_id), "the thread was deleted")

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        chats = [str(c.id) for c in guild.channels] + [str(t.id) for t in guild.threads]
        for chat in chats:
            await self._gone(chat, "the bot left the server")

    async def _clock(self) -> None:
        await self.wait_until_ready()
        while not self.is_closed():
            self._woken = False
            try:
                await self.tick()
            except Exception:
                log.exception("the look at the clock failed")
            seconds = await self._until_due()
            if not self._woken:  # (else a command ended meanwhile: look again at once)
                await self._sleep(seconds)

    async def _until_due(self) -> float:
        """Seconds to sleep until the next due time (at most :attr:`max_sleep`)."""
        try:
            due = await asyncio.to_thread(self.service.next_due)
        except Exception:
            log.exception("could not read the next due time")
            return self.max_sleep
        waiting = self._tables.retry_at.values()
        due = min([*([due] if due is not None else []), *waiting], default=None)
        if due is None:
            return self.max_sleep
        wait = due - self.service.clock()
        if wait <= 0:
            return min(RETRY_SLEEP, self.max_sleep)
        # A hair past the due time, so the look at the store finds it due.
        return min(wait + 0.01, self.max_sleep)

    async def _sleep(self, seconds: float) -> None:
        """Sleep, unless :meth:`wake` cuts it short."""
        nap = asyncio.create_task(asyncio.sleep(seconds), name="genial-nap")
        self._nap = nap
        try:
            await asyncio.wait({nap})
        finally:
            nap.cancel()
            self._nap = None

    def wake(self) -> None:
        """Look at the clock now: a command may have made something due sooner."""
        self._woken = True
        if self._nap is not None:
            self._nap.cancel()

    async def tick(self) -> None:
        """Everything due now at tables nobody is acting at this moment."""
        service = self.service
        now = service.clock()
        held = [c for c, at in self._tables.retry_at.items() if at <= now]
        for chat in held:
            await self._flush(chat)
        due = await asyncio.to_thread(service.due_tables)
        idle = [c for c in due if not self._tables.lock(c).locked()]
        if self._shards() is not None:
            # Filtered before anything is claimed: another process's tables are left to
            # it, and what this process claims it can deliver through its own shards.
            idle = [c for c in idle if await self._ours(c)]
        await asyncio.gather(*(self._due(chat, None) for chat in idle))

    # --- shards -------------------------------------------------------------------------

    def _shards(self) -> frozenset[int] | None:
        """The shards this process runs, ``None`` if it runs all of them (one process, or
        an ``AutoShardedClient`` given no shard ids): then every table is its own."""
        count = self.shard_count
        ids = getattr(self, "shard_ids", None)
        if not isinstance(self, discord.AutoShardedClient) or count is None or ids is None:
            return None
        mine = frozenset(int(i) for i in ids)
        return None if mine >= frozenset(range(count)) else mine

    async def _ours(self, chat: str) -> bool:
        """Whether the table's guild is on one of this process's shards, so that its due
        work is done here. A table whose guild cannot be told is left alone: the process
        that sees its channel will tell (and note) it."""
        shards, count = self._shards(), self.shard_count
        if shards is None or count is None:
            return True
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
        channel: Any = self.get_channel(int(chat))
        if channel is None:
            try:
                channel = await self.fetch_channel(int(chat))
            except Exception as exc:
                self._unknown[chat] = now + UNKNOWN_RETRY
                log.info("could not tell the guild of table %s: %s", chat, _why(exc))
                return False
        self._unknown.pop(chat, None)
        guild = getattr(channel, "guild", None)
        await self._note_guild(chat, None if guild is None else int(guild.id))
        return True

    async def _note_guild(self, chat: str, guild: int | None) -> None:
        """Keep the guild of a table's channel, in this process and for the others."""
        if chat in self._guilds:
            return
        self._guilds[chat] = guild
        await self._set_note(chat, NOTE_GUILD, DIRECT if guild is None else str(guild))

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
        await self._acknowledge(interaction, ephemeral=True, thinking=True)
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
            except Exception as exc:
                log.debug("could not remove the acknowledgement: %s", _why(exc))

    async def _acknowledge(self, interaction: discord.Interaction[Any], **kw: Any) -> None:
        """Tell Discord the interaction arrived. If that fails (its token expired, Discord
        did not answer), the command is carried out all the same: the person meant it, and
        what it does is shown in the channel."""
        try:
            await interaction.response.defer(**kw)
        except Exception as exc:
            log.warning("could not acknowledge an interaction: %s", _why(exc))

    async def press(
        self, interaction: discord.Interaction[Any], chat: str, kind: str, command: str
    ) -> None:
        """A button: acknowledged at once without a visible answer, then carried out."""
        await self._acknowledge(interaction)
        reply = Reply(interaction, str(interaction.user.id), component=True, kind=kind)
        await self._carry_out(reply, chat, command)

    async def _carry_out(self, reply: Reply, chat: str, command: str) -> None:
        interaction = reply.interaction
        user = User(reply.user, interaction.user.display_name)
        channel = interaction.channel if str(interaction.channel_id) == chat else None
        where = Chat(chat, _title(channel or self.get_channel(int(chat))))
        admin = is_admin(interaction)
        if self.dm and command.split()[0] == "/hand":
            # Asking for the tiles is asking for direct messages again.
            key = NOTE_NO_DM.format(user=reply.user)
            if await self._note(chat, key) is not None:
                await self._set_note(chat, key, None)
                reply.reopened = True
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
            if self._shards() is not None:
                # Once per table and process: which shard's process does its due work.
                await self._note_guild(chat, interaction.guild_id)
            if command.split()[0] == "/abort":
                # A closed table has no live buttons: nothing on its messages works now.
                async with self._tables.post_lock(chat):
                    await self._retire_all(chat)
            await self._due(chat, reply)
            self.wake()

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
        service, gathering = self.service, await self._note(chat, NOTE_THREAD)

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
        except Exception as exc:
            log.warning("could not open a thread in channel %s, playing there: %s", chat, _why(exc))
            return chat
        await self._set_note(chat, NOTE_THREAD, str(thread.id))
        text = texts(
            "discord.thread_opened", name=interaction.user.display_name, thread=thread.mention
        )
        view = view_for((Button(texts("button.join"), "/join"),), str(thread.id), "announce")
        try:
            await self._send(channel, Outbound(chat, text), view=view)
        except Exception as exc:
            log.warning("could not announce the thread in channel %s: %s", chat, _why(exc))
        return str(thread.id)

    # --- delivery -----------------------------------------------------------------------

    async def deliver(self, out: list[Outbound], reply: Reply | None) -> None:
        """Send each outbound in Discord's idiom. A private one that fails is logged and
        skipped (the person can ask again); a public one waits in its table's outbox until
        Discord takes it."""
        chats: list[str] = []
        pings: list[Outbound] = []
        for outbound in out:
            if outbound.kind == "ping":
                pings.append(outbound)  # after the turn message, so its link leads there
                continue
            if outbound.user is None and not (
                reply is not None and (outbound.kind == "error" or reply.quiet)
            ):
                pending = Pending(outbound, reply, secrets.randbits(63), self.service.clock())
                self._tables.outbox.setdefault(outbound.chat, deque()).append(pending)
                chats.append(outbound.chat)
                continue
            try:
                await self._deliver_private(outbound, reply)
            except Exception as exc:
                log.warning(
                    "could not deliver a %s message for table %s: %s",
                    outbound.kind,
                    outbound.chat,
                    _why(exc),
                )
        for chat in dict.fromkeys(chats):
            # A new message tries the waiting ones again at once (unless Discord said how
            # long to wait): people act at their own pace, and Discord may be back.
            await self._flush(chat, eager=True)
        for ping in pings:
            try:
                await self._deliver_private(ping, reply)
            except Exception as exc:
                log.warning("could not ping %s for table %s: %s", ping.user, ping.chat, _why(exc))

    async def _deliver_private(self, outbound: Outbound, reply: Reply | None) -> None:
        if outbound.tables:  # /games: a jump URL to each table's latest message
            outbound = await self._with_links(outbound)
        if outbound.kind == "ping":
            # Asked for with /notify on, so sent by direct message even where racks are
            # not (the server's dm switch); dropped for a person whose DMs are closed.
            assert outbound.user is not None
            await self._direct(outbound)
            return
        if outbound.user is None:
            assert reply is not None
            await self._answer(reply, outbound)
        elif reply is not None and outbound.user == reply.user:
            await self._answer(reply, outbound)
        elif self.dm:
            await self._direct(outbound)

    async def _flush(self, chat: str, *, eager: bool = False) -> None:
        """Post a table's waiting public messages, in order, until Discord refuses one (then
        the clock tries again later) or the outbox is empty."""
        tables = self._tables
        gone: BaseException | None = None
        async with tables.post_lock(chat):
            box = tables.outbox.get(chat)
            early = tables.retry_at.get(chat, 0.0) > self.service.clock()
            if box and early and (not eager or chat in tables.told_to_wait):
                return  # waiting for Discord: the clock tries again
            while box:
                pending = box[0]
                try:
                    await self._post(pending)
                except Exception as exc:
                    what, wait = failure(exc)
                    if what == GONE:
                        gone = exc
                        break
                    await self._held_back(chat, pending, exc, what, wait)
                    if what == RETRY and box and box[0] is pending:
                        return
                    continue
                box.popleft()
                tables.failures.pop(chat, None)
            tables.forget(chat)
        if gone is not None:
            await self._gone(chat, _why(gone))

    async def _held_back(
        self, chat: str, pending: Pending, exc: BaseException, what: str, wait: float | None
    ) -> None:
        """A public message Discord did not take: wait and try again (or, if Discord will
        never take it or it waited too long, give it up); the person who acted is told
        privately what the channel did not get."""
        tables, now = self._tables, self.service.clock()
        kind = pending.outbound.kind
        if what == DROP or now - pending.since > PATIENCE:
            log.warning("gave up a %s message for table %s: %s", kind, chat, _why(exc))
            tables.outbox[chat].popleft()
        else:
            tries = tables.failures[chat] = tables.failures.get(chat, 0) + 1
            if wait is None:
                tables.told_to_wait.discard(chat)
                wait = min(RETRY_FIRST * 2 ** (tries - 1), RETRY_LONGEST)
            else:
                tables.told_to_wait.add(chat)
            tables.retry_at[chat] = now + wait
            log.warning(
                "could not deliver a %s message for table %s: %s; trying again in %.0f s",
                kind,
                chat,
                _why(exc),
                wait,
            )
            self.wake()
        reply = pending.reply
        if reply is not None and not pending.told:
            pending.told = True
            # At least the person who acted learns at once what happened.
            try:
                await self._answer(reply, pending.outbound)
            except Exception as answer_exc:
                log.info("could not answer privately either: %s", _why(answer_exc))

    async def _post(self, pending: Pending) -> None:
        outbound = pending.outbound
        if outbound.kind in IN_PLACE:
            await self._in_place(outbound, pending.reply, pending.nonce)
        else:
            channel = self._channel(outbound.chat)
            message = await self._send(channel, outbound, nonce=pending.nonce)
            await self._retire(outbound, message)
            if outbound.kind in ("turn", "result"):
                await self._note_latest(outbound.chat, channel, message)

    async def _note_latest(self, chat: str, channel: Any, message: discord.Message) -> None:
        """Keep the table's newest turn message (and its server) for jump URLs to it."""
        guild = getattr(message.guild or getattr(channel, "guild", None), "id", None)
        if guild is None and not isinstance(channel, discord.DMChannel):
            return  # a channel not in the cache: without its server no jump URL works
        where = "@me" if guild is None else str(guild)
        await self._set_note(chat, NOTE_LATEST, f"{where}/{message.id}")

    async def _latest_link(self, chat: str) -> str | None:
        """The jump URL of the table's latest turn message; ``None`` if none was noted."""
        where, _, message = (await self._note(chat, NOTE_LATEST) or "").partition("/")
        if not message.isdigit() or not (where == "@me" or where.isdigit()):
            return None
        return jump_url(where, chat, message)

    async def _with_links(self, outbound: Outbound) -> Outbound:
        """A listing of tables (/games) with a jump URL to each table's latest message."""
        texts = await asyncio.to_thread(self._texts, outbound.chat)
        links: dict[str, str] = {}
        for table in outbound.tables:
            link = await self._latest_link(table)
            if link is not None:
                links[table] = texts("games.link", link=link)
        return with_links(outbound, links)

    async def _gone(self, chat: str, why: str) -> None:
        """The table's channel is gone for the bot: close the table as an admin's ``/abort``
        would (its computer players stop), and forget what waited to be posted there."""
        tables = self._tables
        tables.forget(chat)
        service = self.service
        try:
            table = await asyncio.to_thread(service.table, chat)
        except Exception:
            log.exception("could not look at table %s", chat)
            return
        if table is None or table.status == CLOSED:
            return
        me = self.user
        user = User(str(me.id) if me else "0", me.display_name if me else "Genial")
        # Not under the table's lock: a command holding it may be what found the channel
        # gone (the service keeps its own lock around the store).
        try:
            await asyncio.to_thread(service.handle, Chat(chat), user, "/abort", admin=True)
        except Exception:
            log.exception("could not close table %s", chat)
            return
        # What /abort says goes nowhere: there is no channel to say it in.
        tables.forget(chat)
        log.warning("closed table %s: its channel is gone (%s)", chat, why)

    def _channel(self, chat: str) -> Any:
        return self.get_channel(int(chat)) or self.get_partial_messageable(int(chat))

    async def _in_place(self, outbound: Outbound, reply: Reply | None, nonce: int) -> None:
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
                log.info("could not edit through the interaction: %s", _why(exc))
        channel = self._channel(chat)
        if old is not None and await self._near(channel, int(old)):
            try:
                await channel.get_partial_message(int(old)).edit(**edit_kwargs(outbound))
                return
            except discord.NotFound as exc:  # deleted meanwhile: post it anew
                log.info("could not edit the %s of table %s: %s", outbound.kind, chat, _why(exc))
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
            log.info("could not read the history of %s: %s", channel.id, _why(exc))
            return False
        return len(later) < SCROLLED

    async def _retire(self, outbound: Outbound, message: discord.Message) -> None:
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
            await self._retire_all(chat, IN_PLACE)

    async def _retire_all(self, chat: str, kinds: Iterable[str] = (*IN_PLACE, "turn")) -> None:
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
            log.info("could not take the buttons off message %s: %s", message, _why(exc))

    async def _answer(self, reply: Reply, outbound: Outbound) -> None:
        """Privately to the person who acted (an ephemeral message)."""
        if reply.reopened and outbound.kind == "rack":
            texts = await asyncio.to_thread(self._texts, outbound.chat)
            extra = texts("discord.dm_reopened", hand=texts("button.hand"))
            outbound = dataclasses.replace(outbound, text=f"{outbound.text}\n{extra}")
        await reply.interaction.followup.send(ephemeral=True, **send_kwargs(outbound))
        reply.answered = True

    async def _direct(self, outbound: Outbound) -> None:
        """A rack by direct message, unless the player's direct messages turned out closed
        (then not again until they ask for their tiles)."""
        assert outbound.user is not None
        chat, key = outbound.chat, NOTE_NO_DM.format(user=outbound.user)
        if await self._note(chat, key) is not None:
            return
        texts = await asyncio.to_thread(self._texts, chat)
        channel = self.get_channel(int(chat))
        table = getattr(channel, "jump_url", None) or _title(channel) or chat
        if outbound.kind == "ping":  # back to the board it is about, as on Telegram
            table = await self._latest_link(chat) or table
        user = self.get_user(int(outbound.user)) or await self.fetch_user(int(outbound.user))
        try:
            await user.send(**direct_kwargs(outbound, texts, table))
        except discord.Forbidden as exc:
            log.info(
                "direct messages to %s are closed (%s): not again until they ask for their tiles",
                outbound.user,
                exc.text or exc.status,
            )
            await self._set_note(chat, key, "1")

    async def _send(
        self,
        channel: Any,
        outbound: Outbound,
        view: discord.ui.View | None = None,
        *,
        nonce: int | None = None,
    ) -> discord.Message:
        kw = send_kwargs(outbound)
        if view is not None:
            kw["view"] = view
        if nonce is not None:
            kw["nonce"] = nonce
        message: discord.Message = await channel.send(**kw)
        return message

    # --- notes --------------------------------------------------------------------------

    async def _note(self, chat: str, key: str) -> str | None:
        """A note kept for ``chat``; ``None`` if there is none or the store failed (a note
        is a convenience: without it a message is posted anew or a DM tried)."""
        try:
            return await asyncio.to_thread(self.service.note, chat, key)
        except Exception:
            log.exception("could not read the note %s of %s", key, chat)
            return None

    async def _set_note(self, chat: str, key: str, value: str | None) -> None:
        try:
            await asyncio.to_thread(self.service.set_note, chat, key, value)
        except Exception:
            log.exception("could not keep the note %s of %s", key, chat)
