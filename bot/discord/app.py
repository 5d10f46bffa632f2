"""``genial-bot discord``: the bot on Discord (see :mod:`bot.discord.client`).

The token comes from the environment variable the config names and is never logged: the
log handler blanks it out of every line, whoever writes it.

Setting up: create an application in Discord's developer portal, add a bot (no privileged
intent is needed), put its token in ``GENIAL_DISCORD_TOKEN`` and invite it with the scopes
``bot`` and ``applications.commands`` and the permissions View Channels, Send Messages,
Read Message History (to tell whether the lobby scrolled away), Embed Links and Attach
Files (with ``threads = true`` also Create Public Threads and Send Messages in Threads). The
slash commands are registered at every start.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import aiohttp
import discord

from bot.config import ConfigError, Settings
from bot.discord.client import GenialClient
from bot.service import Service
from bot.store import open_store

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
HIDDEN = "[token]"


class HideSecret(logging.Formatter):
    """A formatter that replaces a secret wherever it appears in a formatted line."""

    def __init__(self, secret: str, fmt: str = LOG_FORMAT) -> None:
        super().__init__(fmt)
        self._secret = secret

    def format(self, record: logging.LogRecord) -> str:
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
        return GenialClient(service, threads=settings.discord_threads, dm=settings.discord_dm)
    client = ShardedClient(service, threads=settings.discord_threads, dm=settings.discord_dm)
    # Read by AutoShardedClient when it connects (launch_shards), not before.
    client.shard_count = settings.discord_shard_count
    client.shard_ids = list(settings.discord_shard_ids) or None
    return client


def main(settings: Settings) -> int:
    """Run the bot until it is stopped; the exit status.

    Raises:
        ConfigError: if the token is missing or Discord rejects it.
    """
    token = settings.token("discord")
    if not token:
        raise ConfigError(f"set the environment variable {settings.discord_token_env}")
    configure_logging(token)
    store = open_store(settings.storage)
    try:
        client = build(settings, Service(store, settings))
        try:
            client.run(token, log_handler=None)
        except discord.LoginFailure:
            raise ConfigError(
                f"Discord rejected the token in {settings.discord_token_env}"
            ) from None
        except (OSError, aiohttp.ClientError) as exc:
            # No network at start (or Discord away): one line, not discord.py's traceback.
            raise ConfigError(f"cannot reach Discord ({type(exc).__name__})") from None
    finally:
        store.close()
    return 0
