"""The Telegram bot through a PostgreSQL restart and an outage (issue 23): the first command
after a restart, and every command during an outage, gets an answer in the group; nothing
accepted is lost or doubled; the bot goes on once the server is back."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from bot.core import games
from bot.core.config import Settings
from bot.service import Service
from bot.store.postgres import PostgresStore
from bot.words.texts import squared
from tests.bot.pgserver import Server
from tests.bot.telegram import test_adapter as base
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, bot_texts
from tests.bot.telegram.test_adapter import ADA, CAROL, GROUP, Room

api = base.api
stop_bots = base.stop_bots

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

DOWN = "The game store is not answering; please send that again in a minute."


def test_a_restart_and_an_outage_under_a_running_telegram_bot(
    api: FakeBotAPI, server: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def make_service(_path: Path) -> Service:
        # A command waits 1 s, not 5, for a pooled connection (as the service's and the
        # Discord client's outage tests do): the outage is answered sooner, and a live pool
        # hands out a connection at once anyway.
        store = PostgresStore(server.url, wait=1.0)
        return Service(store, Settings(), rng=random.Random(3), pictures=False)

    runner = BotRunner(api, tmp_path / "unused.db", make_service=make_service)
    base._RUNNING.append(runner)
    room = Room(api, runner.start())
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/start")

    server.restart()  # the pool's connections are closed by the server
    game = room.game()
    move = games.format_move(game, game.legal_moves()[0])
    room.say(ADA, f"/play {move}")
    assert any(f"placed {squared(move)}" in t for t in bot_texts(api, GROUP))
    assert len(room.game().moves) == 1

    server.halt()
    try:
        told = len(bot_texts(api, GROUP))
        room.say(CAROL, "/board")
        assert bot_texts(api, GROUP)[told:] == [DOWN]
    finally:
        server.resume()
    game = room.game()
    move = games.format_move(game, game.legal_moves()[0])
    room.say(CAROL, f"/play {move}")
    assert any(f"placed {squared(move)}" in t for t in bot_texts(api, GROUP))
    assert len(room.game().moves) == 2  # each accepted move once
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []
