"""The adapter's plumbing: intents, the token, settings, the clock, threads, direct
messages, and failures that must not stop a table."""

from __future__ import annotations

import io
import logging
import os
import random
import subprocess
import sys
from pathlib import Path

import discord
import pytest
import simcord

from bot.core.config import ConfigError, parse_settings
from bot.core.outbound import Button, Outbound
from bot.discord.app import HIDDEN, configure_logging
from bot.discord.clock import MAX_SLEEP
from bot.discord.messages import direct_kwargs
from bot.words.texts import Texts
from engine.genial import GenialGame
from tests.bot.discord.support import (
    World,
    labels,
    only_answer,
    play_turn,
    text,
    world,
)
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[3]
#: The Discord adapter's parts each log under their own module's name, below this one.
LOGGER = "bot.discord"
FAILED = "Something went wrong on my side; please try again."


async def _two_seated(w: World) -> None:
    await w.person("Ada").slash(w.channel, "join")
    await w.person("Bob").slash(w.channel, "join")


# --- starting ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_no_privileged_intents(tmp_path: Path) -> None:
    # SimCord refuses to connect a bot that needs an intent the portal did not approve.
    none_approved = discord.Intents.default()  # the default has no privileged intent
    async with world(tmp_path, simulator={"approved_intents": none_approved}) as w:
        intents = w.client.intents
        assert not (intents.members or intents.presences or intents.message_content)
        await _two_seated(w)
        assert [s.name for s in w.table().seats] == ["Ada", "Bob"]


def test_the_token_never_reaches_the_log() -> None:
    token = "MTIzNDU2Nzg5.Gabcde.secret-part-of-the-token"
    stream = io.StringIO()
    handler = configure_logging(token, stream)
    try:
        logging.getLogger("discord.http").warning("sending with Bot %s", token)
        logging.getLogger(LOGGER).error("token=%r", token)
    finally:
        logging.getLogger().removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert token not in stream.getvalue()
    assert lines[0].endswith(f"sending with Bot {HIDDEN}")
    assert lines[1].endswith(f"token='{HIDDEN}'")


def test_discord_settings() -> None:
    s = parse_settings({"discord": {"token_env": "DT", "threads": True, "dm": True}})
    assert (s.discord_token_env, s.discord_threads, s.discord_dm) == ("DT", True, True)
    assert s.token("discord", {"DT": "abc"}) == "abc"
    with pytest.raises(ConfigError, match=r"^x.toml: discord.threads must be true or false$"):
        parse_settings({"discord": {"threads": "yes"}}, "x.toml")


def test_genial_bot_discord_needs_the_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GENIAL_")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-m", "bot", "discord"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "genial-bot: set the environment variable GENIAL_DISCORD_TOKEN to the discord bot's token"
    ]


# --- the clock --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_reminder_and_timeout_come_by_the_clock(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "option", setting="timeout", value="1h")
        await ada.slash(w.channel, "start")
        seen = len(w.public())

        await w.env.advance_time(1800 - 1)
        assert len(w.public()) == seen  # not half time yet
        await w.env.advance_time(1)
        reminder = w.last_public()
        assert text(reminder).startswith(
            f"{ada.mention}\nAda, it is your turn at #genial (Board games): 30m left"
        )
        assert reminder.raw_mentions == [ada.id]
        assert w.game().moves == []

        await w.env.advance_time(1800)
        said = text(w.last_public())
        assert "Time is up for Ada: a computer player makes this turn for them." in said
        assert len(w.game().moves) >= 1
        assert w.game().to_move == 1
        assert w.last_public().raw_mentions == [bob.id]


@pytest.mark.asyncio
async def test_a_one_minute_timeout_fires_at_a_minute(tmp_path: Path) -> None:
    # The clock sleeps up to a minute at a time; the start wakes it, so the deadlines set
    # by the start are kept to the second.
    async with world(tmp_path, max_sleep=MAX_SLEEP) as w:
        ada = w.person("Ada")
        await _two_seated(w)
        await ada.slash(w.channel, "option", setting="timeout", value="1m")
        await w.env.advance_time(10)  # the clock sleeps till 60 s now
        await ada.slash(w.channel, "start")
        seen = len(w.public())
        await w.env.advance_time(29.5)
        assert len(w.public()) == seen
        await w.env.advance_time(1)
        assert text(w.last_public()).startswith(f"{ada.mention}\nAda, it is your turn at")
        await w.env.advance_time(29)
        assert w.game().moves == []
        await w.env.advance_time(1)
        assert "Time is up for Ada" in text(w.last_public())
        assert w.game().to_move == 1


@pytest.mark.asyncio
async def test_deadlines_survive_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        await _two_seated(w)
        await ada.slash(w.channel, "option", setting="timeout", value="10m")
        await ada.slash(w.channel, "start")
        await w.env.advance_time(400)  # the reminder went out at 5 minutes
        await w.restart()
        await w.env.advance_time(199)
        assert w.game().moves == []
        await w.env.advance_time(2)
        assert "Time is up for Ada" in text(w.last_public())


# --- failures ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_failed_post_is_logged_and_the_table_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path) as w:
        await w.person("Ada").slash(w.channel, "join")
        # Neither editing the lobby nor posting a new one gets through.
        w.env.inject_error("PATCH", f"/channels/{w.chat}/messages/*", status=403, code=50013)
        w.env.inject_error("POST", f"/channels/{w.chat}/messages", status=403, code=50013)
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            said = await w.person("Bob").slash(w.channel, "join")
        assert [s.name for s in w.table().seats] == ["Ada", "Bob"]
        assert len(w.public()) == 1
        assert f"could not deliver a lobby message for table {w.chat}: 403" in caplog.text
        # Bob, who acted, still sees what happened (only he does).
        assert only_answer(said).startswith("Bob sits down.")
        # The next message gets through.
        await w.person("Cy").slash(w.channel, "join")
        assert "3. Cy" in text(w.last_public())


@pytest.mark.asyncio
async def test_a_broken_store_is_answered_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path) as w:
        await w.person("Ada").slash(w.channel, "join")
        w.service.store.close()
        with caplog.at_level(logging.ERROR, logger=LOGGER):
            said = await w.person("Bob").slash(w.channel, "join")
        assert only_answer(said) == FAILED
        assert "/join at table" in caplog.text


# --- direct messages --------------------------------------------------------------------


def dm_posts(w: World, person: simcord.MemberActor) -> int:
    """How many direct messages the bot tried to send ``person`` so far."""
    path = f"/channels/{person.user.dm_channel.id}/messages"
    return sum(1 for r in w.env.http_requests if r.method == "POST" and r.path == path)


async def _bobs_turn(w: World, rng: random.Random) -> None:
    """Moves until Bob is to place a tile."""
    while not (w.game().to_move == 1 and w.game().awaiting == "place"):
        await play_turn(w, rng)


@pytest.mark.asyncio
async def test_racks_by_direct_message_say_where_to_play(tmp_path: Path) -> None:
    async with world(tmp_path, dm=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "start")
        link = f"https://discord.com/channels/{w.guild.id}/{w.chat}"
        [dm] = bob.user.dm_channel.history()
        lines = text(dm).split("\n")
        assert lines[0] == w.rack_line(1)
        assert lines[-1] == f"To the table: {link}"
        # Ada, who started, got hers as the private answer: no direct message.
        assert ada.user.dm_channel.history() == []

        # Bob's turn: the direct message says to type /play at the table, not there.
        await _bobs_turn(w, random.Random(2))
        dm = bob.user.dm_channel.history()[-1]
        lines = text(dm).split("\n")
        assert [lines[0], lines[2]] == [w.rack_line(1), f"To the table: {link}"]
        # (A command in the DM is for a table of the DM: issue 27 made them work there.)
        how = (
            "Play with /play <tile or slot> <cell> <cell> in the table's channel (a command"
            " in this chat is for a table of this chat), for example /play "
        )
        assert lines[1].startswith(how) and lines[1].endswith(".")
        # Issue 44, item 28: the example is one Bob may play now, by the rules.
        game = w.game()
        assert isinstance(game, GenialGame)
        game.check(game.parse(lines[1][len(how) : -1], 1))
        # Never the channel's how-to, as if commands worked in direct messages.
        how = "Play with /play <tile or slot> <cell> <cell>, for example"
        assert not any(how in text(m) for m in bob.user.dm_channel.history())


@pytest.mark.asyncio
async def test_closed_direct_messages_are_not_tried_again_until_asked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, dm=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        # Bob accepts no direct messages from server members (Discord: 403, 50007).
        dm_path = f"/channels/{bob.user.dm_channel.id}/messages"
        w.env.inject_error("POST", dm_path, status=403, code=50007, times=None)
        with caplog.at_level(logging.INFO, logger=LOGGER):
            await ada.slash(w.channel, "start")
        assert dm_posts(w, bob) == 1
        assert f"direct messages to {bob.id} are closed" in caplog.text

        # The game goes on; Bob's turns ping him in the channel, and no direct message is
        # tried again, not even after a restart.
        rng = random.Random(8)
        await _bobs_turn(w, rng)
        assert w.last_public().raw_mentions == [bob.id]
        await w.restart(dm=True)
        await play_turn(w, rng)
        await _bobs_turn(w, rng)
        assert dm_posts(w, bob) == 1

        # Bob asks for his tiles: they come privately, with word of what happened, and
        # from now on direct messages are tried again (his are still closed: once more).
        mine = only_answer(await bob.slash(w.channel, "hand")).split("\n")
        assert mine[0] == w.rack_line(1)
        assert mine[-1] == (
            "I could not send you direct messages, so I stopped trying. From now on I try"
            " again; if they stay closed, press My tiles on the turn message."
        )
        await play_turn(w, rng)
        await _bobs_turn(w, rng)
        assert dm_posts(w, bob) == 2
        await play_turn(w, rng)
        await _bobs_turn(w, rng)
        assert dm_posts(w, bob) == 2
        assert [m for m in bob.user.dm_channel.history()] == []


# --- threads ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_table_in_its_own_thread(tmp_path: Path) -> None:
    async with world(tmp_path, threads=True) as w:
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await ada.slash(w.channel, "join")
        [thread] = w.channel.threads
        assert thread.name == "Genial · Ada"
        [announcement] = w.public()
        assert text(announcement) == (
            f"Ada opened a Genial table: {thread.mention}. Join it there, or with this button."
        )
        assert labels(announcement) == ["Join"]
        # The button in the channel seats people at the thread's table.
        await bob.click(announcement, label="Join")
        # /join in the channel joins the table that is gathering, rather than a new one.
        await cy.slash(w.channel, "join")
        # ... and so does an option set there.
        await ada.slash(w.channel, "option", setting="hints", value="on")
        assert len(w.channel.threads) == 1
        assert w.service.table(w.chat) is None
        table = w.table(str(thread.id))
        assert [s.name for s in table.seats] == ["Ada", "Bob", "Cy"]
        assert table.options.hints is True
        # The game is played in the thread.
        await ada.slash(thread, "start")
        turn = thread.history()[-1]
        assert turn.raw_mentions == [ada.id]
        assert labels(turn) == ["My tiles"]
        assert len(w.public()) == 1
        # The channel's announcement keeps no Join button while the game runs.
        [announcement] = w.public()
        assert labels(announcement) == []


@pytest.mark.asyncio
async def test_the_thread_gathering_players_survives_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path, threads=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        [thread] = w.channel.threads
        [lobby] = thread.history()
        await w.restart(threads=True)
        # /join in the channel still finds the thread's table, and its lobby is edited.
        await bob.slash(w.channel, "join")
        assert len(w.channel.threads) == 1
        assert [s.name for s in w.table(str(thread.id)).seats] == ["Ada", "Bob"]
        [now] = thread.history()
        assert now.id == lobby.id and "2. Bob" in text(now)
        assert w.service.table(w.chat) is None


def test_a_swap_offer_by_direct_message_points_to_its_buttons() -> None:
    tx = Texts("en")
    swap = Button("Swap", "/swap #9")
    keep = Button("Keep", "/keep #9")
    rack = Outbound(
        "42",
        "\n".join(["Your tiles at #genial (Board games): 1 RG", tx("rack.swap")]),
        "rack",
        user="7",
        buttons=(swap, keep),
    )
    kw = direct_kwargs(rack, tx, "https://discord.com/channels/1/42")
    assert kw["content"].split("\n") == [
        "Your tiles at #genial (Board games): 1 RG",
        "You may swap all tiles now: press Swap or Keep below.",
        "To the table: https://discord.com/channels/1/42",
    ]
    assert [item.custom_id for item in kw["view"].children] == [
        "genial:42:rack:/swap #9",
        "genial:42:rack:/keep #9",
    ]


@pytest.mark.asyncio
async def test_turn_pings_come_by_direct_message_once_and_never_to_closed_dms(
    tmp_path: Path,
) -> None:
    from bot.core.outbound import User

    async with world(tmp_path, dm=False) as w:  # racks stay in the channel here
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        w.service.handle(w.chat, User(str(bob.id), "Bob"), "/notify on")
        await ada.slash(w.channel, "start")
        assert dm_posts(w, bob) == 0  # Ada begins: no ping for Bob yet
        rng = random.Random(5)
        while w.game().to_move != 1:
            await play_turn(w, rng)
        # The turn passed to Bob: one direct message, with the table and a way back.
        assert dm_posts(w, bob) == 1
        (ping,) = list(bob.user.dm_channel.history())
        assert text(ping).startswith(f"Your turn at {w.table().title or w.chat}")
        assert dm_posts(w, ada) == 0  # Ada did not ask for pings
        # Bob's direct messages close: the next ping is tried once, then never again.
        dm_path = f"/channels/{bob.user.dm_channel.id}/messages"
        w.env.inject_error("POST", dm_path, status=403, code=50007, times=None)
        for _ in range(2):
            while w.game().to_move == 1:
                await play_turn(w, rng)
            while w.game().to_move != 1:
                await play_turn(w, rng)
        assert dm_posts(w, bob) == 2


@pytest.mark.asyncio
async def test_games_privately_and_the_replay_as_a_file(tmp_path: Path) -> None:
    import json as _json

    from bot.core.table import LOBBY, Table
    from tests.conftest import shared_dir

    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "start")
        mine = only_answer(await bob.slash(w.channel, "games"))
        assert mine.split("\n")[0] == "Your running tables (1):"
        await ada.slash(w.channel, "abort")
        record = _json.loads((shared_dir() / "examples" / "01-genial-standard-2p.json").read_text())
        table = w.table()
        finished = Table(w.chat, table.title, table.version + 1, LOBBY, record=record)
        w.service.store.save(finished, table.version)
        await ada.slash(w.channel, "replay")
        last = w.last_public()
        assert text(last) == "Genial, replayed: 45 moves."
        assert [a.filename for a in last.attachments] == ["replay-045.gif"]


# --- links to a table's latest message --------------------------------------------------


def _latest_turn(w: World, channel: simcord.ChannelHandle | None = None) -> discord.Message:
    """The newest public turn message of a channel (as everyone sees it)."""
    seen = (channel or w.channel).history()
    turns = [
        m
        for m in seen
        if not m.flags.ephemeral
        and m.type is discord.MessageType.default
        and "to move" not in text(m).split("\n")[0]  # not the lobby
        and "your turn" in text(m)
    ]
    assert turns, [text(m) for m in seen]
    return turns[-1]


@pytest.mark.asyncio
async def test_games_jumps_to_each_tables_latest_message(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "start")
        other = w.guild.create_text_channel("genial-2")
        await bob.slash(other, "join")
        await bob.slash(other, "addbot", level="random")
        await bob.slash(other, "start")
        first, second = _latest_turn(w), _latest_turn(w, other)
        # Worked out by hand: server, channel, message.
        links = {
            w.chat: f"https://discord.com/channels/{w.guild.id}/{w.chat}/{first.id}",
            str(other.id): f"https://discord.com/channels/{w.guild.id}/{other.id}/{second.id}",
        }
        # (A line that starts with # is escaped, so Discord shows no heading.)
        mine = only_answer(await bob.slash(w.channel, "games")).split("\n")
        assert mine[0] == "Your running tables (2):"
        assert sorted(mine[1:]) == sorted(
            [
                f"\\#genial (Board games): Genial, Ada to move (latest message: {links[w.chat]})",
                f"\\#genial-2 (Board games): Genial, your turn "
                f"(latest message: {links[str(other.id)]})",
            ]
        )
        # Ada moves: her new turn message is the table's latest now.
        await play_turn(w, random.Random(1))
        while w.game().to_move == 0:
            await play_turn(w, random.Random(1))
        newest = _latest_turn(w)
        assert newest.id != first.id
        mine = only_answer(await bob.slash(w.channel, "games")).split("\n")
        link = f"https://discord.com/channels/{w.guild.id}/{w.chat}/{newest.id}"
        assert f"\\#genial (Board games): Genial, your turn (latest message: {link})" in mine


@pytest.mark.asyncio
async def test_a_turn_ping_jumps_to_the_new_turn_message(tmp_path: Path) -> None:
    from bot.core.outbound import User

    async with world(tmp_path, dm=False) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        w.service.handle(w.chat, User(str(bob.id), "Bob"), "/notify on")
        await ada.slash(w.channel, "start")
        rng = random.Random(5)
        while w.game().to_move != 1:
            await play_turn(w, rng)
        (ping,) = list(bob.user.dm_channel.history())
        # The turn message that gave Bob the turn, posted before the ping went out.
        link = f"https://discord.com/channels/{w.guild.id}/{w.chat}/{_latest_turn(w).id}"
        assert text(ping).split("\n")[-1] == f"To the table: {link}"


@pytest.mark.asyncio
async def test_a_turn_ping_is_deleted_once_the_turn_has_passed(tmp_path: Path) -> None:
    from bot.core.outbound import User

    async with world(tmp_path, dm=False) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        w.service.handle(w.chat, User(str(bob.id), "Bob"), "/notify on")
        await ada.slash(w.channel, "start")
        rng = random.Random(5)
        while w.game().to_move != 1:
            await play_turn(w, rng)
        (ping,) = list(bob.user.dm_channel.history())
        assert text(ping).startswith("Your turn at")
        # Bob plays his turn (his swap decision too): the ping is no longer true and goes.
        while w.game().to_move == 1:
            await play_turn(w, rng)
        assert list(bob.user.dm_channel.history()) == []
        # The next time it is his turn, a new ping, which stays while it is true.
        while w.game().to_move != 1:
            await play_turn(w, rng)
        (again,) = list(bob.user.dm_channel.history())
        assert again.id != ping.id and text(again).startswith("Your turn at")


@pytest.mark.asyncio
async def test_top_everywhere_asks_for_the_global_ladder(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        answer = only_answer(await ada.slash(w.channel, "top", everywhere=True))
        assert answer == "No rated game has finished anywhere yet."
        answer = only_answer(await ada.slash(w.channel, "top"))
        assert answer.startswith("No rated game has finished here yet")
