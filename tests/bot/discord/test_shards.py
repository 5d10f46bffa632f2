"""Discord shards from the command line: ``genial-bot discord --shard-count N --shard-ids
0,1`` runs those shards in one process (discord.py's AutoShardedClient)."""

from __future__ import annotations

import asyncio
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.__main__ import build_parser, with_shards
from bot.core.config import ConfigError, Settings
from bot.core.outbound import User
from bot.discord.app import ShardedClient, build
from bot.discord.client import GenialClient
from bot.discord.shards import DIRECT, NOTE_GUILD, shard_of
from bot.service import Service
from bot.store import SQLiteStore
from tests.bot.discord.support import SETTINGS, EnvClock, text
from tests.patience import PATIENCE


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


ROOT = Path(__file__).resolve().parents[3]


def test_the_documented_shard_commands_split_the_shards_between_two_processes(
    tmp_path: Path,
) -> None:
    # The commands exactly as docs/operating.md shows them ("Running at scale", Discord shards).
    doc = (ROOT / "docs" / "operating.md").read_text()
    commands = [
        line.split("#")[0].split()[1:]
        for line in doc.splitlines()
        if line.startswith(".venv/bin/genial-bot discord --shard-count")
    ]
    assert len(commands) == 2
    service = Service(SQLiteStore(tmp_path / "t.db"), rng=random.Random(1))
    launched: list[list[int]] = []
    for argv in commands:
        client = build(settings_for(*argv), service)
        assert isinstance(client, ShardedClient)
        shards: list[int] = []

        async def launch_shard(gateway: Any, shard_id: int, *, initial: bool = False) -> None:
            shards.append(shard_id)  # noqa: B023 - called before the next loop step

        client.launch_shard = launch_shard  # type: ignore[method-assign]
        asyncio.run(client.launch_shards())
        launched.append(shards)
    # Shards 0 and 1 on one machine, 2 and 3 on the other: all four, none twice.
    assert launched == [[0, 1], [2, 3]]


# --- each process its own guilds' due work ---------------------------------------------

#: Guild ids worked out by hand: ((k << 22) + 7) >> 22 is k, so with two shards the guild
#: of k = 10 is on shard 10 % 2 = 0, and that of k = 11 on shard 11 % 2 = 1.
GUILD_ON_SHARD_0 = (10 << 22) + 7
GUILD_ON_SHARD_1 = (11 << 22) + 7
#: SimCord runs one simulated Discord per event loop: each process gets its own, in its
#: own thread, on the one store. Process 1 starts a second later, so that the ids of its
#: channels differ from process 0's; its deadlines fall a second later too.
LATER = 1.0
#: Half of the one-hour timeout (the reminder), then the other half (the move made for
#: the player), with a minute to spare each time.
HALF = 1800.0 + 60.0


class Process:
    """One bot process running one of two shards on the shared store, in a simulated
    Discord of its own; the tables its service claimed are recorded."""

    def __init__(self, db: Path, shard: int) -> None:
        settings = replace(SETTINGS, discord_shard_count=2, discord_shard_ids=(shard,))
        store = SQLiteStore(db)
        self.claimed: list[str] = []
        claim = store.claim

        def recorded(*args: Any, **kw: Any) -> list[str]:
            got = claim(*args, **kw)
            self.claimed += got
            return got

        store.claim = recorded  # type: ignore[method-assign]
        self.clock = EnvClock()
        self.service = Service(
            store, settings, clock=self.clock, rng=random.Random(shard), pictures=False
        )
        client = build(settings, self.service)
        assert isinstance(client, ShardedClient)
        self.client = client


async def seat_two(env: simcord.Env, channel: simcord.ChannelHandle, guild: Any) -> None:
    """Ada and Bob start a game with a one-hour timeout at ``channel``."""
    ada = guild.add_member(env.create_user(f"ada{channel.id}", global_name="Ada"))
    bob = guild.add_member(env.create_user(f"bob{channel.id}", global_name="Bob"))
    await ada.slash(channel, "join")
    await bob.slash(channel, "join")
    await ada.slash(channel, "option", setting="timeout", value="1h")
    await ada.slash(channel, "start")


def said(channel: simcord.ChannelHandle) -> list[str]:
    return [text(m) for m in channel.history() if not m.flags.ephemeral]


def test_each_process_does_its_own_shards_due_work(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    zero, one = Process(db, 0), Process(db, 1)
    step = threading.Barrier(2, timeout=PATIENCE)
    chats: dict[str, str] = {}
    seen: list[dict[str, tuple[bool, int]]] = []

    def look() -> None:
        """Where each table stands (reminded, moves played), from the store."""
        store = SQLiteStore(db)
        state = {}
        for name, chat in chats.items():
            table = store.load(chat)
            assert table is not None and table.record is not None
            state[name] = (table.reminded, len(table.record["moves"]))
        store.close()
        seen.append(state)

    async def sync(env: simcord.Env) -> None:
        await asyncio.to_thread(step.wait)

    async def run_zero() -> dict[str, list[str]]:
        async with simcord.run(zero.client) as env:
            zero.clock.env = env
            guild = env.create_guild("Zero", id=GUILD_ON_SHARD_0)
            channel = guild.create_text_channel("genial")
            await seat_two(env, channel, guild)
            # A table in a direct-message channel (no command of Discord's opens one,
            # and it has no note of its guild): it is shard 0's.
            ada, bob = env.create_user("adadm"), env.create_user("bobdm")
            dm = ada.dm_channel
            for who in (ada, bob):
                zero.service.handle(str(dm.id), User(str(who.id), who.name), "/join")
            zero.service.handle(str(dm.id), User(str(ada.id), "adadm"), "/option timeout 1h")
            zero.service.handle(str(dm.id), User(str(ada.id), "adadm"), "/start")
            chats.update(zero=str(channel.id), dm=str(dm.id))
            await sync(env)  # 1: both games run
            await env.advance_time(HALF)  # process 0 first: its reminders
            await sync(env)  # 2
            await sync(env)  # 3: process 1 did its reminder, then its move made
            await env.advance_time(HALF)  # process 0's moves made
            await sync(env)  # 4
            return {"zero": said(channel), "dm": said(dm)}

    async def run_one() -> dict[str, list[str]]:
        async with simcord.run(one.client) as env:
            one.clock.env = env
            await env.advance_time(LATER)
            guild = env.create_guild("One", id=GUILD_ON_SHARD_1)
            channel = guild.create_text_channel("genial")
            await seat_two(env, channel, guild)
            chats["one"] = str(channel.id)
            await sync(env)  # 1
            await sync(env)  # 2: process 0 did its reminders
            look()
            await env.advance_time(HALF)
            look()
            await env.advance_time(HALF)
            look()
            await sync(env)  # 3
            await sync(env)  # 4
            look()
            return {"one": said(channel)}

    with ThreadPoolExecutor(2) as pool:
        got_zero = pool.submit(asyncio.run, run_zero())
        got_one = pool.submit(asyncio.run, run_one())
        out = {**got_one.result(), **got_zero.result()}
    assert len(set(chats.values())) == 3  # three tables, at three channels
    # (reminded, moves played) of each table, as process 1 looked at the store:
    assert seen == [
        # process 0 reminded its two players; process 1's table, due too, was left
        {"zero": (True, 0), "dm": (True, 0), "one": (False, 0)},
        # then process 1 reminded its own
        {"zero": (True, 0), "dm": (True, 0), "one": (True, 0)},
        # the hour is up everywhere: process 1 moved for its player only
        {"zero": (True, 0), "dm": (True, 0), "one": (False, 1)},
        # and process 0 for its two
        {"zero": (False, 1), "dm": (False, 1), "one": (False, 1)},
    ]
    # Neither claimed the other's tables (a claim is the first step of any due work).
    assert set(zero.claimed) == {chats["zero"], chats["dm"]}
    assert set(one.claimed) == {chats["one"]}
    for name, lines in out.items():
        assert sum("30m left, then a computer player moves for you" in x for x in lines) == 1
        assert sum("Time is up for Ada" in x for x in lines) == (name != "dm")
        assert sum("Time is up for adadm" in x for x in lines) == (name == "dm")
    # The guilds as noted for every process: by the command at each channel, and for the
    # direct-message table by process 0, which asked Discord about the channel.
    store = SQLiteStore(db)
    assert store.note(chats["zero"], NOTE_GUILD) == str(GUILD_ON_SHARD_0)
    assert store.note(chats["one"], NOTE_GUILD) == str(GUILD_ON_SHARD_1)
    assert store.note(chats["dm"], NOTE_GUILD) == DIRECT
    store.close()


@pytest.mark.parametrize(
    ("guild", "count", "shard"),
    [
        (GUILD_ON_SHARD_0, 2, 0),
        (GUILD_ON_SHARD_1, 2, 1),
        (None, 2, 0),  # direct messages
        ((6 << 22) + 123, 4, 2),  # 6 % 4
        ((4194304 * 7) + 4194303, 4, 3),  # 4194304 is 1 << 22: 7 % 4
        (12345, 3, 0),  # below 1 << 22
    ],
)
def test_shard_of_a_guild(guild: int | None, count: int, shard: int) -> None:
    assert shard_of(guild, count) == shard


# --- tournaments across shards ------------------------------------------------------------

#: Two channels, in a guild of each shard (snowflakes past 2**52, as Discord's are).
CHANNEL_ON_SHARD_0 = str((1 << 60) + 1)
CHANNEL_ON_SHARD_1 = str((1 << 60) + 2)


def test_one_process_of_several_does_a_tournaments_work_and_hands_each_place_its_letters(
    tmp_path: Path,
) -> None:
    from bot.core.outbound import Outbound

    db = tmp_path / "shared.sqlite3"
    services = [Service(SQLiteStore(db), rng=random.Random(k)) for k in range(2)]
    clients = [
        build(settings_for("discord", "--shard-count", "2", "--shard-ids", str(k)), services[k])
        for k in range(2)
    ]
    services[0].set_note(CHANNEL_ON_SHARD_0, NOTE_GUILD, str(GUILD_ON_SHARD_0))
    services[0].set_note(CHANNEL_ON_SHARD_1, NOTE_GUILD, str(GUILD_ON_SHARD_1))
    clocks = [c._clock for c in clients]  # type: ignore[attr-defined]

    async def run() -> None:
        # A tournament and its tables belong to no guild: shard 0's process alone does
        # their due work (pairing, opening tables, deadlines).
        for key in ("tournament:ab12", "tournament:ab12:1:1"):
            assert [await clock.shards.ours(key) for clock in clocks] == [True, False]
        # What that work said goes to the players' places in both guilds: process 0
        # posts its own guild's, and leaves the other's in the outbox, unclaimed.
        said = services[0].undelivered(
            [
                Outbound(CHANNEL_ON_SHARD_0, "Round 1 is paired.", "info"),
                Outbound(CHANNEL_ON_SHARD_1, "Round 1 is paired.", "info"),
            ]
        )
        for out in said:  # claimed by process 0, as its due work's letters are
            assert services[0].waiting(out.chat)
        mine = await clocks[0]._hand_over(said)
        assert [o.chat for o in mine] == [CHANNEL_ON_SHARD_0]
        theirs = services[1].waiting(CHANNEL_ON_SHARD_1)
        assert [o.text for o in theirs] == ["Round 1 is paired."]
        assert services[1].waiting(CHANNEL_ON_SHARD_0) == []  # still process 0's

    asyncio.run(run())


def test_two_shard_processes_run_a_tournament_once_through_to_its_winner(
    tmp_path: Path,
) -> None:
    """A tournament in a guild of shard 0, with the process of shard 1 on the same store:
    process 1 looks at the clock past the round's deadline first and leaves the
    tournament's table alone; process 0 then plays its game out at the deadline, and
    announces the winner, once."""
    db = tmp_path / "shared.sqlite3"
    zero, one = Process(db, 0), Process(db, 1)
    step = threading.Barrier(2, timeout=PATIENCE)
    seen: list[str] = []
    # The round lasts an hour; a minute past it is past every deadline of its table.
    past = 3600.0 + 60.0

    def status(tid: str) -> str:
        store = SQLiteStore(db)
        found = store.load_tournament(tid)
        assert found is not None
        (p,) = found[1]["played"][0]["pairings"]
        table = store.load(p["chat"])
        store.close()
        assert table is not None
        return f"{found[1]['status']}/{table.status}"

    async def sync() -> None:
        await asyncio.to_thread(step.wait)

    async def run_zero() -> tuple[list[str], list[str], str]:
        async with simcord.run(zero.client) as env:
            zero.clock.env = env
            guild = env.create_guild("Zero", id=GUILD_ON_SHARD_0)
            channel = guild.create_text_channel("genial")
            ada = guild.add_member(env.create_user("ada", global_name="Ada"))
            bob = guild.add_member(env.create_user("bob", global_name="Bob"))
            await ada.slash(channel, "tournament", action="new", details="swiss 1 round 1h")
            (tid,) = zero.service.store.tournaments_of(str(channel.id))
            for who in (ada, bob):
                await who.slash(channel, "tournament", action="join", details=tid)
            await ada.slash(channel, "tournament", action="start")
            seen.append(status(tid))
            await sync()  # 1: round 1 is paired and its table runs
            await sync()  # 2: process 1 looked past the deadline
            await env.advance_time(past)
            seen.append(status(tid))
            threads = [said(t) for t in channel.threads]
            return said(channel), [line for lines in threads for line in lines], tid

    async def run_one() -> None:
        async with simcord.run(one.client) as env:
            one.clock.env = env
            await sync()  # 1
            await env.advance_time(past)
            seen.append("one looked")
            await sync()  # 2

    with ThreadPoolExecutor(2) as pool:
        got_zero = pool.submit(asyncio.run, run_zero())
        got_one = pool.submit(asyncio.run, run_one())
        got_one.result()
        channel, thread, tid = got_zero.result()
    # Process 1 looked past the deadline and left the game running; process 0 played it
    # out (a game over leaves its table in the lobby) and the tournament is finished.
    assert seen == ["running/playing", "one looked", "finished/lobby"]
    assert not [c for c in one.claimed if c.startswith("tournament:")]
    assert f"tournament:{tid}:1:1" in zero.claimed  # round 1, table 1
    # The table's place is a thread of process 0's guild; the round and the winner are
    # told once in the channel.
    assert sum("round 1 of 1 is paired" in x for x in channel) == 1
    assert sum("Winner:" in x for x in channel) == 1
    assert any("The game begins" in x for x in thread)
