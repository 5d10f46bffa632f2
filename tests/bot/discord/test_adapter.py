"""The adapter's plumbing: intents, the token, settings, the clock, threads, direct
messages, and failures that must not stop a table."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import discord
import pytest

from bot.config import ConfigError, parse_settings
from bot.discord.app import HIDDEN, configure_logging
DUE_EVERY = 10.0
from tests.bot.discord.support import World, labels, move_options, only_answer, text, world

ROOT = Path(__file__).resolve().parents[3]
LOGGER = "bot.discord.client"
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
        timeout=60,
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

        await w.env.advance_time(1800 - 2 * DUE_EVERY)
        assert len(w.public()) == seen  # not half time yet
        await w.env.advance_time(2 * DUE_EVERY)
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


@pytest.mark.asyncio
async def test_racks_by_direct_message_when_asked_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, dm=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await _two_seated(w)
        await ada.slash(w.channel, "start")
        [dm] = bob.user.dm_channel.history()
        assert text(dm).startswith(w.rack_line(1))
        # Ada, who started, got hers as the private answer: no direct message.
        assert ada.user.dm_channel.history() == []

        # A direct message that fails is logged; the turn goes on.
        w.env.inject_error("POST", f"/channels/{bob.user.dm_channel.id}/messages", status=403)
        game = w.game()
        move = move_options(game, game.legal_moves()[0])
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            await ada.slash(w.channel, "play", **move)
        assert len(w.game().moves) == 1
        assert "could not deliver a rack message" in caplog.text
        assert w.last_public().raw_mentions == [bob.id]
        assert len(bob.user.dm_channel.history()) == 1


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
