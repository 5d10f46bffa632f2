"""The Discord client: interactions in, the table service's outbounds out.

The client is the piece discord.py runs; what it does is in its parts, one concern each:

- :mod:`~bot.discord.interactions`: slash commands and buttons, acknowledged at once and
  carried out in a worker thread;
- :mod:`~bot.discord.threads`: a thread for each new table (with ``threads`` on);
- :mod:`~bot.discord.delivery`: the outbounds out, public ones through each table's outbox
  until Discord takes them; a table whose channel is gone is closed;
- :mod:`~bot.discord.private`: answers to the person who acted, and direct messages;
- :mod:`~bot.discord.lobby`: the lobby and options edited in place, live buttons on the
  newest messages only;
- :mod:`~bot.discord.links`: jump URLs to a table's latest turn message;
- :mod:`~bot.discord.clock`: the due work (computer players, reminders, timeouts);
- :mod:`~bot.discord.pace`: the bot's requests within Discord's global rate limit;
- :mod:`~bot.discord.shards`: which due tables are this process's, when processes share
  the shards;
- :mod:`~bot.discord.parts` and :mod:`~bot.discord.failures`: what they all share, and
  what a failed call to Discord means.

The client itself starts and stops the clock, registers the commands and the buttons, and
hears from the gateway about channels that are gone or a connection that is back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.core.outbound import Outbound, User
from bot.core.table import Table
from bot.discord import commands as discord_commands
from bot.discord.answers import Answers
from bot.discord.clock import MAX_SLEEP, Clock
from bot.discord.commands import Look
from bot.discord.delivery import Delivery
from bot.discord.interactions import Interactions
from bot.discord.links import Links
from bot.discord.lobby import Lobby
from bot.discord.pace import GlobalPace
from bot.discord.private import Private
from bot.discord.shards import Shards
from bot.discord.threads import Threads
from bot.discord.translator import CatalogueTranslator
from bot.discord.views import TableButton
from bot.service import Service
from bot.words.texts import Texts

log = logging.getLogger(__name__)

#: Waits between tries at a first gateway connection that failed: doubling from the first
#: up to the last (discord.py waits a little of its own before each).
#: A server install: the bot and its commands, with what it needs in a table's channel
#: (post boards with buttons, read back whether the lobby scrolled away, a thread a table).
SERVER_SCOPES = ("bot", "applications.commands")
SERVER_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)
#: Discord's application command type of an Activity's Entry Point, and what of one is
#: sent back when the commands are registered again.
PRIMARY_ENTRY_POINT = 4
ENTRY_POINT_FIELDS = frozenset(
    {
        "id",
        "type",
        "name",
        "name_localizations",
        "description",
        "description_localizations",
        "handler",
        "integration_types",
        "contexts",
        "default_member_permissions",
        "nsfw",
    }
)
FIRST_CONNECT_WAIT = 1.0
FIRST_CONNECT_LONGEST = 60.0
#: Seconds a tournament's due work waits for Discord to open a thread.
THREAD_WAIT = 30.0


def is_discord_chat(chat: str) -> bool:
    """Whether ``chat`` is a Discord channel's id (a snowflake: 64 bits, past the 52 of any
    Telegram chat id), not another platform's chat in a store both share (issue 30)."""
    return chat.isascii() and chat.isdigit() and int(chat) >= 1 << 52


class GenialClient(discord.Client):
    """The bot on Discord: slash commands, persistent buttons and the periodic clock."""

    def __init__(
        self,
        service: Service,
        *,
        threads: bool = False,
        dm: bool = False,
        members: bool = False,
        max_sleep: float = MAX_SLEEP,
    ) -> None:
        """
        Args:
            service: the table service (its store holds every table).
            threads: open a thread for each new table instead of using the channel.
            dm: send racks to players who did not ask by direct message too.
            members: hear of members leaving a server (a privileged intent).
            max_sleep: the longest the clock sleeps between two looks at the store.
        """
        # No privileged intents: slash commands and buttons arrive as interactions; the
        # guilds intent only keeps channels and threads in the cache.
        intents = discord.Intents.none()
        intents.guilds = True
        # Opt-in (the operator switches it on in the Developer Portal too): members
        # leaving a server, who then leave its tournaments.
        intents.members = members
        #: The bot's requests within Discord's global rate limit (:mod:`bot.discord.pace`),
        #: seen through discord.py's documented ``http_trace``.
        pace = GlobalPace(service.clock)
        super().__init__(
            intents=intents, allowed_mentions=discord.AllowedMentions.none(), http_trace=pace.trace
        )
        self.pace = pace
        self.service = service
        self.tree: app_commands.CommandTree[GenialClient] = app_commands.CommandTree(self)
        discord_commands.install(self.tree)
        # The parts, each handed the parts it calls. They know the client only as a
        # discord.Client (channels, users), so none of them imports this module.
        links = Links(self, service)
        private = Private(self, service, links, dm=dm)
        lobby = Lobby(self, service)
        # The outbox wakes the clock, which is made below: it does so only once the
        # client runs, and the clock needs the outbox (to try held-back messages again).
        self._delivery = Delivery(
            self,
            service,
            lobby=lobby,
            links=links,
            private=private,
            answers=Answers(self, service),
            wake=self.wake,
        )
        shards = Shards(self, service)
        self._threads = Threads(self, service, threads=threads)
        self._clock = Clock(
            self, service, delivery=self._delivery, shards=shards, max_sleep=max_sleep
        )
        self._interactions = Interactions(
            self,
            service,
            delivery=self._delivery,
            private=private,
            lobby=lobby,
            shards=shards,
            clock=self._clock,
            threads=self._threads,
        )
        self.tree.on_error = self._interactions.on_tree_error  # type: ignore[method-assign]
        self._clock_task: asyncio.Task[None] | None = None
        # A web page's commands come from the web board's thread (docs/web.md).
        self._running_loop: asyncio.AbstractEventLoop | None = None
        service.set_page_runner(self.from_page)
        # A tournament's table gets a thread of its own in the channel it is played from.
        service.place_opener = self.open_thread
        service.delivers = is_discord_chat

    def open_thread(self, chat: str, name: str) -> str | None:
        """A thread for a tournament's table in channel ``chat``, from the service's worker
        thread (see :meth:`Threads.open_for_tournament`); ``None`` while the client does
        not run, or when called on its own loop (where the answer could not be waited for).
        """
        loop = self._running_loop
        if loop is None or loop.is_closed():
            return None
        try:
            if asyncio.get_running_loop() is loop:
                return None
        except RuntimeError:
            pass  # a worker thread: no loop of its own
        job = self._threads.open_for_tournament(chat, name)
        try:
            return asyncio.run_coroutine_threadsafe(job, loop).result(timeout=THREAD_WAIT)
        except Exception as exc:
            log.info("no thread for a tournament table in channel %s: %s", chat, exc)
            return None

    def from_page(self, chat: str, user: User, text: str) -> list[Outbound]:
        """A web page's command, from any thread: carried out in the client's event loop."""
        loop = self._running_loop
        if loop is None or loop.is_closed():
            texts = Texts(self.service.language(chat))
            return [Outbound(chat, texts("discord.failed"), "error")]
        job = self._interactions.from_page(chat, user, text)
        return asyncio.run_coroutine_threadsafe(job, loop).result()

    # --- life cycle ---------------------------------------------------------------------

    async def setup_hook(self) -> None:
        self._running_loop = asyncio.get_running_loop()
        # Buttons are answered from their custom ids alone, so messages sent before a
        # restart keep working.
        self.add_dynamic_items(TableButton)
        # The menu texts in German, Dutch and French go along with the commands.
        await self.tree.set_translator(CatalogueTranslator())
        try:
            await self.register_commands()
        except discord.HTTPException as exc:
            log.error("could not register the slash commands: %s", exc)
        await self.offer_installs()
        self._clock_task = asyncio.create_task(self._clock.run(), name="genial-due")

    async def register_commands(self) -> None:
        """The slash commands, registered as ``tree.sync()`` does (one overwrite of the
        app's global commands), keeping the app's Entry Point command: Discord makes one
        when Activities are switched on for the app (docs/operating.md) and refuses an
        overwrite that leaves it out, and discord.py 2.7 has no command of that type."""
        tree, app = self.tree, self.application_id
        assert app is not None
        existing = await self.http.get_global_commands(app)
        kept = [
            {k: v for k, v in dict(c).items() if k in ENTRY_POINT_FIELDS}
            for c in existing
            if c.get("type") == PRIMARY_ENTRY_POINT
        ]
        translator = tree.translator
        payload = [
            await c.get_translated_payload(tree, translator) if translator else c.to_dict(tree)
            for c in tree.get_commands()
        ]
        await self.http.bulk_upsert_global_commands(app, payload=[*payload, *kept])

    async def offer_installs(self) -> None:
        """Make the app installable both ways: added to a server, and by a person for
        themselves (its commands then follow them into group DMs). Set once, when the
        application does not offer the user install yet (a new app offers the server one
        only); a server install set up in the Developer Portal is kept as it is."""
        try:
            app = await self.application_info()
            if app.user_integration_config is not None:
                return
            guild = app.guild_integration_config
            params = guild.oauth2_install_params if guild is not None else None
            await app.edit(
                guild_install_scopes=list(params.scopes) if params else list(SERVER_SCOPES),
                guild_install_permissions=params.permissions if params else SERVER_PERMISSIONS,
                user_install_scopes=["applications.commands"],
            )
            log.info("the app may now be installed by a person for themselves too")
        except Exception as exc:  # the bot plays on without it: never a reason to stop
            log.warning("could not offer the app's user install: %s", exc)

    async def connect(self, *, reconnect: bool = True) -> None:
        """discord.py's connection to the gateway, which reconnects by itself, with one gap
        of discord.py 2.7 closed: when the very first connection fails (no network at the
        start, the gateway unreachable), its retry resumes a session it never had
        (``self.ws`` is still ``None``) and dies of an AttributeError. Then the connection
        is tried again from the start, waiting longer each time, until it stands or the bot
        is stopped."""
        wait = FIRST_CONNECT_WAIT
        while True:
            try:
                await super().connect(reconnect=reconnect)
                return
            except AttributeError:
                first = self.ws is None and not isinstance(self, discord.AutoShardedClient)
                if not first or not reconnect or self.is_closed():
                    raise
            log.warning("cannot reach Discord's gateway yet; trying again in %.0f s", wait)
            await asyncio.sleep(wait)
            wait = min(wait * 2, FIRST_CONNECT_LONGEST)

    async def close(self) -> None:
        if self._clock_task is not None:
            self._clock_task.cancel()
        await super().close()

    async def on_resumed(self) -> None:
        # Back after a gateway disconnect: the network is, most likely, so what waits in
        # the outboxes goes out now rather than after the longest wait.
        log.info("the gateway connection is back")
        await self._delivery.flush_all(self._clock.deliverable, eager=True)
        self.wake()

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self._delivery.gone(str(channel.id), "the channel was deleted")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._delivery.gone(str(payload.thread_id), "the thread was deleted")

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """A member left the server (or was removed): they leave the tournaments they
        joined from its channels and threads, their remaining games lost (issue 30)."""
        if payload.user.bot:
            return
        guild = self.get_guild(payload.guild_id)
        if guild is None:
            return
        chats = {str(c.id) for c in guild.channels} | {str(t.id) for t in guild.threads}
        user = str(payload.user.id)
        try:
            out = await asyncio.to_thread(self.service.left_chats, chats, user)
            await self._delivery.deliver(out, None)
        except Exception:
            log.exception("could not take a leaver out of the tournaments of server %s", guild.id)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        chats = [str(c.id) for c in guild.channels] + [str(t.id) for t in guild.threads]
        for chat in chats:
            await self._delivery.gone(chat, "the bot left the server")

    # --- what discord.py and the commands call ------------------------------------------

    async def run_command(
        self,
        interaction: discord.Interaction[Any],
        command: str | Callable[[Table | None], str],
        *,
        quiet: bool = False,
    ) -> None:
        """A slash command (see :meth:`Interactions.run_command`)."""
        await self._interactions.run_command(interaction, command, quiet=quiet)

    async def press(
        self, interaction: discord.Interaction[Any], chat: str, kind: str, command: str
    ) -> None:
        """A button (see :meth:`Interactions.press`)."""
        await self._interactions.press(interaction, chat, kind, command)

    async def look(self, interaction: discord.Interaction[Any], *, with_view: bool = False) -> Look:
        """The table of the interaction's channel, for autocomplete."""
        return await self._interactions.look(interaction, with_view=with_view)

    def wake(self) -> None:
        """Look at the clock now: a command may have made something due sooner."""
        self._clock.wake()
