"""The bot's requests to Discord kept within Discord's global rate limit (issue 43).

discord.py paces each route's bucket by the ``X-RateLimit-*`` headers (a channel's 5
messages in 5 s) but meets the global limit (50 requests a second over all of the bot's
routes, interactions aside) only when Discord refuses one: after a 429 with ``global``
it holds **every** request of the bot for its ``retry_after``. With some 60 busy channels
the bot makes more than 50 calls in some seconds (a board, the buttons taken off the turn
before, a lobby edited), so one crowded second held back every channel.

:class:`GlobalPace` lets at most :data:`RATE` requests count in any :data:`PERIOD`; a
request past that waits, in the order they came, for the oldest to leave the window. It
sees each request as aiohttp sends it, through the :class:`aiohttp.TraceConfig` that
discord.py documents for the client (``http_trace``): so a request counts when it is
really sent (discord.py's own waits for a bucket, before and after a call, do not count),
and each retry discord.py makes counts again. Like Telegram's window
(:class:`bot.telegram.pace.Window`), a request counts from when it is let go, the whole
time it is under way, and a full period after its answer, so whatever the delays on the
way no second at Discord holds more than here. Interaction answers and their follow-ups
(``/interactions/``, ``/webhooks/``) are not bound by the global limit and do not count;
neither do Discord's CDN's pictures.

The count is this process's: processes sharing one bot token (shards in processes of
their own) share Discord's 50 too, and each should get its part (``rate``).
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import aiohttp

#: Requests a period over all of the bot's routes (Discord's global rate limit).
RATE = 50
PERIOD = 1.0
#: The paths of Discord's API that its global limit does not bind.
UNBOUND = ("/interactions/", "/webhooks/")
#: How long a request waits before it looks again when every request of the window is
#: still under way (none has an answer yet to leave the window from).
UNDER_WAY_LOOK = 0.05


def bound(url: Any) -> bool:
    """Whether a request to ``url`` counts in the global limit: Discord's API, not an
    interaction's answer or a webhook, not the CDN."""
    path = str(getattr(url, "path", url))
    return path.startswith("/api/") and not any(part in path for part in UNBOUND)


class GlobalPace:
    """At most ``rate`` of the bot's requests in any ``period`` seconds of ``clock``."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        rate: int = RATE,
        period: float = PERIOD,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """
        Args:
            clock: the service's clock (seconds), the one ``sleep`` sleeps in.
            rate: requests that fit in ``period`` seconds.
        """
        self.clock = clock
        self.sleep = sleep
        self.rate = rate
        self.period = period
        #: When the answered requests of the window were answered, oldest first.
        self._answered: deque[float] = deque()
        #: Requests let go and not answered yet.
        self._flying = 0
        #: Requests wait their turn one behind another, in the order they came.
        self._turn: asyncio.Lock | None = None
        #: How many requests waited for room, and for how long at most (seconds).
        self.waited = 0
        self.longest_wait = 0.0
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._on_start)
        self.trace.on_request_end.append(self._on_end)
        self.trace.on_request_exception.append(self._on_end)

    def used(self) -> int:
        """Requests that count now (those under way too)."""
        self._sweep()
        return len(self._answered) + self._flying

    def _sweep(self) -> None:
        now = self.clock()
        while self._answered and self._answered[0] <= now - self.period:
            self._answered.popleft()

    def _wait(self) -> float:
        """Seconds until one more request fits (0: now; ``inf``: when one is answered)."""
        self._sweep()
        if len(self._answered) + self._flying < self.rate:
            return 0.0
        if not self._answered:
            return math.inf
        return self._answered[0] + self.period - self.clock()

    async def acquire(self) -> None:
        """Wait until a request fits in the window, then count it as under way."""
        if self._turn is None:
            self._turn = asyncio.Lock()
        if self._wait() <= 0 and not self._turn.locked():
            self._flying += 1
            return
        began = self.clock()
        async with self._turn:
            while (wait := self._wait()) > 0:
                await self.sleep(UNDER_WAY_LOOK if math.isinf(wait) else wait)
            self._flying += 1
        self.waited += 1
        self.longest_wait = max(self.longest_wait, self.clock() - began)

    def release(self) -> None:
        """A request counted by :meth:`acquire` was answered (or failed) now: it counts a
        full period more."""
        self._flying = max(0, self._flying - 1)
        self._answered.append(self.clock())

    async def _on_start(
        self, _session: aiohttp.ClientSession, context: SimpleNamespace, params: Any
    ) -> None:
        context.genial_counted = bound(params.url)
        if context.genial_counted:
            await self.acquire()

    async def _on_end(
        self, _session: aiohttp.ClientSession, context: SimpleNamespace, _params: Any
    ) -> None:
        if getattr(context, "genial_counted", False):
            context.genial_counted = False
            self.release()
