"""Discord misbehaving, call by call: faults injected under the bot's HTTP calls.

SimCord offers ``env.inject_error`` (a status and code for calls matching a path, a number
of times); Discord's failures are richer than that. This harness wraps the two transports
SimCord puts in place of discord.py's (``HTTPClient.request`` for REST calls, the webhook
adapter for interaction answers) and fails chosen kinds of call at a chosen rate:

- ``rate_limit``: 429 with a ``Retry-After``; ``server_error``: 503;
- ``timeout`` and ``dropped``: the call never reached Discord; ``lost_answer``: it did and
  took effect, then the connection dropped before the answer came back;
- ``unknown_message`` (404, 10008): a message to edit or delete no longer exists;
- ``missing_permissions`` (403, 50013), ``dm_closed`` (403, 50007);
- ``expired``: the interaction's token expired (after 15 minutes): 404 Unknown Interaction
  (10062) for the acknowledgement, 401 Invalid Webhook Token (50027) for what follows;
- ``unknown_channel`` (404, 10003) and ``missing_access`` (403, 50001): the channel was
  deleted, or the bot removed from the server;
- ``killed`` and ``killed_after``: the bot dies with this call under way, before it reached
  Discord or once Discord took it: the call never returns, and the bot does nothing more
  of the command (the call's task is cancelled, which nothing of the bot catches).

discord.py itself retries 429s, 5xx answers and reset connections a few times inside the
``HTTPClient.request`` SimCord replaces; what this harness raises is what reaches the bot
once those retries are spent. It also does what Discord does with a message's ``nonce``
(discord.py always sends ``enforce_nonce``): a second message with the same nonce is not
created, the first one is answered again.

:func:`disconnect` and :func:`resume` drop and restore the gateway connection.
"""

from __future__ import annotations

import asyncio
import fnmatch
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import simcord
from simcord.http import client as simcord_http
from simcord.http import router

#: Kinds of call, by method and API path (the first match wins).
KINDS = (
    ("POST", "/interactions/*/*/callback", "ack"),
    ("POST", "/webhooks/*/*", "followup"),
    ("*", "/webhooks/*/*/messages/*", "original"),
    ("POST", "/users/@me/channels", "dm"),
    ("POST", "/channels/*/messages", "post"),
    ("PATCH", "/channels/*/messages/*", "edit"),
    ("DELETE", "/channels/*/messages/*", "delete"),
    ("GET", "/channels/*/messages", "history"),
    ("POST", "/channels/*/threads", "thread"),
    ("PUT", "/applications/*/commands", "sync"),
)
FAULTS = (
    "rate_limit",
    "server_error",
    "timeout",
    "dropped",
    "lost_answer",
    "unknown_message",
    "missing_permissions",
    "dm_closed",
    "expired",
    "unknown_channel",
    "missing_access",
    "killed",
    "killed_after",
)
#: (status, code, message) of the faults Discord answers with an error.
ERRORS = {
    "rate_limit": (429, 0, "You are being rate limited."),
    "server_error": (503, 0, "Service Unavailable"),
    "unknown_message": (404, 10008, "Unknown Message"),
    "missing_permissions": (403, 50013, "Missing Permissions"),
    "dm_closed": (403, 50007, "Cannot send messages to this user"),
    "unknown_channel": (404, 10003, "Unknown Channel"),
    "missing_access": (403, 50001, "Missing Access"),
}
#: A rate limit's wait. Above SimCord's settle timeout (5 s): a shorter sleep of the bot's
#: counts as work in progress, which SimCord waits out in real time.
RETRY_AFTER = 8.0


class _Response:
    """What discord.py's HTTP errors read of an aiohttp response."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.reason = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}.get(status, "Error")
        self.headers = headers or {}


def http_error(status: int, code: int, message: str, **headers: str) -> discord.HTTPException:
    """The exception discord.py raises for an error answer from Discord."""
    response: Any = _Response(status, headers)
    data = {"code": code, "message": message}
    if status == 403:
        return discord.Forbidden(response, data)
    if status == 404:
        return discord.NotFound(response, data)
    if status >= 500:
        return discord.DiscordServerError(response, data)
    return discord.HTTPException(response, data)


def kind_of(method: str, path: str) -> str:
    for m, pattern, kind in KINDS:
        if m in (method, "*") and fnmatch.fnmatch(path, pattern):
            return kind
    return "other"


@dataclass
class Rule:
    kind: str
    fault: str
    rate: float
    times: int | None
    chat: int | None


class Faults:
    """Faults to inject, and what was injected and sent."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.rules: list[Rule] = []
        self.injected: Counter[tuple[str, str]] = Counter()
        #: Messages created through a nonce: nonce -> the answer Discord gave.
        self.nonces: dict[str, Any] = {}
        #: Sends answered from an earlier message with the same nonce (not doubled).
        self.repeated = 0
        #: When each fault was injected (by :attr:`clock`, once a test sets it).
        self.clock: Callable[[], float] = lambda: 0.0
        self.log: list[tuple[float, str, str]] = []
        #: What else dies with the bot at a ``killed`` fault (its clock task, say).
        self.on_kill: Callable[[], None] = lambda: None

    def inject(
        self,
        kind: str,
        fault: str,
        *,
        rate: float = 1.0,
        times: int | None = None,
        chat: int | None = None,
    ) -> None:
        """Fail calls of ``kind`` (``"*"`` for every kind) with ``fault``, each with
        probability ``rate``, ``times`` times at most (``None``: until cleared); ``chat``
        limits it to calls about one channel."""
        assert fault in FAULTS, fault
        assert kind == "*" or kind in {k for _, _, k in KINDS}, kind
        self.rules.append(Rule(kind, fault, rate, times, chat))

    def clear(self) -> None:
        """Discord works again."""
        self.rules.clear()

    def _pick(self, kind: str, path: str) -> str | None:
        for rule in self.rules:
            if rule.kind not in (kind, "*") or rule.times == 0:
                continue
            if rule.chat is not None and f"/channels/{rule.chat}" not in path:
                continue
            if self.rng.random() >= rule.rate:
                continue
            if rule.times is not None:
                rule.times -= 1
            self.injected[kind, rule.fault] += 1
            self.log.append((self.clock(), kind, rule.fault))
            return rule.fault
        return None

    async def call(self, kind: str, path: str, body: Any, send: Any) -> Any:
        """One call of ``kind`` through the transport: ``send`` does it at Discord."""
        fault = self._pick(kind, path)
        if fault == "killed":
            self.on_kill()
            raise asyncio.CancelledError
        if fault in ("timeout", "dropped"):
            # Never reached Discord.
            if fault == "timeout":
                raise TimeoutError
            raise aiohttp.ServerDisconnectedError()
        if fault == "expired":
            if kind == "ack":
                raise http_error(404, 10062, "Unknown interaction")
            raise http_error(401, 50027, "Invalid Webhook Token")
        if fault == "rate_limit":
            status, code, message = ERRORS[fault]
            raise http_error(status, code, message, **{"Retry-After": str(RETRY_AFTER)})
        if fault in ERRORS:
            raise http_error(*ERRORS[fault])
        nonce = body.get("nonce") if isinstance(body, dict) and kind == "post" else None
        if nonce is not None and body.get("enforce_nonce") and str(nonce) in self.nonces:
            self.repeated += 1
            answer = self.nonces[str(nonce)]
        else:
            answer = await send()
            if nonce is not None:
                self.nonces[str(nonce)] = answer
        if fault == "lost_answer":
            raise aiohttp.ServerDisconnectedError()
        if fault == "killed_after":
            self.on_kill()
            raise asyncio.CancelledError
        return answer


def _kind(transport: Any, route: Any) -> tuple[str, str]:
    """The kind of a call and its path; a message to a direct-message channel is ``dm``."""
    path = simcord_http._path_of(route.url)
    kind = kind_of(route.method, path)
    if kind == "post":
        channel = transport.backend.channels.get(int(path.split("/")[2]))
        if channel is not None and channel.guild_id is None:
            kind = "dm"
    return kind, path


@contextmanager
def injecting(faults: Faults) -> Iterator[Faults]:
    """Route SimCord's transports through ``faults`` while the block runs."""
    rest, hooks = simcord_http.FakeHTTPClient.request, simcord_http.FakeWebhookAdapter.request

    async def rest_request(self: Any, route: Any, **kw: Any) -> Any:
        body = kw.get("json")
        if kw.get("form") is not None:
            body = router.parse_form(list(kw["form"]), list(kw.get("files") or []))[0]
        return await faults.call(*_kind(self, route), body, lambda: rest(self, route, **kw))

    async def hook_request(self: Any, route: Any, session: Any, **kw: Any) -> Any:
        body = kw.get("payload")
        if kw.get("multipart"):
            body = router.parse_form(kw["multipart"], list(kw.get("files") or []))[0]
        return await faults.call(
            *_kind(self, route), body, lambda: hooks(self, route, session, **kw)
        )

    simcord_http.FakeHTTPClient.request = rest_request  # type: ignore[method-assign]
    simcord_http.FakeWebhookAdapter.request = hook_request  # type: ignore[method-assign]
    try:
        yield faults
    finally:
        simcord_http.FakeHTTPClient.request = rest  # type: ignore[method-assign]
        simcord_http.FakeWebhookAdapter.request = hooks  # type: ignore[method-assign]


async def disconnect(env: simcord.Env, client: discord.Client) -> None:
    """The gateway connection drops: no event reaches the bot until :func:`resume`."""
    client.ws.open = False
    # Inside SimCord's bot scope, so the settling waits for what the event starts.
    with env._bot_scope():
        client.dispatch("disconnect")
    await env.settle()


async def resume(env: simcord.Env, client: discord.Client) -> None:
    """The gateway connection is resumed."""
    client.ws.open = True
    with env._bot_scope():
        client.dispatch("resumed")
    await env.settle()
