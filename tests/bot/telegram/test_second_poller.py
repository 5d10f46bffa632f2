"""A second process polling the same bot token is refused in one line: Telegram answers its
getUpdates with 409 Conflict, and it stops instead of sharing the updates."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.config import ConfigError, Settings, TelegramSettings
from bot.telegram.adapter import TelegramAdapter
from bot.telegram.app import SECOND_POLLER
from tests.bot.telegram.fake_api import FakeBotAPI

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
#: What Telegram says to the second poller.
CONFLICT = (
    "Conflict: terminated by other getUpdates request;"
    " make sure that only one bot instance is running"
)


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    yield api
    api.close()


def test_a_second_poller_stops_with_one_clear_line(
    api: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from bot import telegram

    monkeypatch.setenv("GENIAL_TELEGRAM_TOKEN", TOKEN)
    api.fail("getUpdates", 409, CONFLICT)
    settings = Settings(
        storage=str(tmp_path / "t.db"), telegram=TelegramSettings(base_url=api.base_url)
    )
    with pytest.raises(ConfigError) as error:
        telegram.main(settings)
    assert str(error.value) == SECOND_POLLER
    assert "409 Conflict" in SECOND_POLLER and "\n" not in SECOND_POLLER
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err


def test_a_conflict_while_still_starting_stops_with_the_same_line(
    api: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 409 comes before the bot has finished starting (its first tick is slow): the
    bot still stops with the line, not silently as if a signal had stopped it."""
    from bot import telegram

    monkeypatch.setenv("GENIAL_TELEGRAM_TOKEN", TOKEN)
    # Two conflicts: once the second is met, the bot has heard the first and polled again.
    api.fail("getUpdates", 409, CONFLICT)
    api.fail("getUpdates", 409, CONFLICT)
    first_tick = TelegramAdapter.tick

    async def slow_tick(self: TelegramAdapter) -> None:
        ceiling = time.monotonic() + 300
        while api.pending_failures("getUpdates") and time.monotonic() < ceiling:
            await asyncio.sleep(0.01)
        await first_tick(self)

    monkeypatch.setattr(TelegramAdapter, "tick", slow_tick)
    settings = Settings(
        storage=str(tmp_path / "t.db"), telegram=TelegramSettings(base_url=api.base_url)
    )
    with pytest.raises(ConfigError) as error:
        telegram.main(settings)
    assert str(error.value) == SECOND_POLLER
    assert api.pending_failures("getUpdates") == 0
