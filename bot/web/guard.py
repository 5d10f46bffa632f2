"""The web board's limits and headers: the largest body read, requests allowed per address
and player (token buckets), and the middleware that puts the security headers on every
answer and turns every refusal into a short JSON error.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from bot.store import StoreError

log = logging.getLogger("bot.web")

#: Largest request body read (a command is a few dozen bytes).
MAX_BODY = 4096
#: Content-Security-Policy of every answer: nothing inline, nothing from elsewhere.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'self' https://web.telegram.org"
)
#: The policy of the page as a Discord Activity: embedded by Discord's clients (the web
#: and desktop apps' frames, through the app's own ``*.discordsays.com`` proxy).
ACTIVITY_CSP = CSP.replace(
    "frame-ancestors 'self' https://web.telegram.org",
    "frame-ancestors 'self' https://discord.com https://*.discord.com https://discordapp.com"
    " https://*.discordapp.com https://*.discordsays.com",
)


@dataclass(frozen=True)
class Limits:
    """What the board allows (docs/web.md, Limits): requests as token buckets (a burst and
    a steady rate per second), open live pages, and how long a client may take.

    Whatever carries a valid seat token is counted per seat (a table's player), so players
    behind one address (a club, a school) never share a budget; what has no seat (a
    watcher's page and look, a replay, a Mini App's session, a bad token) per address,
    high enough for a club or a school behind one.
    """

    #: Requests without a seat, per address.
    pages_burst: float = 300
    pages_rate: float = 5.0
    #: A seat's page, looks and previews, per seat.
    seat_burst: float = 60
    seat_rate: float = 2.0
    #: Moves (and hints), per seat.
    moves_burst: float = 20
    moves_rate: float = 2.0
    #: Open live pages: a watcher's per address, a seat's per seat.
    live_per_address: int = 256
    live_per_seat: int = 8
    #: Seconds a connection may stay without a whole request head: since it opened, or
    #: since its last answer (aiohttp's ``keepalive_timeout``; also the idle timeout).
    idle_timeout: float = 15.0
    #: Seconds a request's body may take to arrive once its head is in.
    body_timeout: float = 10.0
    #: Seconds the rest of a body nobody read is still taken after the answer, before the
    #: connection closes (aiohttp's ``lingering_time``).
    linger: float = 2.0


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
        if exc.status in (408, 413):
            # The body was not read to its end: what follows on the connection is the rest
            # of it, no next request. Closed after the answer (and aiohttp's linger), not
            # kept open until the idle timeout.
            response.force_close()
    except web.HTTPException as exc:
        response = error(exc.status, exc.reason.lower())
    except StoreError:
        response = error(503, "the store does not answer: try again soon")
    except ConnectionResetError:  # aiohttp's ClientConnectionResetError too
        # The client left mid-request (mid-body): nobody to answer, one line to log.
        log.info("a client left in the middle of its request (%s)", _route(request))
        response = error(400, "the connection was lost")
    except Exception:  # a fault of ours: the traceback for the operator, JSON for the page
        log.exception("the web board failed on a request (%s)", _route(request))
        response = error(500, "something went wrong here: try again")
    _headers(response)
    return response


def _route(request: web.Request) -> str:
    """The route a request took, without its ids or tokens."""
    resource = request.match_info.route.resource
    return f"{request.method} {resource.canonical if resource is not None else '?'}"


def _headers(response: web.StreamResponse) -> None:
    if response.prepared:
        return
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers.setdefault("Cache-Control", "no-store")
