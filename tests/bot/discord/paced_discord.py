"""Discord's rate limits in SimCord's Discord, with discord.py's own handling of them.

SimCord replaces ``HTTPClient.request``, and with it discord.py's rate-limit handling (its
per-bucket :class:`discord.http.Ratelimit`, the global lock). :func:`install` puts that
handling back: the client's ``request`` is discord.py's own again, over a session whose
answers come from SimCord's routes, after :class:`Limits` has let each call through, or
answered it with a 429 as Discord does:

- every route's bucket, per major parameter (a channel, a guild, a webhook): 5 calls in a
  window of 5 s that starts at its first call (Discord's figures for a channel's messages;
  the same for every route here), the headers ``X-RateLimit-Limit``, ``-Remaining``,
  ``-Reset``, ``-Reset-After`` and ``-Bucket`` on every answer, as discord.py reads them;
- 50 calls a second over all routes (the global limit): over it, a 429 with
  ``"global": true`` and ``X-RateLimit-Global``;
- :meth:`Limits.plant`: the next call to a channel draws a 429 with a ``retry_after`` of
  the test's choosing, scope ``shared`` (a limit of the channel itself, which Discord
  documents for a resource shared by many, such as a busy channel).

A 429 carries ``Retry-After``, ``X-RateLimit-Scope`` and ``Via`` (discord.py takes a 429
without ``Via`` for Cloudflare's ban and raises at once). Interaction answers and
follow-ups go through SimCord's webhook adapter, unlimited: Discord does not count them in
the global limit, and a token's own is far above what a command says.

The client's ``http_trace`` (discord.py passes it to aiohttp's session) hears of each
call as aiohttp tells it, before it is sent and once it is answered: the client's pace of
Discord's global limit (:mod:`bot.discord.pace`) is part of what is measured.

Every call is noted (:attr:`Limits.calls`) with its time on the service's clock (SimCord's
virtual time), its status, and for a message the text people see.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import MethodType
from typing import Any

import aiohttp
import discord
from aiohttp.tracing import Trace
from discord.http import HTTPClient, Route
from multidict import CIMultiDict
from yarl import URL

from tests.bot.discord import patient_simcord

#: Calls in a bucket's window, and the window (Discord's for a channel's messages).
BUCKET_LIMIT = 5
BUCKET_WINDOW = 5.0
#: Calls a second over all routes.
GLOBAL_LIMIT = 50


@dataclass
class Call:
    """One call as Discord saw it."""

    at: float
    method: str
    path: str
    #: The channel of a channel's route (its id), else None.
    channel: int | None
    status: int
    #: What a posted or edited message says (its content and its embeds' descriptions).
    text: str = ""
    scope: str = ""


class Limits:
    """Discord's side of the rate limits: what each bucket and the whole bot used."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        limit: int = BUCKET_LIMIT,
        window: float = BUCKET_WINDOW,
        per_second: int = GLOBAL_LIMIT,
    ) -> None:
        self.clock = clock
        self.limit = limit
        self.window = window
        self.per_second = per_second
        #: Bucket -> (start of its window, calls in it).
        self.buckets: dict[str, tuple[float, int]] = {}
        self.recent: deque[float] = deque()
        #: Channel -> the retry_after its next call draws.
        self.planted: dict[int, float] = {}
        self.calls: list[Call] = []

    def plant(self, channel: int, retry_after: float) -> None:
        self.planted[channel] = retry_after

    def check(self, route: Route) -> tuple[int, dict[str, Any], CIMultiDict[str]]:
        """Whether Discord takes the call now: (200, {}, headers) or a 429's answer."""
        now = self.clock()
        bucket = f"{route.key}:{route.major_parameters}"
        digest = hashlib.sha1(route.key.encode()).hexdigest()[:16]
        headers: CIMultiDict[str] = CIMultiDict({"Content-Type": "application/json"})
        channel = route.channel_id
        if channel is not None and int(channel) in self.planted:
            wait = self.planted.pop(int(channel))
            return self._refused(headers, wait, "shared")
        while self.recent and self.recent[0] <= now - 1.0:
            self.recent.popleft()
        if len(self.recent) >= self.per_second:
            wait = self.recent[0] + 1.0 - now
            headers["X-RateLimit-Global"] = "true"
            return self._refused(headers, wait, "global")
        start, used = self.buckets.get(bucket, (now, 0))
        if now >= start + self.window:
            start, used = now, 0
        reset_after = start + self.window - now
        headers.update(
            {
                "X-RateLimit-Limit": str(self.limit),
                "X-RateLimit-Bucket": digest,
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Reset": f"{start + self.window:.3f}",
            }
        )
        if used >= self.limit:
            headers["X-RateLimit-Remaining"] = "0"
            return self._refused(headers, reset_after, "user")
        self.buckets[bucket] = (start, used + 1)
        self.recent.append(now)
        headers["X-RateLimit-Remaining"] = str(self.limit - used - 1)
        return 200, {}, headers

    @staticmethod
    def _refused(
        headers: CIMultiDict[str], wait: float, scope: str
    ) -> tuple[int, dict[str, Any], CIMultiDict[str]]:
        wait = round(max(wait, 0.001), 3)
        headers.update({"Retry-After": str(wait), "X-RateLimit-Scope": scope, "Via": "1.1 google"})
        body = {"message": "You are being rate limited.", "retry_after": wait}
        body["global"] = scope == "global"
        return 429, body, headers


#: The call discord.py's ``request`` is making (its route and arguments as the bot gave
#: them), for the session to answer from SimCord's routes.
_CALL: contextvars.ContextVar[tuple[Route, dict[str, Any], list[Any]]] = contextvars.ContextVar(
    "call"
)


class _Answer:
    """What discord.py reads of an aiohttp response."""

    def __init__(self, status: int, body: Any, headers: CIMultiDict[str]) -> None:
        self.status = status
        self.reason = {200: "OK", 429: "Too Many Requests"}.get(status, "Error")
        self.headers = headers
        self._text = "" if body is None else json.dumps(body)

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def __aenter__(self) -> _Answer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Session:
    """discord.py's session: each call checked by the limits, then answered by SimCord;
    the client's trace configs (``http_trace``) hear of each as aiohttp's session tells
    them: its start before it is sent (they may make it wait), its end once answered."""

    def __init__(
        self, limits: Limits, simcord: Callable[..., Any], traces: list[aiohttp.TraceConfig]
    ) -> None:
        self.limits = limits
        self.simcord = simcord
        self.traces = traces
        for config in traces:
            config.freeze()
        self.closed = False

    def request(self, method: str, url: str, **_: Any) -> _Exchange:
        return _Exchange(self, URL(url), *_CALL.get())


class _Exchange:
    def __init__(
        self,
        session: _Session,
        url: URL,
        route: Route,
        call: dict[str, Any],
        noted: list[Any],
    ) -> None:
        self.session = session
        self.url = url
        self.route = route
        self.call = call
        #: The bot's request as :func:`install` notes it: [channel, came, first sent].
        self.noted = noted
        self.traces: list[Trace] = []
        self.answer: _Answer | None = None

    async def __aenter__(self) -> _Answer:
        for config in self.session.traces:
            trace = Trace(self.session, config, config.trace_config_ctx())  # type: ignore[arg-type]
            await trace.send_request_start(self.route.method, self.url, CIMultiDict())
            self.traces.append(trace)
        try:
            self.answer = await self._answer()
        except BaseException as exc:
            for trace in self.traces:
                await trace.send_request_exception(self.route.method, self.url, CIMultiDict(), exc)
            raise
        for trace in self.traces:
            await trace.send_request_end(
                self.route.method,
                self.url,
                CIMultiDict(),
                self.answer,  # type: ignore[arg-type]
            )
        return self.answer

    async def _answer(self) -> _Answer:
        limits = self.session.limits
        route = self.route
        if len(self.noted) == 2:
            self.noted.append(limits.clock())
        status, body, headers = limits.check(route)
        channel = int(route.channel_id) if route.channel_id is not None else None
        note = Call(limits.clock(), route.method, route.path, channel, status, _said(self.call))
        limits.calls.append(note)
        if status == 429:
            note.scope = headers["X-RateLimit-Scope"]
            return _Answer(status, body, headers)
        try:
            data = await self.session.simcord(route, **self.call)
        except discord.HTTPException as exc:
            note.status = exc.status
            return _Answer(exc.status, {"code": exc.code, "message": exc.text}, headers)
        return _Answer(200, data, headers)

    async def __aexit__(self, *exc: object) -> None:
        return None


def _said(call: dict[str, Any]) -> str:
    payload = call.get("json")
    form = call.get("form")
    if payload is None and form:
        for part in form:
            if part.get("name") == "payload_json":
                payload = json.loads(part["value"])
    if not isinstance(payload, dict):
        return ""
    parts = [str(payload.get("content") or "")]
    parts += [str(e.get("description") or "") for e in payload.get("embeds") or []]
    return "\n".join(p for p in parts if p)


def install(
    client: discord.Client,
    limits: Limits,
    *,
    requests: list[tuple[int | None, float, float]] | None = None,
) -> None:
    """The client's REST calls through discord.py's rate-limit handling and ``limits``
    (call once SimCord runs the client); ``requests`` gets each request's channel, when
    the bot made it and when it first reached Discord (discord.py's waits between).
    SimCord's settles take the bot's waits behind a rate limit as waiting on the clock
    (:func:`tests.bot.discord.patient_simcord.settle_on_waits`)."""
    patient_simcord.settle_on_waits(client)
    http: Any = client.http
    simcord_request = type(http).request.__get__(http)

    async def request(
        self: HTTPClient, route: Route, *, files: Any = None, form: Any = None, **kw: Any
    ) -> Any:
        channel = int(route.channel_id) if route.channel_id is not None else None
        noted: list[Any] = [channel, limits.clock()]
        _CALL.set((route, {"files": files, "form": form, **kw}, noted))
        try:
            return await HTTPClient.request(self, route, files=files, form=form, **kw)
        finally:
            if requests is not None and len(noted) == 3:
                requests.append((noted[0], noted[1], noted[2]))

    pace = getattr(client, "pace", None)
    traces = [pace.trace] if pace is not None else []
    http._HTTPClient__session = _Session(limits, simcord_request, traces)
    http._global_over = asyncio.Event()
    http._global_over.set()
    http.request = MethodType(request, http)
