"""``genial-bot telegram``: the bot in Telegram groups (python-telegram-bot 22).

Builds the Application (the per-chat rate limiter, the Bot API server from
``telegram.base_url``), attaches the :class:`~bot.telegram.adapter.TelegramAdapter` and
runs it by long polling or, with ``telegram.mode = "webhook"``, behind a webhook. Pending
updates are never dropped at start, so what players sent while the bot was down is
answered when it is back.

The token comes only from the environment variable the config names. It is part of every
Bot API address, so log lines and error messages pass through :class:`Redactor` before
anyone sees them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import os
import signal
import socket
import ssl
import sys
from collections.abc import Callable
from typing import Any, TextIO
from urllib.parse import urlsplit

import httpx
from telegram.error import (
    BadRequest,
    Conflict,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import Application, BaseRateLimiter
from telegram.request import HTTPXRequest

from bot.core.config import ConfigError, Settings, TelegramSettings, Unreachable
from bot.core.workers import Workers, run_loop
from bot.operator import logs
from bot.service import Service
from bot.store import open_store
from bot.telegram.adapter import ALLOWED_UPDATES, TelegramAdapter
from bot.telegram.limiter import ChatRateLimiter

log = logging.getLogger(__name__)
#: Why a second polling process stops (Telegram gives each update to one poller only).
SECOND_POLLER = (
    "another process is already polling this bot's updates (Telegram answered 409 Conflict):"
    " run one polling process per token, or several behind a webhook"
)

#: Seconds a getUpdates request waits on the server for news (long polling).
POLL_TIMEOUT = 30
#: Seconds a stopping bot may take to stop cleanly before what it still does is cancelled.
STOP_GRACE = 1.5
#: How often Telegram's requests that failed on the network are retried at start.
START_RETRIES = 5
REDACTED = "[token]"


class Redactor:
    """Replaces a secret (the token, and its part after the colon) in text."""

    def __init__(self, *secrets_: str) -> None:
        parts: set[str] = set()
        for secret in secrets_:
            if secret:
                parts.add(secret)
                _, _, tail = secret.partition(":")
                if len(tail) >= 8:
                    parts.add(tail)
        # Longest first, so the whole token goes before its tail is looked for.
        self._parts = sorted(parts, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for part in self._parts:
            text = text.replace(part, REDACTED)
        return text


class RedactingFormatter(logging.Formatter):
    """A formatter whose output (message, arguments and traceback) never holds the
    secret: the last step before a log line leaves the process."""

    def __init__(self, redact: Redactor, fmt: str | None = None) -> None:
        super().__init__(fmt or "%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))


def install_logging(
    secret: str | Redactor, stream: TextIO | None = None, level: int = logging.INFO
) -> logging.Handler:
    """Log to ``stream`` (standard error) with the token (or whatever ``secret`` redacts)
    taken out; returns the handler.

    httpx logs every request's address (which holds the token) at INFO: it is kept to
    warnings, and the formatter redacts whatever else might carry the token.
    """
    redact = secret if isinstance(secret, Redactor) else Redactor(secret)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(RedactingFormatter(redact))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("httpx").setLevel(max(level, logging.WARNING))
    return handler


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The context every connection to the Bot API is verified with, made once a process as
    httpx makes it (certifi's roots, or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``)."""
    return httpx.create_ssl_context()


def _request(connections: int, timeout: float | None = None) -> HTTPXRequest:
    """A request object as python-telegram-bot's builder makes it (256 connections for the
    bot's calls, one for getUpdates; its default timeouts unless ``timeout`` is given),
    with this process's one TLS context: httpx makes one for each client otherwise, 20 ms
    of CPU each."""
    tls: dict[str, Any] = {"verify": tls_context()}
    if timeout is None:
        return HTTPXRequest(connections, httpx_kwargs=tls)
    return HTTPXRequest(
        connections,
        read_timeout=timeout,
        write_timeout=timeout,
        media_write_timeout=timeout,
        connect_timeout=timeout,
        httpx_kwargs=tls,
    )


def build_application(
    token: str,
    settings: TelegramSettings,
    *,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    timeout: float | None = None,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The python-telegram-bot Application, pointed at ``settings.base_url``.

    Updates are handled concurrently (the adapter keeps each table's in order), and the
    rate limiter (:class:`~bot.telegram.limiter.ChatRateLimiter` unless one is given)
    paces each chat within Telegram's flood limits and waits out a 429 in that chat
    alone. ``timeout``: how long a request may wait for its answer (python-telegram-bot's
    defaults if None).
    """
    base = settings.base_url.rstrip("/")
    return (
        Application.builder()
        .request(_request(256, timeout))
        .get_updates_request(_request(1))
        .token(token)
        .base_url(f"{base}/bot")
        .base_file_url(f"{base}/file/bot")
        .rate_limiter(rate_limiter or ChatRateLimiter())
        .concurrent_updates(True)
        .build()
    )


def webhook_secret(token: str) -> str:
    """The webhook's secret token: an HMAC of the bot token, so every webhook worker of one
    bot sets and expects the same one, and nobody without the token can make it."""
    return hmac.new(token.encode(), b"genial-bot webhook", hashlib.sha256).hexdigest()


def webhook_socket(listen: str, port: int) -> socket.socket:
    """A listening socket on ``listen``:``port`` that other processes may bind too
    (SO_REUSEPORT): webhook workers of one bot behind one public address.

    Raises:
        OSError: the port is taken by a process that did not allow sharing it.
    """
    family = socket.AF_INET6 if ":" in listen else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((listen, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


async def _initialize(app: Application[Any, Any, Any, Any, Any, Any], backoff: float) -> None:
    """``app.initialize()`` (which asks the server who the bot is), retried while the
    network fails; a rejected token fails at once."""
    delay = backoff
    for attempt in range(START_RETRIES + 1):
        try:
            await app.initialize()
            return
        except InvalidToken:
            raise
        except NetworkError as exc:
            if attempt == START_RETRIES:
                raise
            log.warning("cannot reach the Bot API server (%s); trying again in %.0f s", exc, delay)
            await asyncio.sleep(delay)
            delay *= 2


async def serve(
    adapter: TelegramAdapter,
    app: Application[Any, Any, Any, Any, Any, Any],
    settings: TelegramSettings,
    stop: asyncio.Event,
    *,
    ready: Callable[[], None] | None = None,
    poll_timeout: int = POLL_TIMEOUT,
    backoff: float = 1.0,
    secret_token: str | None = None,
) -> None:
    """Run the bot until ``stop`` is set, then shut down cleanly: updates already fetched
    are handled and marked read, a deadline check under way is finished.

    Raises:
        InvalidToken: the server rejected the token.
        NetworkError: the server could not be reached at the start.
    """
    conflicts: list[Conflict] = []
    # Set by ``stop`` or by a conflict. A conflict does not set ``stop`` itself: the caller
    # takes ``stop`` for a signal and would give up a bot still starting, losing the reason.
    halt = asyncio.Event()

    def on_poll_error(exc: TelegramError) -> None:
        # 409 Conflict: another process polls this token; Telegram hands each update to
        # one of them, so both would play half the games. This one stops.
        if isinstance(exc, Conflict):
            conflicts.append(exc)
            halt.set()
        else:
            log.warning("fetching updates failed: %s", exc)

    async def relay() -> None:
        await stop.wait()
        halt.set()

    adapter.attach(app)
    await _initialize(app, backoff)
    relaying = asyncio.create_task(relay())
    try:
        await adapter.register_commands()
        await app.start()
        assert app.updater is not None
        if settings.mode == "webhook":
            path = urlsplit(settings.webhook_url).path.strip("/")
            await app.updater.start_webhook(
                # Our own socket, bound with SO_REUSEPORT: several processes with the same
                # settings serve one port, the kernel spreading the connections among them.
                unix=webhook_socket(settings.listen, settings.port),
                url_path=path,
                webhook_url=settings.webhook_url,
                # Telegram sends the secret with every update, so posts from anyone else
                # are refused; derived from the token, it is the same in every process.
                secret_token=secret_token or webhook_secret(app.bot.token),
                allowed_updates=ALLOWED_UPDATES,
                drop_pending_updates=False,
                bootstrap_retries=START_RETRIES,
            )
        else:
            await app.updater.start_polling(
                timeout=poll_timeout,
                allowed_updates=ALLOWED_UPDATES,
                drop_pending_updates=False,
                bootstrap_retries=START_RETRIES,
                error_callback=on_poll_error,
            )
        # Computer players whose turn came while the bot was down move now.
        await adapter.tick()
        due = asyncio.create_task(adapter.due_loop(halt))
        if ready is not None and not conflicts:
            ready()
        await halt.wait()
        await due
        if conflicts:
            raise conflicts[0]
    finally:
        relaying.cancel()
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        await app.shutdown()


def main(settings: Settings) -> int:
    """Run the Telegram bot until SIGINT or SIGTERM; the exit status: 0 after a clean
    stop, 1 after an unexpected error (logged, redacted).

    Raises:
        ConfigError: no token, or a token or request the server rejects (in one line,
            without the token).
        Unreachable: a server that cannot be reached.
    """
    env = settings.telegram_token_env
    token = settings.token("telegram")
    if not token:
        raise ConfigError(f"set the environment variable {env} to the telegram bot's token")
    token = token.strip()
    secret = webhook_secret(token)
    redact = Redactor(token, secret)
    handler = logs.apply(install_logging(redact), settings)
    store = open_store(settings.storage, wait=settings.store_wait)
    workers = Workers()
    try:
        service = Service(store, settings)
        run_loop(_run(service, settings.telegram, token, secret), workers)
        if not workers.finish(STOP_GRACE):
            # A command or a computer game in a worker thread, past the grace: given up as
            # a kill would (the store keeps what was saved, and what the bot was to say
            # waits in its outbox; the next start takes over this process's claims).
            # Closing the store would wait for it.
            log.warning("stopped with work under way in a worker thread, given up")
            logging.shutdown()
            os._exit(0)
    except Conflict:
        raise ConfigError(SECOND_POLLER) from None
    except InvalidToken:
        raise ConfigError(
            f"the Bot API server at {settings.telegram.base_url} rejected the token in {env}"
        ) from None
    except TelegramError as exc:
        why = f"cannot reach the Bot API server at {settings.telegram.base_url}: {redact(str(exc))}"
        if isinstance(exc, NetworkError | RetryAfter) and not isinstance(exc, BadRequest):
            # The network or the server, still away after the retries: a restart tries again.
            raise Unreachable(why) from None
        raise ConfigError(why) from None
    except Exception:
        # Through the redacting log, not as a bare traceback on standard error.
        log.exception("the Telegram bot stopped on an error")
        return 1
    finally:
        store.close()
        workers.shutdown(wait=False, cancel_futures=True)
        logging.getLogger().removeHandler(handler)
    return 0


async def _run(service: Service, settings: TelegramSettings, token: str, secret: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # not on Windows
            loop.add_signal_handler(sig, stop.set)
    adapter = TelegramAdapter(service)
    app = build_application(token, settings)
    log.info("starting on Telegram (%s)", settings.mode)
    running = asyncio.Event()

    def ready() -> None:
        log.info("running")
        running.set()

    serving = asyncio.create_task(
        serve(adapter, app, settings, stop, ready=ready, secret_token=secret)
    )
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({serving, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if not serving.done():
        # Stopped by a signal. A running bot stops itself (it waits for the same event)
        # within STOP_GRACE; one still starting (retrying a server it cannot reach) is
        # given up at once: SIGTERM and Ctrl-C end the process at any moment.
        if running.is_set():
            await asyncio.wait({serving}, timeout=STOP_GRACE)
        if not serving.done():
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
            return
    serving.result()
