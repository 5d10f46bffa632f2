"""The Telegram adapter: updates in as commands, the service's outbounds out as messages.

Thin on purpose: the table service decides everything; this module only speaks Telegram.
Slash commands (also ``/cmd@Bot``) and button presses become command texts; each outbound
becomes a message, a photo with its caption, a document, an edit of the lobby message, or
a pop-up answer to a button press. Racks go only to private chats; a player whose private
chat is not open (Telegram answers 403) presses "My tiles" and sees the rack in a pop-up
that only they see.

A forum group has a table per topic (``limits.table_id``), and every message of a table
goes to its topic. A group that becomes a supergroup takes its tables along. What the
adapter must remember across restarts (the lobby message, the turn messages whose buttons
are live, the latest turn message that links lead to, who cannot be written to privately,
who was told so) it keeps as the service's notes. The clock sleeps until the next
deadline, and a command wakes it.

The service is synchronous and may render images or let computer players think, so every
call into it runs in a worker thread (``asyncio.to_thread``); a lock per table keeps the
messages of one table in order while other tables go on.

When Telegram misbehaves, every accepted move is still told exactly once: see
:mod:`bot.telegram.outbox`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import BotCommand, Update
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, MessageHandler, TypeHandler, filters

from bot.commands import COMMAND_WORDS, LANGUAGES
from bot.service import Service
from bot.telegram.admins import ChatAdmins
from bot.telegram.botapi import BotAPI
from bot.telegram.clock import MAX_SLEEP, Clock
from bot.telegram.messages import Messages
from bot.telegram.notes import Notes
from bot.telegram.outbox import Outbox, TableLocks
from bot.telegram.tables import Tables
from bot.telegram.updates import Updates
from bot.texts import Texts

log = logging.getLogger(__name__)

#: The updates the bot asks Telegram for.
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]


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
        self.api = BotAPI(send_retries=send_retries, backoff=backoff)
        self.notes = Notes(service)
        self.tables = Tables(service, self.notes)
        self.messages = Messages(service, self.api, self.notes, self.tables)
        self.admins = ChatAdmins(service, self.api)
        self.locks = TableLocks()
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

    # --- wiring -----------------------------------------------------------------------

    def attach(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Register the handlers with ``app``."""
        self.api.app = app
        app.add_handler(
            MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, self.updates.on_command)
        )
        app.add_handler(CallbackQueryHandler(self.updates.on_button))
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.updates.on_migrate))
        app.add_handler(
            MessageHandler(filters.StatusUpdate.FORUM_TOPIC_EDITED, self.updates.on_topic_renamed)
        )
        # A later group runs once the handlers above are done with the update.
        app.add_handler(TypeHandler(Update, self.updates.handled), group=1)
        app.add_error_handler(self.updates.on_error)

    async def register_commands(self) -> None:
        """The command list in each language (and the default language for the rest), so
        Telegram clients complete commands with a description."""
        default = self.service.settings.language
        for lang in (None, *LANGUAGES):
            texts = Texts(lang or default)
            commands = [
                BotCommand(word, texts(f"telegram.commands.{word}"))
                for word in COMMAND_WORDS
                if texts.has(f"telegram.commands.{word}")
            ]
            try:
                await self.api.retry(self.api.bot.set_my_commands, commands, language_code=lang)
            except TelegramError as exc:
                log.warning("could not register the commands for %s: %s", lang or "all", exc)

    async def tick(self) -> None:
        """Everything due by the clock now (see :meth:`~bot.telegram.clock.Clock.tick`)."""
        await self.clock.tick()

    async def due_loop(self, stop: asyncio.Event) -> None:
        """Run the clock until ``stop`` is set (see :meth:`~bot.telegram.clock.Clock.due_loop`)."""
        await self.clock.due_loop(stop)
