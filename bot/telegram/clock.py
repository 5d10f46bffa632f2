"""The clock: computer players' turns, reminders and timeouts, when they are due.

It sleeps until the earliest deadline of any table (at most ``due_interval``), and a
handled command wakes it at once, since a command may bring a deadline nearer (a game
started, an option set). Each look also tries again the messages that wait in an outbox
(within :data:`~bot.telegram.outbox.OUTBOX_RETRY`). What is due at a table is done with the
table's lock held, so it goes out in order with the table's commands.

Tables take turns: each look starts one step at every due table (a computer player's turn,
a reminder, a timeout), each table in a task of its own that delivers what its step said at
its chat's own pace, and the next step of a table starts only once its chat has been told
the last one. So a table of four computer players is played at the pace its group can be
told, and no other table's reminder or timeout waits behind it. While its group has no
room, a computer player's turn waits for the next ones (up to a round of four), and they are
told as one message with the latest board.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from typing import Any

from bot.core.outbound import Outbound
from bot.core.stepping import Turns
from bot.service import Service
from bot.telegram.outbox import OUTBOX_RETRY, Outbox, TableLocks

log = logging.getLogger(__name__)

#: The longest the clock sleeps without looking at the store (a safety net: it wakes at the
#: next due time, and a command wakes it at once).
MAX_SLEEP = 60.0
#: How long the clock waits before trying again a deadline that was due but not done (the
#: table changed meanwhile, or failed): not at once, so a broken table cannot spin it.
RETRY_SLEEP = 5.0
#: Steps a table takes at one look of the clock (one computer turn, one reminder): then the
#: other due tables have theirs.
STEPS = 1
#: Steps after a command at its table (a person's move and the answers of up to three
#: computer players, told in one go); the clock takes any further ones.
ANSWER_STEPS = 4
#: Looks of :meth:`Clock.tick` at most (a guard: each look makes progress or it stops).
MAX_PASSES = 10_000


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
        # Set when a command was handled or a table's step ended: look again now.
        self._wake = asyncio.Event()
        #: The tables whose step (or waiting letters) is being done and told now, each in
        #: a task of its own: the clock starts no other step there until it is done.
        self.busy: dict[str, asyncio.Task[bool]] = {}
        #: Which due tables take their step now (:mod:`bot.core.stepping`).
        self.turns = Turns()

    def wake(self) -> None:
        """A command was handled: look at the deadlines again now."""
        self._wake.set()

    async def due(self, table: str, now: float | None = None) -> None:
        """Deliver what is due at one table by ``now`` (the service's clock if ``None``)
        after a command there: the answers of its computer players, up to
        :data:`ANSWER_STEPS` steps (a table of computers alone goes on at the clock's
        pace; wake the clock after). Call with the table's lock held."""
        try:
            step = await asyncio.to_thread(self.service.step, table, now, steps=ANSWER_STEPS)
        except Exception:
            log.exception("the service failed on what was due at a table")
            return
        await self._tell(table, step.out)

    async def tick(self) -> None:
        """Everything due by the clock now, delivered: the looks of :meth:`due_loop`, one
        after another until nothing more is due now (for callers that wait for it)."""
        for _ in range(MAX_PASSES):
            await self.look()
            running = list(self.busy.values())
            if not running:
                break
            done = await asyncio.gather(*running, return_exceptions=True)
            if not any(d is True for d in done):
                break  # nothing more is due at once
        await self.tidy()

    async def look(self) -> None:
        """One look: each table with letters waiting or something due that is not busy
        starts a step of its own (a task), which delivers what it says and wakes the clock
        when it is done. Returns at once: no table waits for another."""
        # Letters waiting in the store: Telegram did not take them before, or the process
        # that wrote them was stopped before it could post them.
        for table in await asyncio.to_thread(self.service.waiting_tables):
            if not self.service.delivers(table):
                continue  # another platform's chat (a team battle's): its process posts it
            if table in self.outbox.paused and table in self.outbox.held:
                continue  # a closed forum topic: tried again when it is reopened
            if table in self.outbox.gathering:
                continue  # turns that wait for the next: told with them at its next step
            if table not in self.busy:
                self._start(table, self._flush(table), wake=False)
        now = self.service.clock()
        due = await asyncio.to_thread(self.service.due_tables, now)
        for table in self.outbox.gathering.difference(due):
            if table not in self.busy:  # no next step there now: told as they are
                self._start(table, self._flush(table), wake=False)
        for chat in self.turns.ready(due, now):
            if chat not in self.busy:
                self._start(chat, self._step(chat))

    def _start(self, table: str, work: Coroutine[Any, Any, bool], *, wake: bool = True) -> None:
        """Run ``work`` for ``table`` in a task of its own; ``wake``: look again when it
        ends (a step: the table's next one, or a deadline that passed meanwhile; letters
        that did not get through are tried again at the clock's own pace)."""
        self.turns.started(table)
        task = asyncio.ensure_future(work)
        self.busy[table] = task
        task.add_done_callback(partial(self._done, table, wake))

    def _done(self, table: str, wake: bool, task: asyncio.Task[bool]) -> None:
        if self.busy.get(table) is task:
            del self.busy[table]
        if wake:
            self._wake.set()

    async def _flush(self, table: str) -> bool:
        try:
            async with self.locks.hold(table):
                await self.outbox.flush(table)
        finally:
            self.turns.ended(table, did=True, now=self.service.clock())
        return False

    async def _step(self, chat: str) -> bool:
        """One step at ``chat``, told; whether more is due there at once. What is due is
        what is due when the step has the table, not when the clock looked: a step that
        waited behind a command there (its messages at the group's pace) finds the turns
        that command's computer players left due meanwhile, where the look's time would
        find nothing due and rest the table."""
        done = False
        try:
            async with self.locks.hold(chat):
                try:
                    step = await asyncio.to_thread(self.service.step, chat, steps=STEPS)
                except Exception:
                    log.exception("the service failed on what was due at a table")
                    return False
                done = step.done
                # With a computer player to move next, turn messages the chat has no room
                # for now wait for the next ones, to be told with them (bot.telegram.outbox).
                await self._tell(chat, step.out, gather=step.more)
                return step.more
        finally:
            self.turns.ended(chat, did=done, now=self.service.clock())

    async def _tell(self, chat: str, outs: Sequence[Outbound], *, gather: bool = False) -> None:
        """Deliver what a step at ``chat`` said (its lock held), holding the lock of each
        other chat it is said in as well (a tournament's table is told in its players'
        places): the clock's look flushes a chat's waiting letters under that chat's lock,
        so it never posts the step's letters a second time beside it."""
        others = sorted({o.chat for o in outs if o.stored is not None and o.chat != chat})
        async with contextlib.AsyncExitStack() as held:
            for other in others:  # always in one order: two steps never wait for each other
                await held.enter_async_context(self.locks.hold(other))
            await self.outbox.deliver(outs, None, gather=gather)

    async def tidy(self) -> None:
        """Buttons that could not come off during a fast game, now that it is quieter."""
        for table in sorted(self.outbox.messages.untidy):
            if table in self.busy:
                continue
            async with self.locks.hold(table):
                await self.outbox.messages.tidy(table)

    async def settle(self) -> None:
        """Wait for the steps under way: each is told before the bot stops."""
        while self.busy:
            await asyncio.gather(*self.busy.values(), return_exceptions=True)

    async def next_wait(self) -> float:
        """Seconds until the next deadline of any table, at most ``due_interval``: not at
        all if a table due now waits for its step; while the tables due now are being told
        (their steps' ends wake the clock), until the next deadline after now; a table
        whose step could do nothing is tried again after a rest."""
        due = await asyncio.to_thread(self.service.next_due)
        waiting = await asyncio.to_thread(self.service.anything_waiting)
        if waiting and self.busy:
            # Letters of a table whose step is being told now are its own to post (its end
            # wakes the clock); only others' letters wait for the clock to try again.
            tables = await asyncio.to_thread(self.service.waiting_tables)
            waiting = any(table not in self.busy for table in tables)
        limit = min(self.due_interval, OUTBOX_RETRY) if waiting else self.due_interval
        now = self.service.clock()
        if due is None or due > now:
            return limit if due is None else min(limit, due - now)
        due_now = await asyncio.to_thread(self.service.due_tables, now)
        later = await asyncio.to_thread(self.service.next_due, now)
        wait = self.turns.wait(due, later, due_now, now)
        if wait is None:
            # Due, yet no table to step (a tournament's own due work, a damaged table):
            # tried again a little later.
            return min(limit, RETRY_SLEEP) if not self.busy else limit
        return min(limit, wait)

    async def due_loop(self, stop: asyncio.Event) -> None:
        """:meth:`look` at each table's next due time until ``stop`` is set: the clock
        sleeps until the earliest deadline (or ``due_interval``), and a handled command or
        the end of a table's step wakes it to look again. The steps under way are
        finished, so no computer move is made without being shown."""
        try:
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
                    await self.look()
                    await self.tidy()
                except Exception:
                    log.exception("the deadline check failed")
        finally:
            await self.settle()

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
