"""The clock: computer players' turns, reminders and timeouts, when they are due.

It sleeps until the earliest deadline of any table (at most ``due_interval``), and a
handled command wakes it at once, since a command may bring a deadline nearer (a game
started, an option set). Each look also tries again the messages that wait in an outbox
(within :data:`~bot.telegram.outbox.OUTBOX_RETRY`). What is due at a table is done with the
table's lock held, so it goes out in order with the table's commands.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.service import Service
from bot.telegram.outbox import OUTBOX_RETRY, Outbox, TableLocks

log = logging.getLogger(__name__)

#: The longest the clock sleeps without looking at the store (a safety net: it wakes at the
#: next due time, and a command wakes it at once).
MAX_SLEEP = 60.0
#: How long the clock waits before trying again a deadline that was due but not done (the
#: table changed meanwhile, or failed): not at once, so a broken table cannot spin it.
RETRY_SLEEP = 5.0


class Clock:
    """Runs what is due at each table, at its time."""

    def __init__(
        self,
        service: Service,
        locks: TableLocks,
        outbox: Outbox,
        *,
        due_interval: float,
        sleep: Callable[[float], Awaitable[None]] | None,
    ) -> None:
        self.service = service
        self.locks = locks
        self.outbox = outbox
        self.due_interval = due_interval
        self.sleep = sleep or asyncio.sleep
        # Set when a command was handled: it may have brought a deadline nearer.
        self._wake = asyncio.Event()

    def wake(self) -> None:
        """A command was handled: look at the deadlines again now."""
        self._wake.set()

    async def due(self, table: str, now: float | None = None) -> None:
        """Deliver what is due at one table by ``now`` (the service's clock if ``None``).
        Call with the table's lock held."""
        try:
            outs = await asyncio.to_thread(self.service.due, now, chat=table)
        except Exception:
            log.exception("the service failed on what was due at a table")
            return
        await self.outbox.deliver(outs, None)

    async def tick(self) -> None:
        """Everything due by the clock: computer players' turns, reminders, timeouts."""
        # Letters waiting in the store: Telegram did not take them before, or the process
        # that wrote them was stopped before it could post them.
        for table in await asyncio.to_thread(self.service.waiting_tables):
            if not self.service.delivers(table):
                continue  # another platform's chat (a team battle's): its process posts it
            if table in self.outbox.paused and table in self.outbox.held:
                continue  # a closed forum topic: tried again when it is reopened
            async with self.locks.hold(table):
                await self.outbox.flush(table)
        now = self.service.clock()
        chats = await asyncio.to_thread(self.service.due_tables, now)
        for chat in chats:
            async with self.locks.hold(chat):
                await self.due(chat, now)
        # Buttons that could not come off during a fast game, now that it is quieter.
        for table in sorted(self.outbox.messages.untidy):
            async with self.locks.hold(table):
                await self.outbox.messages.tidy(table)

    async def next_wait(self) -> float:
        """Seconds until the next deadline of any table, at most ``due_interval``; a
        deadline already past (the last look could not do it) is tried again after
        ``RETRY_SLEEP``."""
        due = await asyncio.to_thread(self.service.next_due)
        waiting = await asyncio.to_thread(self.service.anything_waiting)
        limit = min(self.due_interval, OUTBOX_RETRY) if waiting else self.due_interval
        if due is None:
            return limit
        left = due - self.service.clock()
        if left <= 0:
            left = RETRY_SLEEP
        return min(limit, left)

    async def due_loop(self, stop: asyncio.Event) -> None:
        """:meth:`tick` at each table's next due time until ``stop`` is set: the clock
        sleeps until the earliest deadline (or ``due_interval``), and a handled command
        wakes it to look again. A tick under way is finished, so no computer move is made
        without being shown."""
        while not stop.is_set():
            self._wake.clear()
            try:
                wait = await self.next_wait()
            except Exception:
                log.exception("could not read the next deadline")
                wait = self.due_interval
            await self._sleep_until(wait, stop)
            if stop.is_set():
                break
            try:
                await self.tick()
            except Exception:
                log.exception("the deadline check failed")

    async def _sleep_until(self, seconds: float, stop: asyncio.Event) -> None:
        """Sleep ``seconds``, or less if ``stop`` is set or a command wakes the clock."""
        waits = {
            asyncio.ensure_future(self.sleep(seconds)),
            asyncio.ensure_future(stop.wait()),
            asyncio.ensure_future(self._wake.wait()),
        }
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
