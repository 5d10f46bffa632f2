"""The web board's edge with the internet: how long a client may take (aiohttp's own
timeouts, set from :class:`bot.web.guard.Limits`), reading a request's JSON body (its
size, its time, its depth), and the answer to a request aiohttp could not even read (a
short JSON ``{"error": ...}`` like every other refusal, and one line in the log).

A client that opens a connection and sends no whole request head within
``Limits.idle_timeout`` (a slow trickle of header lines too) is closed, and so is one idle
that long after an answer; a body that takes longer than ``Limits.body_timeout`` gets 408,
one announced larger than :data:`bot.web.guard.MAX_BODY` gets 413 at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from http import HTTPStatus
from typing import Any

from aiohttp import web

from bot.web.guard import MAX_BODY, Limits, Refused, _headers, error

log = logging.getLogger("bot.web")


async def read_json(request: web.Request, limits: Limits) -> Any:
    """The request's body as JSON (any JSON: the caller checks its shape).

    Raises:
        Refused: 413 for a body announced or found larger than :data:`MAX_BODY`, 408 for
            one that does not arrive within ``limits.body_timeout``, 400 for one that is
            not JSON or is nested deeper than the parser goes.
    """
    size = request.content_length
    if size is not None and size > MAX_BODY:
        raise Refused(413, "the body is too large")
    try:
        async with asyncio.timeout(limits.body_timeout):
            raw = await request.read()
    except TimeoutError:
        raise Refused(408, "the body came too slowly") from None
    except web.HTTPRequestEntityTooLarge:  # sent without a length, found too large
        raise Refused(413, "the body is too large") from None
    try:
        return json.loads(raw)
    except RecursionError:
        raise Refused(400, "the body is nested too deep") from None
    except ValueError:  # UnicodeDecodeError is one
        raise Refused(400, "the body is not JSON") from None


def _reason(status: int) -> str:
    if status == HTTPStatus.BAD_REQUEST:
        return "malformed request: check its request line and headers"
    try:
        return HTTPStatus(status).phrase.lower()
    except ValueError:
        return "malformed request"


class _Protocol(web.RequestHandler):
    """aiohttp's connection handler, but a request it could not read (a malformed request
    line or header, a head too large) is answered with the short JSON error, and logged
    in one line that repeats none of it."""

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status == HTTPStatus.INTERNAL_SERVER_ERROR:  # a fault of ours: the traceback
            self.log_exception("the web board failed on a request", exc_info=exc)
            text = "something went wrong here: try again"
        else:
            name = type(exc).__name__ if exc is not None else "-"
            log.info("refused a malformed request from %s: %d (%s)", request.remote, status, name)
            text = _reason(status)
        if request.writer.output_size > 0:
            raise ConnectionError("an answer was sent already: the connection is closed")
        response = error(status, text)
        _headers(response)
        response.force_close()
        return response


class _Server(web.Server):
    """aiohttp's server whose connections are :class:`_Protocol`'s."""

    def __init__(self, made: web.Server, options: dict[str, Any]) -> None:
        super().__init__(
            made.request_handler,
            request_factory=made.request_factory,
            handler_cancellation=made.handler_cancellation,
            **options,
        )
        self._options = options
        self._made_in = asyncio.get_running_loop()

    def __call__(self) -> web.RequestHandler:
        return _Protocol(self, loop=self._made_in, **self._options)


class Runner(web.AppRunner):
    """aiohttp's runner with the board's timeouts (:class:`Limits`) and JSON errors."""

    def __init__(self, app: web.Application, limits: Limits, shutdown_timeout: float) -> None:
        self._options: dict[str, Any] = {
            "keepalive_timeout": limits.idle_timeout,
            "lingering_time": limits.linger,
            "auto_decompress": False,  # a page never sends a compressed body
            "access_log": None,
        }
        super().__init__(app, shutdown_timeout=shutdown_timeout, **self._options)

    async def _make_server(self) -> web.Server:
        return _Server(await super()._make_server(), self._options)
