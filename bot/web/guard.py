"""The web board's limits and headers: the largest body read, requests allowed per address
and player (token buckets), and the middleware that puts the security headers on every
answer and turns every refusal into a short JSON error.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from bot.store import StoreError

#: Largest request body read (a command is a few dozen bytes).
MAX_BODY = 4096
#: Content-Security-Policy of every answer: nothing inline, nothing from elsewhere.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'self' https://web.telegram.org"
)


@dataclass(frozen=True)
class Limits:
    """Requests allowed: a burst and a steady rate (per second), per address and per
    player; open live pages per address."""

    pages_burst: float = 60
    pages_rate: float = 2.0
    moves_burst: float = 20
    moves_rate: float = 2.0
    live_per_address: int = 64


class Buckets:
    """Token buckets by key: ``allow(key)`` takes one token if there is one."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float]) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self._level: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        now = self.clock()
        level, at = self._level.pop(key, (self.burst, now))
        level = min(self.burst, level + (now - at) * self.rate)
        ok = level >= 1.0
        self._level[key] = (level - 1.0 if ok else level, now)
        while len(self._level) > 100_000:  # forget the oldest addresses, never grow forever
            self._level.popitem(last=False)
        return ok


def error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status, headers={"Cache-Control": "no-store"})


class Refused(Exception):
    """A request refused with a short JSON error; nothing changed."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status, self.text = status, text


def _refuse(status: int, text: str) -> Refused:
    return Refused(status, text)


@web.middleware
async def _guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Security headers on every answer; every error a short JSON one."""
    try:
        response = await handler(request)
    except Refused as exc:
        response = error(exc.status, exc.text)
    except web.HTTPException as exc:
        response = error(exc.status, exc.reason.lower())
    except StoreError:
        response = error(503, "the store does not answer: try again soon")
    _headers(response)
    return response


def _headers(response: web.StreamResponse) -> None:
    if response.prepared:
        return
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers.setdefault("Cache-Control", "no-store")
