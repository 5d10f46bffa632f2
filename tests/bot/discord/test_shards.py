"""Discord shards from the command line: ``genial-bot discord --shard-count N --shard-ids
0,1`` runs those shards in one process (discord.py's AutoShardedClient)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.__main__ import build_parser, with_shards
from bot.config import ConfigError, Settings
from bot.discord.app import ShardedClient, build
from bot.discord.client import GenialClient
from bot.service import Service
from bot.store import SQLiteStore


def settings_for(*argv: str, platform: str = "discord") -> Settings:
    return with_shards(build_parser().parse_args(list(argv)), platform, Settings())


def test_shard_flags_become_settings() -> None:
    s = settings_for("discord", "--shard-count", "4", "--shard-ids", "3,1")
    assert (s.discord_shard_count, s.discord_shard_ids) == (4, (1, 3))
    s = settings_for("discord", "--shard-count", "2")
    assert (s.discord_shard_count, s.discord_shard_ids) == (2, ())
    assert settings_for("discord") == Settings()  # no flags: one connection, as before


@pytest.mark.parametrize(
    ("argv", "platform", "message"),
    [
        (("--shard-ids", "0,1"), "discord", "--shard-count must be a number of shards from 1 up"),
        (("--shard-count", "0"), "discord", "--shard-count must be a number of shards from 1 up"),
        (("--shard-count", "2", "--shard-ids", "0,2"), "discord", "from 0 to 1"),
        (("--shard-count", "2", "--shard-ids", "a"), "discord", "shard numbers like 0,1"),
        (("--shard-count", "2"), "telegram", "are for genial-bot discord"),
    ],
)
def test_bad_shard_flags_are_one_line(argv: tuple[str, ...], platform: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        settings_for(*argv, platform=platform)
    assert "\n" not in str(info.value)


def test_the_client_runs_the_named_shards(tmp_path: Path) -> None:
    service = Service(SQLiteStore(tmp_path / "t.db"), rng=random.Random(1))
    assert type(build(Settings(), service)) is GenialClient  # no shards: as before
    settings = settings_for("discord", "--shard-count", "4", "--shard-ids", "0,2")
    client = build(settings, service)
    assert isinstance(client, ShardedClient)
    assert isinstance(client, discord.AutoShardedClient)
    launched: list[tuple[int, bool]] = []

    async def launch_shard(gateway: Any, shard_id: int, *, initial: bool = False) -> None:
        launched.append((shard_id, initial))

    client.launch_shard = launch_shard  # type: ignore[method-assign]
    asyncio.run(client.launch_shards())
    # Shards 0 and 2 of 4 are connected here; a guild belongs to shard (id >> 22) % 4.
    assert launched == [(0, True), (2, False)]
    assert client._connection.shard_count == 4
