"""With ``[web] public_url`` set, the table's turn, result and lobby messages carry a link to
its web page: on Telegram the bot's Mini App link (``t.me/<bot>/<app>?startapp=<id>``), on
Discord a link button; the id in it is the one the web board knows the table by."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings, WebSettings
from bot.outbound import Outbound
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from bot.weblinks import Signer
from tests.bot.helpers import make_service
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, buttons

SECRET = "links test secret"
WEB = WebSettings(public_url="https://genial.example", telegram_app="board")
TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA, BOB = 101, 202


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENIAL_WEB_SECRET", SECRET)


def test_the_service_links_public_turns_and_never_private_ones(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db", settings=Settings(web=WEB))
    tid = Signer(SECRET.encode()).table_id("c")
    turn = service.web_links(Outbound("c", "Ada, your turn.", "turn"))
    assert [(b.label, b.url) for b in turn.buttons] == [
        ("Watch live", f"https://genial.example/t/{tid}")
    ]
    assert service.note("web:" + tid, "chat") == "c"  # so every process finds the chat
    rack = Outbound("c", "Your tiles: 1 RG", "rack", user="ada")
    assert service.web_links(rack) is rack
    off = make_service(tmp_path / "off.db")
    assert off.web_links(Outbound("c", "x", "turn")).buttons == ()


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    for user, name in ((ADA, "Ada"), (BOB, "Bob")):
        api.user(user, name)
    yield api
    api.close()


def test_telegram_turns_open_the_mini_app(api: FakeBotAPI, tmp_path: Path) -> None:
    def service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(web=WEB), rng=random.Random(3), clock=time.time)

    runner = BotRunner(api, tmp_path / "t.db", make_service=service).start()
    try:
        for user, text in ((ADA, "/join"), (BOB, "/join"), (ADA, "/start")):
            runner.wait(api.say(GROUP, user, text))
        tid = Signer(SECRET.encode()).table_id(str(GROUP))
        turn = api.last_message(GROUP, "Watch live")
        links = [b["url"] for b in buttons(turn) if "url" in b]
        assert links == [f"https://t.me/GenialTestBot/board?startapp={tid}"]
    finally:
        runner.stop()


@pytest.mark.asyncio
async def test_discord_turns_carry_a_link_button(tmp_path: Path) -> None:
    from tests.bot.discord import support

    async def played(w: Any) -> None:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")

    settings = Settings(web=WebSettings(public_url="https://genial.example"))
    async with support.world(tmp_path, settings=settings) as w:
        await played(w)
        tid = Signer(SECRET.encode()).table_id(w.chat)
        links = [
            (c.label, c.url)
            for m in w.public()
            for row in m.components
            for c in row.children
            if getattr(c, "url", None)
        ]
        assert ("Watch live", f"https://genial.example/t/{tid}") in links
