"""A thread for each new table (bot/discord/threads.py) where Discord or the store says no:
a thread refused, its announcement refused, a table the channel already has, a command
that opens nothing, a store that does not answer, and a tournament table's thread where
none can be opened. In each case the table is played somewhere, and nothing is lost."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.discord.threads import NOTE_THREAD
from bot.store import StoreError
from tests.bot.discord.support import World, answers, text, world

pytestmark = pytest.mark.asyncio

#: Discord's answer to a call the bot has no permission for.
MISSING_PERMISSIONS = {"status": 403, "code": 50013, "message": "Missing Permissions"}


def seated(w: World, chat: str) -> list[str]:
    return [s.name for s in w.table(chat).seats]


async def test_a_thread_refused_plays_the_table_in_the_channel(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, threads=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        w.env.inject_error("POST", f"/channels/{w.chat}/threads", times=None, **MISSING_PERMISSIONS)
        with caplog.at_level(logging.WARNING, logger="bot.discord.threads"):
            await ada.slash(w.channel, "join")
        assert w.channel.threads == []
        assert seated(w, w.chat) == ["Ada"]
        assert [
            r.getMessage().split(",")[0] for r in caplog.records if r.name == "bot.discord.threads"
        ] == [f"could not open a thread in channel {w.chat}"]
        # The channel now has a table of its own: the next /join is for it.
        await bob.slash(w.channel, "join")
        assert seated(w, w.chat) == ["Ada", "Bob"] and w.channel.threads == []


async def test_a_thread_whose_announcement_is_refused_still_gathers_players(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, threads=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        w.env.inject_error("POST", f"/channels/{w.chat}/messages", times=1, **MISSING_PERMISSIONS)
        with caplog.at_level(logging.WARNING, logger="bot.discord.threads"):
            await ada.slash(w.channel, "join")
        [thread] = w.channel.threads
        assert w.public() == []  # no announcement in the channel
        assert [
            r.getMessage().split(":")[0] for r in caplog.records if r.name == "bot.discord.threads"
        ] == [f"could not announce the thread in channel {w.chat}"]
        # The thread gathers players all the same: /join in the channel seats Bob there.
        await bob.slash(w.channel, "join")
        assert seated(w, str(thread.id)) == ["Ada", "Bob"]
        assert w.service.table(w.chat) is None and len(w.channel.threads) == 1


async def test_a_table_the_channel_had_before_threads_stays_there(tmp_path: Path) -> None:
    async with world(tmp_path) as w:  # threads off: the table is the channel's
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await w.restart(threads=True)
        await bob.slash(w.channel, "join")
        assert w.channel.threads == []
        assert seated(w, w.chat) == ["Ada", "Bob"]


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("score", {}),  # a look, which opens no table
        ("option", {"setting": "hints", "value": "maybe"}),  # no command the bot reads
    ],
)
async def test_a_command_that_opens_no_table_opens_no_thread(
    tmp_path: Path, command: str, options: dict[str, Any]
) -> None:
    async with world(tmp_path, threads=True) as w:
        ada = w.person("Ada")
        result = await ada.slash(w.channel, command, **options)
        assert w.channel.threads == []
        assert w.service.table(w.chat) is None
        (answer,) = answers(result)  # answered in the channel, privately
        assert answer.ephemeral and text(answer)


async def test_no_thread_while_the_store_cannot_tell_whether_one_gathers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, threads=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        [thread] = w.channel.threads
        real_note = w.service.note

        def note(chat: str, key: str) -> str | None:
            if key == NOTE_THREAD:
                raise StoreError("the store does not answer")
            return real_note(chat, key)

        monkeypatch.setattr(w.service, "note", note)
        with caplog.at_level(logging.INFO, logger="bot.discord.threads"):
            await bob.slash(w.channel, "join")
        # No second thread: Bob's /join went to the channel, as the service answered it.
        assert len(w.channel.threads) == 1
        assert seated(w, str(thread.id)) == ["Ada"]
        assert any(
            r.getMessage().startswith(f"could not tell the table of channel {w.chat}")
            for r in caplog.records
        )


async def test_a_tournament_table_without_a_thread_is_played_in_its_channel(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        threads = w.client._threads
        # Not a Discord channel id (a Telegram group's, say), an unknown channel, a voice
        # channel: no thread, and the table is played where it is.
        assert await threads.open_for_tournament("-1001234567890", "Round 1") is None
        assert await threads.open_for_tournament("4242424242", "Round 1") is None
        voice = w.guild.create_voice_channel("Lounge")
        assert await threads.open_for_tournament(str(voice.id), "Round 1") is None
        # A text channel where the bot may not open threads.
        w.env.inject_error("POST", f"/channels/{w.chat}/threads", times=1, **MISSING_PERMISSIONS)
        assert await threads.open_for_tournament(w.chat, "Round 1") is None
        assert w.channel.threads == []
        # And where it may: the thread's id, named as asked (cut to Discord's 100).
        opened = await threads.open_for_tournament(w.chat, "Tournament table " + "x" * 200)
        [thread] = w.channel.threads
        assert opened == str(thread.id) and len(thread.name) == 100
