"""A table's messages go out in order, through its outbox, whatever Telegram does.

A lock per table lets one command (or look of the clock) at a table at a time, so its
messages keep their order while other tables go on. When Telegram misbehaves, every
accepted move is still told exactly once: what Telegram surely did not take (a 429 after
the rate limiter's retries, a 5xx, no connection) waits in the table's outbox, ahead of the
table's later messages, until the next command or the clock's next look (within
:data:`OUTBOX_RETRY`). A new message whose outcome is unknown (a timeout, a connection
dropped after the request went out) is counted as posted and never sent again: the Bot API
has no idempotency key, and such a request has mostly reached Telegram, which was only slow
to answer; a double board would confuse the table more than a missing one, which the next
board's position makes up for. Edits and button answers are repeated freely ("not
modified" means done). A table whose chat is gone for the bot (removed from the group, the
group deleted, the private chat blocked) is closed as an admin's ``/abort`` would close it,
so its computer players stop; a player who blocked the bot only loses their private racks.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from telegram.error import TelegramError

from bot.outbound import Chat, Outbound, User
from bot.service import Service
from bot.telegram.botapi import AGAIN, GONE, UNKNOWN, BotAPI, failure
from bot.telegram.messages import Messages, Origin

log = logging.getLogger(__name__)

#: How soon the clock tries again a table's messages Telegram did not take.
OUTBOX_RETRY = 2.0


class TableLocks:
    """The tables' locks: one command (or look of the clock) at a table at a time."""

    def __init__(self) -> None:
        # Each table's lock with how many hold or wait for it; dropped at none, so a table
        # that finished leaves nothing here.
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, chat: str) -> AsyncIterator[None]:
        """Hold the table's lock: one command (or look of the clock) at a table at a time.
        The lock lives only while someone holds or waits for it (one event loop: no guard
        needed around the count)."""
        lock, users = self._locks.get(chat) or (asyncio.Lock(), 0)
        self._locks[chat] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[chat]
            if users == 1:
                del self._locks[chat]
            else:
                self._locks[chat] = (lock, users - 1)


class Outbox:
    """Each table's messages not yet delivered, and their delivery."""

    def __init__(self, service: Service, api: BotAPI, messages: Messages) -> None:
        self.service = service
        self.api = api
        self.messages = messages
        # Each table's messages not yet delivered, in order, with the command they answer.
        self.waiting: dict[str, deque[tuple[Outbound, Origin | None]]] = {}

    async def deliver(self, outs: Sequence[Outbound], origin: Origin | None) -> None:
        """Send each outbound in Telegram's idiom, through its table's outbox: in order,
        and what Telegram did not take (a flood wait, a server error, no connection) waits
        there, ahead of the table's later messages, until the next command or the clock
        tries again. Call with the table's lock held."""
        for out in outs:
            self.waiting.setdefault(out.chat, deque()).append((out, origin))
        for table in dict.fromkeys(out.chat for out in outs):
            await self.flush(table)

    async def flush(self, table: str) -> None:
        """Deliver a table's waiting messages, oldest first, until Telegram refuses one for
        now. A message whose outcome is unknown counts as sent (a resend might double it:
        Telegram has no idempotency key, and a timeout mostly means it was slow, not that
        it lost the message); one Telegram will never take is given up; if the table's chat
        is gone for the bot, the table is closed."""
        box = self.waiting.get(table)
        while box:
            out, origin = box[0]
            try:
                await self.messages.deliver_one(out, origin)
            except Exception as exc:
                what = failure(exc)
                if what == AGAIN:
                    log.warning(
                        "could not deliver a %s message of table %s (%s); it waits",
                        out.kind,
                        table,
                        exc,
                    )
                    return
                if what == GONE and _destination(out, origin) == table:
                    await self._gone(table, exc)
                    return
                if what == UNKNOWN:
                    log.warning(
                        "a %s message of table %s may not have arrived (%s); not sent again",
                        out.kind,
                        table,
                        exc,
                    )
                elif isinstance(exc, TelegramError):
                    log.warning("could not deliver a %s message: %s", out.kind, exc)
                else:
                    log.exception("could not deliver a %s message", out.kind)
            box.popleft()
        self.waiting.pop(table, None)

    async def _gone(self, table: str, why: BaseException) -> None:
        """The table's chat is gone for the bot (it was removed from the group, the group
        was deleted, the player blocked it): the table is closed as a chat admin's
        ``/abort`` would close it, so its computer players stop, and what waited to be
        posted there is forgotten. Call with the table's lock held."""
        self.waiting.pop(table, None)
        me = User(str(self.api.bot.id), str(self.api.bot.first_name or "Genial"))
        try:
            await asyncio.to_thread(self.service.handle, Chat(table), me, "/abort", admin=True)
        except Exception:
            log.exception("could not close table %s", table)
            return
        # What /abort says goes nowhere: there is no chat to say it in.
        log.warning("closed table %s: its chat is gone for the bot (%s)", table, why)


def _destination(out: Outbound, origin: Origin | None) -> str:
    """Where an outbound goes: a player's private chat, back where a command was typed
    (an error), or the table's chat."""
    if out.user is not None and out.user != out.chat:
        return out.user
    if out.kind == "error" and origin is not None:
        return origin.chat
    return out.chat
