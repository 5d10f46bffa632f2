"""Telegram webhook workers: several bot processes serve one port (SO_REUSEPORT) with one
secret, on one database; every update posted to the port is handled once, by one of them.

The workers here are two bots in threads of this process, each with its own service and
store connection, as two processes would have.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.config import Settings, TelegramSettings
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from bot.telegram.app import webhook_secret
from tests.bot.pgserver import free_port
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, post_update
from tests.patience import wait_until

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA, BOB = 101, 202

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    api.user(ADA, "Ada")
    api.user(BOB, "Bob")
    yield api
    api.close()


def test_two_workers_on_one_port_handle_each_update_once(api: FakeBotAPI, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/genial-hook"
    settings = TelegramSettings(
        base_url=api.base_url, mode="webhook", webhook_url=url, listen="127.0.0.1", port=port
    )

    def make_service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(), rng=random.Random(3))

    workers = [
        BotRunner(api, tmp_path / "t.db", make_service=make_service, telegram=settings)
        for _ in range(2)
    ]
    try:
        for worker in workers:
            worker.start()  # the second one binds the port the first one serves
        # Both set the same webhook, with the secret both expect.
        assert api.webhook is not None and api.webhook["url"] == url
        assert api.webhook["secret_token"] == webhook_secret(TOKEN)
        assert [c.params["secret_token"] for c in api.of("setWebhook")] == [
            webhook_secret(TOKEN)
        ] * 2

        # Each post is a connection of its own: the kernel picks a worker for each.
        lines = [(ADA, "/join"), (BOB, "/join"), (ADA, "/option hints on")]
        lines += [(BOB, "/help")] * 9
        for update_id, (who, text) in enumerate(lines, 1):
            message = api.new_message(GROUP, who, text)
            assert post_update(url, TOKEN, {"update_id": update_id, "message": message})
            # The next one only when this one is handled, by whichever worker took it.
            wait_until(
                lambda update_id=update_id: any(update_id in w.handled for w in workers),
                f"update {update_id} handled",
            )
        handled = [w.handled for w in workers]
        assert handled[0] | handled[1] == set(range(1, len(lines) + 1))
        assert handled[0] & handled[1] == set()  # none handled twice
        # The lobby is one message, edited in place as people sit down.
        texts = [c.text for c in api.sent(GROUP, "sendMessage", "editMessageText")]
        assert sum(t.startswith("Ada sits down.") for t in texts) == 1
        assert sum(t.startswith("Bob sits down.") for t in texts) == 1
        table = SQLiteStore(tmp_path / "t.db").load(str(GROUP))
        assert table is not None and [s.name for s in table.seats] == ["Ada", "Bob"]
        assert table.options.hints is True
    finally:
        for worker in workers:
            worker.stop()
