"""The tables' due work: computer players' turns, reminders and timeouts, when they are due.

A clock task calls :meth:`Service.due` for computer players, reminders and timeouts: it
sleeps until the next due time (:meth:`Service.next_due`), at most :data:`MAX_SLEEP`, and
wakes at once after every command, since a command may make something due sooner.

Tables take turns: each look starts one step at every due table nobody acts at (a computer
player's turn, a reminder, a timeout), in a task of its own that delivers what it said, and
wakes the clock when it is done for the table's next step. So a table of four computer
players is played at the pace its channel is told, and no other table waits behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from functools import partial

import discord

from bot.core.outbound import Outbound
from bot.core.stepping import Turns
from bot.discord.delivery import Delivery
from bot.discord.parts import Part
from bot.discord.private import Reply
from bot.discord.shards import Shards
from bot.service import Service

log = logging.getLogger(__name__)

#: The longest the clock sleeps between two looks at the store (a safety net: the next due
#: time is known, and a command wakes the clock).
MAX_SLEEP = 60.0
#: How long the clock waits when something stays due after a look (a table busy with a
#: command, which deals with it itself, or one that fails), rather than spinning.
RETRY_SLEEP = 5.0
#: Steps a table takes at one look of the clock (one computer turn, one reminder): then the
#: other due tables have theirs.
STEPS = 1
#: Steps after a command at its table (a person's move and the answers of up to three
#: computer players, told in one go); the clock takes any further ones.
ANSWER_STEPS = 4


class Clock(Part):
    """The clock task, and which tables are busy now (a command, or their due work)."""

    def __init__(
        self,
        client: discord.Client,
        service: Service,
        *,
        delivery: Delivery,
        shards: Shards,
        max_sleep: float = MAX_SLEEP,
    ) -> None:
        """
        Args:
            delivery: sends what the due work says, and holds the outboxes to try again.
            shards: tells which due tables are this process's.
            max_sleep: the longest the clock sleeps between two looks at the store.
        """
        super().__init__(client, service)
        self.delivery = delivery
        self.shards = shards
        self.max_sleep = max_sleep
        #: One command at a time at each table; the clock leaves a table alone while a
        #: command is carried out there (the command does the table's due work itself).
        self.locks: dict[str, asyncio.Lock] = {}
        #: Tables whose computer players or deadlines are being dealt with now.
        self.thinking: set[str] = set()
        #: The steps the clock started and that are not done yet, by table.
        self.steps: dict[str, asyncio.Task[bool]] = {}
        self._nap: asyncio.Task[None] | None = None
        self._woken = False
        #: Which due tables take their step now (:mod:`bot.core.stepping`).
        self.turns = Turns()
        #: The due tables of the last look that this process steps (nobody acting there,
        #: in one of its shards).
        self.mine: list[str] = []

    async def deliverable(self, chat: str) -> bool:
        """Whether this process delivers the table's waiting letters now: a Discord
        channel's (not another platform's sharing the store), no command is being carried
        out there (it delivers them), and it is in one of this process's shards."""
        if self.lock(chat).locked() or not self.service.delivers(chat):
            return False
        return self.shards.running() is None or await self.shards.ours(chat)

    def lock(self, chat: str) -> asyncio.Lock:
        """The table's lock, held while a command is carried out there."""
        return self.locks.setdefault(chat, asyncio.Lock())

    async def run(self) -> None:
        """The clock task: a look at what is due, then sleep until the next due time."""
        await self.client.wait_until_ready()
        loop = asyncio.get_running_loop()

        def woken() -> None:  # from the store's thread: another process left letters
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.wake)

        stop_listening = self.service.listen(woken)
        try:
            await self._run()
        finally:
            stop_listening()

    async def _run(self) -> None:
        while not self.client.is_closed():
            self._woken = False
            try:
                await self.tick()
            except Exception:
                log.exception("the look at the clock failed")
            seconds = await self._until_due()
            if not self._woken:  # (else a command or a step ended meanwhile: look again)
                await self._sleep(seconds)

    async def _until_due(self) -> float:
        """Seconds to sleep until the next due time (at most :attr:`max_sleep`)."""
        try:
            due = await asyncio.to_thread(self.service.next_due)
        except Exception:
            log.exception("could not read the next due time")
            return self.max_sleep
        # Letters of a process stopped elsewhere wait for its claim to run out: the clock's
        # longest sleep looks at them again (a restart here hands them over at once).
        waiting = self.delivery.retry_at.values()
        due = min([*([due] if due is not None else []), *waiting], default=None)
        if due is None:
            return self.max_sleep
        now = self.service.clock()
        wait = due - now
        if wait <= 0:
            # Due already: a table due now waits for its step (at once), or its step is
            # under way (its end wakes the clock: until then, the next due time after
            # now), or it rests after a step that could do nothing.
            try:
                later = await asyncio.to_thread(self.service.next_due, now)
            except Exception:
                log.exception("could not read the next due time")
                return min(RETRY_SLEEP, self.max_sleep)
            rest = self.turns.wait(due, later, self.mine, now)
            if rest is None:
                return self.max_sleep if self.steps else min(RETRY_SLEEP, self.max_sleep)
            return min(rest + 0.01, self.max_sleep) if rest > 0 else 0.0
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
        """A step at every table due now that nobody is acting at this moment, each in a
        task of its own (:attr:`steps`); returns at once."""
        service = self.service
        # Letters waiting in the store: Discord did not take them before (tried again once
        # their wait is over), or the process that wrote them was stopped before it could.
        await self.delivery.flush_all(self.deliverable)
        due = await asyncio.to_thread(service.due_tables)
        idle = [c for c in due if not self.lock(c).locked()]
        if self.shards.running() is not None:
            # Filtered before anything is claimed: another process's tables are left to
            # it, and what this process claims it can deliver through its own shards.
            idle = [c for c in idle if await self.shards.ours(c)]
        self.mine = idle
        for chat in self.turns.ready(idle, service.clock()):
            if chat in self.thinking or chat in self.steps:
                continue  # told at its own pace: its next step when this one is done
            self.turns.started(chat)
            task = asyncio.create_task(self._step(chat), name="genial-step")
            self.steps[chat] = task
            task.add_done_callback(partial(self._stepped, chat))

    def _stepped(self, chat: str, task: asyncio.Task[bool]) -> None:
        if self.steps.get(chat) is task:
            del self.steps[chat]
        self.wake()  # the table's next step, or a deadline that passed meanwhile, now

    async def _step(self, chat: str) -> bool:
        """One step at ``chat``, told; whether more is due there at once."""
        done = False
        if chat in self.thinking:
            self.turns.ended(chat, did=False, now=self.service.clock())
            return False
        self.thinking.add(chat)
        try:
            step = await asyncio.to_thread(self.service.step, chat, steps=STEPS)
            done = step.done
            out = await self._hand_over(step.out)
            await self.delivery.deliver(out, None)
            return step.more
        except Exception:
            log.exception("computer players or deadlines at table %s failed", chat)
            return False
        finally:
            self.thinking.discard(chat)
            self.turns.ended(chat, did=done, now=self.service.clock())

    async def _hand_over(self, out: list[Outbound]) -> list[Outbound]:
        """Of what due work said, the letters for channels of another process's shards (a
        tournament's tables are played in the places of several guilds) are left in the
        outbox for that process, which is woken to post them; the rest is this one's."""
        if self.shards.running() is None:
            return out
        mine: list[Outbound] = []
        theirs: list[Outbound] = []
        for outbound in out:
            elsewhere = outbound.stored is not None and self.service.delivers(outbound.chat)
            if elsewhere and not await self.shards.ours(outbound.chat):
                theirs.append(outbound)
            else:
                mine.append(outbound)
        if theirs:
            await asyncio.to_thread(self.service.undelivered, theirs)
            await asyncio.to_thread(self.service.nudge)
        return mine

    async def due(self, chat: str, reply: Reply | None) -> None:
        """Computer players' turns (and deadlines) at one table after a command there, in
        a worker thread: up to :data:`ANSWER_STEPS` steps (a table of computers alone
        goes on at the clock's pace; wake the clock after)."""
        if chat in self.thinking:
            return
        self.thinking.add(chat)
        try:
            step = await asyncio.to_thread(self.service.step, chat, steps=ANSWER_STEPS)
            out = await self._hand_over(step.out)
            await self.delivery.deliver(out, reply)
        except Exception:
            log.exception("computer players or deadlines at table %s failed", chat)
        finally:
            self.thinking.discard(chat)
