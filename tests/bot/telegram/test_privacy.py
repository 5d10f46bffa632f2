"""``/mydata`` and ``/forget me`` typed in a Telegram group: the file goes to the
person's private chat, never to the group, and so do the answers."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.config import Settings
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from tests.bot.helpers import Clock
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA, BOB = 101, 202


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    api.user(ADA, "Ada")
    api.user(BOB, "Bob")
    yield api
    api.close()


def test_mydata_and_forget_me_in_a_group(api: FakeBotAPI, tmp_path: Path) -> None:
    def make_service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(), rng=random.Random(1), clock=Clock())

    runner = BotRunner(api, tmp_path / "t.db", make_service=make_service).start()
    try:
        for user, text in [(ADA, "/join"), (BOB, "/join"), (ADA, "/mydata")]:
            runner.wait(api.say(GROUP, user, text))
        (document,) = api.sent(ADA, "sendDocument")
        ((name, data),) = document.files.values()
        assert name == "mydata.json"
        kept = json.loads(data)
        assert (kept["user"], kept["name"]) == (str(ADA), "Ada")
        assert document.text.startswith("Everything I keep about you is in this file")
        assert api.sent(GROUP, "sendDocument") == []
        runner.wait(api.say(GROUP, ADA, "/forget me"))
        runner.wait(api.say(GROUP, ADA, "/forget me"))
        told = [c.text for c in api.sent(ADA, "sendMessage")]
        assert any("Send /forget me again within 10 minutes" in t for t in told)
        assert told[-1].startswith("Done: I have forgotten you.")
        assert not any("forgotten" in c.text for c in api.sent(GROUP))
        table = runner.service.table(str(GROUP))
        assert [s.user for s in table.seats] == [str(BOB)]
    finally:
        runner.stop()
