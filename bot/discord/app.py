"""``genial-bot discord``: the bot on Discord (see :mod:`bot.discord.client`).

The token comes from the environment variable the config names and is never logged: the
log handler blanks it out of every line, whoever writes it.

Setting up: create an application in Discord's developer portal, add a bot (no privileged
intent is needed), put its token in ``GENIAL_DISCORD_TOKEN`` and invite it with the scopes
``bot`` and ``applications.commands`` and the permissions View Channels, Send Messages,
Read Message History (to tell whether the lobby scrolled away), Embed Links and Attach
Files (with ``threads = true`` also Create Public Threads and Send Messages in Threads). The
slash commands are registered at every start.

SIGTERM and Ctrl-C stop the bot within :data:`STOP_GRACE` at any moment, start-up included
(discord.py retrying Discord, or its gateway): the connection is closed, and a command or
computer game still under way in a worker thread after the grace is given up as a kill
would give it up (the store keeps what was saved; a claim of due work is released by the
next start). The exit status is 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from typing import TextIO, TypeVar

import aiohttp
import discord

from bot.core.config import ConfigError, Settings, Unreachable
from bot.core.workers import Workers, run_loop
from bot.discord.client import GenialClient
from bot.discord.failures import why
from bot.operator import logs
from bot.service import Service
from bot.store import open_store

log = logging.getLogger(__name__)

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
HIDDEN = "[token]"
#: Seconds from SIGTERM or Ctrl-C until the process ends at the latest: the connection to
#: Discord is closed, then commands still in worker threads are waited for within what is
#: left of it.
STOP_GRACE = 1.5
#: discord.py's log lines as it retries the gateway after a failure of the network (or of
#: Discord's side), which it writes with a traceback: one line each in our log, since
#: nothing of ours failed. (An exception in one of our event handlers keeps its traceback.)
RETRIES = ("Attempting a reconnect", "Failed to connect for shard_id")
NETWORK = (
    OSError,
    aiohttp.ClientError,
    asyncio.TimeoutError,
    discord.GatewayNotFound,
    discord.ConnectionClosed,
    discord.DiscordServerError,
)

T = TypeVar("T")


class HideSecret(logging.Formatter):
    """A formatter that replaces a secret wherever it appears in a formatted line, and
    writes discord.py's retries after a network failure in one line, without the
    traceback (the record itself is left as it is for the other handlers)."""

    def __init__(self, secret: str, fmt: str = LOG_FORMAT) -> None:
        super().__init__(fmt)
        self._secret = secret

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        retry = isinstance(record.msg, str) and record.msg.startswith(RETRIES)
        if record.name.startswith("discord.") and retry and isinstance(exc, NETWORK):
            record = logging.makeLogRecord(record.__dict__)
            record.msg = f"{record.getMessage()} ({why(exc)})"
            record.args = None
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        text = super().format(record)
        return text.replace(self._secret, HIDDEN) if self._secret else text


def configure_logging(token: str, stream: TextIO | None = None) -> logging.Handler:
    """Log to ``stream`` (standard error) at INFO, with the token blanked out."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(HideSecret(token))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


class ShardedClient(GenialClient, discord.AutoShardedClient):
    """The bot on several shards in one process (discord.py's ``AutoShardedClient``).

    Several processes share a bot by running different shards on one database: each
    receives its shards' guilds' commands; due work goes to whichever process claims it in
    the store, and is delivered over the REST API whatever shard its guild is on."""


def build(settings: Settings, service: Service) -> GenialClient:
    if settings.discord_shard_count is None:
        return GenialClient(
            service,
            threads=settings.discord_threads,
            dm=settings.discord_dm,
            members=settings.discord_members,
        )
    client = ShardedClient(
        service,
        threads=settings.discord_threads,
        dm=settings.discord_dm,
        members=settings.discord_members,
    )
    # Read by AutoShardedClient when it connects (launch_shards), not before.
    client.shard_count = settings.discord_shard_count
    client.shard_ids = list(settings.discord_shard_ids) or None
    return client


class Stop:
    """SIGTERM and Ctrl-C (SIGINT): when the stop was asked for, if it was."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.at: float | None = None

    def __call__(self) -> None:
        if self.at is None:
            self.at = time.monotonic()
            log.info("stopping")
        self.event.set()

    def left(self) -> float:
        """Seconds left of the grace (all of it if no stop was asked for)."""
        return STOP_GRACE if self.at is None else self.at + STOP_GRACE - time.monotonic()


async def serve(client: GenialClient, token: str, stop: Stop) -> None:
    """Run the client until it ends or ``stop`` is asked for (SIGTERM, Ctrl-C), whatever it
    is doing then: logging in, retrying Discord or its gateway, or running. A failure to
    start is raised as discord.py raised it."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # not on Windows
            loop.add_signal_handler(sig, stop)
    running = asyncio.create_task(client.start(token), name="genial-discord")
    stopped = asyncio.create_task(stop.event.wait())
    try:
        await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not client.is_closed():
            try:
                await asyncio.wait_for(client.close(), timeout=max(0.0, stop.left()))
            except Exception as exc:  # (a timeout among them) the process ends anyway
                log.info("the connection to Discord was not closed cleanly: %s", why(exc))
        if not running.done():
            running.cancel()
        await asyncio.wait({running})
    if stop.at is None:
        running.result()  # it ended by itself: a failure to start is raised
    elif not running.cancelled() and running.exception() is not None:
        log.info("stopped while starting: %s", why(running.exception() or Exception()))


def run(client: GenialClient, token: str, workers: Workers, stop: Stop) -> None:
    """:func:`serve` on an event loop of its own whose worker threads are ``workers``
    (see :func:`bot.core.workers.run_loop`)."""
    run_loop(serve(client, token, stop), workers)


def main(settings: Settings) -> int:
    """Run the bot until it is stopped (SIGTERM, Ctrl-C); the exit status: 0.

    Raises:
        ConfigError: if the token is missing or Discord rejects it.
        Unreachable: if Discord cannot be reached.
    """
    token = settings.token("discord")
    if not token:
        raise ConfigError(f"set the environment variable {settings.discord_token_env}")
    logs.apply(configure_logging(token), settings)
    main_thread = threading.current_thread() is threading.main_thread()
    # Until the event loop's own handlers take over (opening the store, which may wait for
    # a server), SIGTERM interrupts the start as an exit with status 0. Not as Ctrl-C's
    # KeyboardInterrupt: one raised inside psycopg's connection attempt could come out
    # again after it was handled, and Python then ends itself by SIGINT (status -2).
    previous = signal.signal(signal.SIGTERM, _exit_at_start) if main_thread else None
    try:
        return _main(settings, token)
    except (KeyboardInterrupt, _StoppedAtStart):
        log.info("stopped while starting")
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class _StoppedAtStart(SystemExit):
    """SIGTERM before the event loop runs: an exit with status 0 wherever it surfaces."""


def _exit_at_start(signum: int, frame: object) -> None:
    raise _StoppedAtStart(0)


def _main(settings: Settings, token: str) -> int:
    log.info("opening the store")
    store = open_store(settings.storage, wait=settings.store_wait)
    workers, stop = Workers(), Stop()
    try:
        client = build(settings, Service(store, settings))
        try:
            run(client, token, workers, stop)
        except discord.LoginFailure:
            raise ConfigError(
                f"Discord rejected the token in {settings.discord_token_env}"
            ) from None
        except (OSError, aiohttp.ClientError) as exc:
            # No network at start (or Discord away): one line, not discord.py's traceback.
            raise Unreachable(f"cannot reach Discord ({type(exc).__name__})") from None
        except discord.DiscordServerError as exc:
            # Discord answered a 5xx at start, after discord.py's retries.
            raise Unreachable(f"cannot reach Discord ({why(exc)})") from None
        except discord.HTTPException as exc:
            # Discord refused the start otherwise (a 4xx): nothing a restart would change.
            raise ConfigError(f"cannot reach Discord ({why(exc)})") from None
        if not workers.finish(stop.left()):
            # A command or a computer game in a worker thread, past the grace: given up as
            # a kill would (the store keeps what was saved; the next start releases the
            # claim of this process's due work). Closing the store would wait for it.
            log.warning("stopped with work under way in a worker thread, given up")
            logging.shutdown()
            os._exit(0)
    finally:
        store.close()
        workers.shutdown(wait=False, cancel_futures=True)
    return 0
