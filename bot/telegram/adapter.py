"""The Telegram adapter: updates in as commands, the service's outbounds out as messages.

Thin on purpose: the table service decides everything; the adapter only speaks Telegram.
A forum group has a table per topic (``limits.table_id``), and every message of a table
goes to its topic. The service is synchronous and may render images or let computer players
think, so every call into it runs in a worker thread (``asyncio.to_thread``); a lock per
table keeps the messages of one table in order while other tables go on. When Telegram
misbehaves, every accepted move is still told exactly once.

:class:`TelegramAdapter` builds the parts, each a module of one concern, and wires them to
the python-telegram-bot Application:

- :mod:`~bot.telegram.updates`: commands, button presses and the other updates in, and one
  command from the service to its delivery;
- :mod:`~bot.telegram.messages`: what each outbound becomes on Telegram (posts, photos,
  edits in place, racks in private chats);
- :mod:`~bot.telegram.challenge` and :mod:`~bot.telegram.inline`: a game offered by
  typing the bot's name in any chat, its table in that one message, edited in place;
- :mod:`~bot.telegram.outbox`: each table's messages in order, what waits when Telegram
  does not take one, and the tables' locks;
- :mod:`~bot.telegram.clock`: what is due at each table (computer players, reminders,
  timeouts), at its time;
- :mod:`~bot.telegram.admins`: whether a user administers a table's chat;
- :mod:`~bot.telegram.tables`: where a table is now (a group that became a supergroup took
  its tables along), its texts and its players;
- :mod:`~bot.telegram.notes`: what must outlive a restart, kept as the service's notes;
- :mod:`~bot.telegram.botapi`: requests to the Bot API, sent again after network errors,
  and what a failure means.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.core.outbound import Outbound, User
from bot.core.parsing import COMMAND_WORDS
from bot.service import Service
from bot.telegram import limits as fmt
from bot.telegram.admins import ChatAdmins
from bot.telegram.botapi import BotAPI
from bot.telegram.challenge import Challenges
from bot.telegram.clock import MAX_SLEEP, Clock
from bot.telegram.inline import InlineMessages
from bot.telegram.messages import Messages
from bot.telegram.notes import NOTE_TOPIC, Notes
from bot.telegram.outbox import Outbox, TableLocks
from bot.telegram.tables import Tables
from bot.telegram.updates import Updates
from bot.words.texts import LANGUAGES, Texts

log = logging.getLogger(__name__)

#: Seconds a tournament's due work waits for Telegram to open a forum topic.
TOPIC_WAIT = 30.0

#: The updates the bot asks Telegram for (the inline ones come once BotFather's /setinline
#: and /setinlinefeedback are on: docs/operating.md).
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
    Update.CHOSEN_INLINE_RESULT,
]


class TelegramAdapter:
    """Connects a :class:`~bot.service.Service` to a python-telegram-bot Application."""

    def __init__(
        self,
        service: Service,
        *,
        send_retries: int = 3,
        backoff: float = 0.5,
        due_interval: float = MAX_SLEEP,
        on_handled: Callable[[int], None] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        """
        Args:
            service: the table service.
            send_retries: how often a request that failed on the network is sent again.
            backoff: seconds before the first retry; doubled for each further one.
            due_interval: the longest the clock sleeps between looks at the store for
                deadlines (it wakes at the next due time, or when a command came).
            on_handled: called with each update's id once it is fully handled (for tests
                and monitoring).
            sleep: how the clock sleeps a number of the service clock's seconds
                (``asyncio.sleep``; tests pass one that moves their clock).
        """
        self.service = service
        # Each part is given the parts it uses, built before it: no part knows the ones
        # that use it, so the modules import one way only.
        self.api = BotAPI(send_retries=send_retries, backoff=backoff, clock=service.clock)
        self.notes = Notes(service)
        self.tables = Tables(service, self.notes)
        self.inline = InlineMessages(service, self.api, self.notes)
        self.messages = Messages(service, self.api, self.notes, self.tables, self.inline)
        self.admins = ChatAdmins(service, self.api)
        self.locks = TableLocks(same=self.tables.first_id)
        self.outbox = Outbox(service, self.api, self.messages)
        self.clock = Clock(service, self.locks, self.outbox, due_interval=due_interval, sleep=sleep)
        self.updates = Updates(
            service,
            api=self.api,
            notes=self.notes,
            tables=self.tables,
            admins=self.admins,
            locks=self.locks,
            outbox=self.outbox,
            clock=self.clock,
            on_handled=on_handled,
        )
        self.challenges = Challenges(
            service, api=self.api, notes=self.notes, locks=self.locks, updates=self.updates
        )

        # A web page's commands come from the web board's thread (docs/web.md).
        self._loop: asyncio.AbstractEventLoop | None = None
        service.set_page_runner(self.from_page)
        # A tournament's table gets a forum topic of its own in a group with topics.
        service.place_opener = self.open_topic
        service.delivers = fmt.is_telegram_chat

    def from_page(self, table: str, user: User, text: str) -> list[Outbound]:
        """A web page's command, from any thread: carried out in the bot's event loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            texts = Texts(self.service.language(table))
            return [Outbound(table, texts("telegram.failed"), "error")]
        done = asyncio.run_coroutine_threadsafe(self.updates.from_page(table, user, text), loop)
        return done.result()

    def open_topic(self, chat: str, name: str) -> str | None:
        """A forum topic for a tournament's table in group ``chat`` (issue 30), from the
        service's worker thread: its table id, or ``None`` where there is none to open (no
        forum, no right to open topics, the bot not running): then the table is played in
        the chat itself."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return None
        with contextlib.suppress(RuntimeError):
            if asyncio.get_running_loop() is loop:
                return None  # (on the loop itself the answer could never be waited for)
        if not fmt.is_telegram_chat(chat):
            return None
        group, _topic = fmt.split_table(chat)
        name = name[: fmt.TOPIC_NAME_LIMIT]
        done = asyncio.run_coroutine_threadsafe(self._create_topic(group, name), loop)
        try:
            return done.result(timeout=TOPIC_WAIT)
        except Exception as exc:
            log.info("no forum topic for a tournament table in %s: %s", chat, exc)
            return None

    async def _create_topic(self, group: int, name: str) -> str | None:
        try:
            topic = await self.api.retry(self.api.bot.create_forum_topic, group, name, resend=False)
        except TelegramError as exc:
            log.info("no forum topic for a tournament table in %s: %s", group, exc)
            return None
        table = fmt.table_id(group, topic.message_thread_id)
        await asyncio.to_thread(self.service.set_note, table, NOTE_TOPIC, name)
        return table

    # --- wiring -----------------------------------------------------------------------

    def attach(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Register the handlers with ``app``."""
        self.api.app = app
        with contextlib.suppress(RuntimeError):  # attached outside the loop: set at start
            self._loop = asyncio.get_running_loop()
        app.add_handler(
            MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, self.updates.on_command)
        )
        app.add_handler(CallbackQueryHandler(self.challenges.on_button))
        app.add_handler(InlineQueryHandler(self.challenges.on_inline_query))
        app.add_handler(ChosenInlineResultHandler(self.challenges.on_chosen))
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.updates.on_migrate))
        app.add_handler(
            MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, self.updates.on_member_left)
        )
        app.add_handler(
            MessageHandler(filters.StatusUpdate.FORUM_TOPIC_EDITED, self.updates.on_topic_renamed)
        )
        app.add_handler(
            MessageHandler(filters.StatusUpdate.FORUM_TOPIC_CLOSED, self.updates.on_topic_closed)
        )
        app.add_handler(
            MessageHandler(
                filters.StatusUpdate.FORUM_TOPIC_REOPENED, self.updates.on_topic_reopened
            )
        )
        # A later group runs once the handlers above are done with the update.
        app.add_handler(TypeHandler(Update, self.updates.handled), group=1)
        app.add_error_handler(self.updates.on_error)

    async def register_commands(self) -> None:
        """The command menu of groups and of private chats, in each language (and in the
        default language for the rest), so Telegram clients complete commands with a
        description in the player's language. Each menu is set only when it differs from
        what Telegram has (a restart with nothing changed sets nothing): the list comes from
        :data:`~bot.core.parsing.COMMAND_WORDS` and the catalogues, so a new command appears in
        the menus without a change here."""
        default = self.service.settings.language
        for scope in MENU_SCOPES:
            for lang in (None, *LANGUAGES):
                wanted = menu(Texts(lang or default))
                where = f"{scope.type} {lang or 'all'}"
                try:
                    have = await self.api.retry(
                        self.api.bot.get_my_commands, scope=scope, language_code=lang
                    )
                    if _same_menu(have, wanted):
                        continue
                except TelegramError as exc:
                    log.info("could not read the commands for %s: %s", where, exc)
                try:
                    await self.api.retry(
                        self.api.bot.set_my_commands, wanted, scope=scope, language_code=lang
                    )
                except TelegramError as exc:
                    log.warning("could not register the commands for %s: %s", where, exc)

    async def tick(self) -> None:
        """Everything due by the clock now (see :meth:`~bot.telegram.clock.Clock.tick`)."""
        await self.clock.tick()

    async def due_loop(self, stop: asyncio.Event) -> None:
        """Run the clock until ``stop`` is set (see :meth:`~bot.telegram.clock.Clock.due_loop`)."""
        loop = self._loop = asyncio.get_running_loop()

        def woken() -> None:  # from the store's thread: another process left letters
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.clock.wake)

        stop_listening = self.service.listen(woken)
        try:
            await self.clock.due_loop(stop)
        finally:
            stop_listening()


#: The menus the bot sets: everywhere (the fallback), in groups, in private chats (each
#: chat, group or private, may hold a table, so both list every command).
MENU_SCOPES: tuple[BotCommandScope, ...] = (
    BotCommandScopeDefault(),
    BotCommandScopeAllGroupChats(),
    BotCommandScopeAllPrivateChats(),
)


def menu(texts: Texts) -> list[BotCommand]:
    """The command menu in ``texts``' language: every command word that has a description
    in the catalogue, in the order of :data:`~bot.core.parsing.COMMAND_WORDS`."""
    return [
        BotCommand(word, texts(f"telegram.commands.{word}"))
        for word in COMMAND_WORDS
        if texts.has(f"telegram.commands.{word}")
    ]


def _same_menu(have: Sequence[BotCommand], wanted: Sequence[BotCommand]) -> bool:
    return [(c.command, c.description) for c in have] == [
        (c.command, c.description) for c in wanted
    ]
