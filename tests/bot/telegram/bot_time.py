"""One clock for the bot's service, its rate limiter and the fake Bot API, moved by the test.

With the fake's flood limits on (:meth:`~tests.bot.telegram.fake_api.FakeBotAPI.flood_limits`)
a request must be stamped with the same second by the limiter that let it go and by the
fake that takes it, or a window that is right on one side is over on the other. So the
clock moves only while no request is under way (from the moment the limiter lets one go
until its answer), and only in the bot's event loop, between two of its steps:

- :meth:`BotTime.advance` moves it as people's time passes (a move every second);
- :meth:`BotTime.run_until` lets the bot work, and whenever it waits on the limiter with
  nothing under way, moves the clock straight to the first of those waits' ends: a wait
  of a minute costs no wall-clock time. When the bot (:attr:`BotTime.bot`) is idle, with
  no wait on the limiter, no request under way, no step of its clock and no update
  unhandled, the clock moves to the bot's next due time (a table resting after a step
  that could do nothing, the next deadline), as the real clock would move on.

Nothing here waits on the wall clock for anything but the bot's own work (each look
polls, up to :data:`~tests.patience.PATIENCE`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from bot.telegram.limiter import ChatRateLimiter
from bot.telegram.pace import Pace
from tests.bot.helpers import Clock
from tests.patience import PATIENCE

if TYPE_CHECKING:
    from tests.bot.telegram.fake_api import BotRunner

#: Wall-clock seconds between two looks of :meth:`BotTime.run_until` at a busy bot.
POLL = 0.005


class WatchedLimiter(ChatRateLimiter):
    """The bot's rate limiter, counting the requests it let go whose answer has not come."""

    in_flight = 0

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        async def watched(*a: Any, **kw: Any) -> Any:
            # Counted in the same step of the event loop as the limiter's stamp.
            self.in_flight += 1
            try:
                return await callback(*a, **kw)
            finally:
                self.in_flight -= 1

        return await super().process_request(watched, args, kwargs, endpoint, data, rate_limit_args)


class BotTime(Clock):
    """The clock, the limiter's sleep on it, and the limiter (:attr:`limiter`, to hand to
    the bot); :attr:`loop` is the bot's event loop, set once it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.limiter = WatchedLimiter(Pace(self), sleep=self.sleep)
        self.loop: asyncio.AbstractEventLoop | None = None
        #: The bot on this clock, once it runs: when it is idle, :meth:`run_until` moves
        #: the clock to its next due time.
        self.bot: BotRunner | None = None
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._ids = itertools.count()

    async def sleep(self, seconds: float) -> None:
        """Until the clock has moved ``seconds`` on."""
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        waking = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + seconds, next(self._ids), waking))
        await waking

    def advance(self, seconds: float) -> float:
        """Move the clock ``seconds`` on (once nothing is under way); its time."""
        if self.loop is None:
            return super().advance(seconds)
        while not self._on_loop(self._move, seconds):
            time.sleep(POLL)
        return self.now

    def run_until(self, done: Callable[[], bool], what: str) -> None:
        """Let the bot work until ``done()``; while it only waits on the clock, move the
        clock to the end of the first wait."""
        deadline = time.monotonic() + PATIENCE
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not done (waits {self.waits()})")
            if not self._on_loop(self._jump) and not self._on_loop(self._to_next_due):
                time.sleep(POLL)

    def waits(self) -> list[float]:
        """When the limiter's waits end (seconds from now), soonest first."""
        return sorted(t - self.now for t, _, w in self._sleepers if not w.done())

    def _on_loop(self, step: Callable[..., bool | Coroutine[Any, Any, bool]], *args: Any) -> bool:
        assert self.loop is not None

        async def call() -> bool:
            done = step(*args)
            return done if isinstance(done, bool) else await done

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(PATIENCE)

    def _move(self, seconds: float) -> bool:
        if self.limiter.in_flight:
            return False
        self.now += seconds
        self._wake()
        return True

    def _jump(self) -> bool:
        while self._sleepers and self._sleepers[0][2].done():  # cancelled
            heapq.heappop(self._sleepers)
        if self.limiter.in_flight or not self._sleepers:
            return False
        self.now = max(self.now, self._sleepers[0][0])
        self._wake()
        return True

    async def _to_next_due(self) -> bool:
        """With the bot idle, move the clock to the end of its clock's next sleep (while
        any of its work is under way, that work moves the clock or ends it)."""
        bot = self.bot
        if bot is None or not self._idle(bot):
            return False
        clock = bot.adapter.clock
        wait = await clock.next_wait()
        if not self._idle(bot) or not 0 < wait < clock.due_interval:
            return False  # busy again meanwhile, due now, or nothing due at all
        self.now += wait
        self._wake()
        clock.wake()
        return True

    def _idle(self, bot: BotRunner) -> bool:
        return (
            not self.limiter.in_flight
            and all(w.done() for _, _, w in self._sleepers)
            and not bot.adapter.clock.busy
            and set(range(1, bot.api.last_update + 1)) <= bot.handled
        )

    def _wake(self) -> None:
        while self._sleepers and self._sleepers[0][0] <= self.now:
            _, _, waking = heapq.heappop(self._sleepers)
            if not waking.done():
                waking.set_result(None)
