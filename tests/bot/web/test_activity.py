"""The board as a Discord Activity: in headless Chromium a fake of Discord's client frame
embeds ``/activity`` and answers the Embedded App SDK's handshake and ``AUTHORIZE`` as
Discord does; the code goes to the board's server, which exchanges it with a fake of
Discord's OAuth2 endpoint on 127.0.0.1, asks ``/users/@me`` and where the Activity runs,
and gives the page that person's seat: the player to move sees their tiles and places
one, which SimCord's channel is told exactly once; a watcher sees no tiles. A bad or
used code, a stranger to the Activity, a missing body: a short JSON 4xx."""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.core.config import Settings, WebSettings
from bot.web.guard import Limits
from bot.web.server import WebBoard
from bot.web.tokens import DiscordApp
from bot.words.texts import squares
from tests.bot.web.browser import PHONE, chromium, tap_cell, until
from tests.bot.web.fake_discord import FakeDiscord, parent_page
from tests.patience import PATIENCE

CLIENT, SECRET, BOT = "4242", "client secret of the test", "bot token of the test"
FRAME, INSTANCE = "frame-7", "i-1276580072400224306-gc-1-2"
SETTINGS = Settings(
    level="random",
    web=WebSettings(port=8080, public_url="https://genial.example"),
    discord_activity=True,
    discord_client_id=CLIENT,
)
UNLIMITED = Limits(pages_burst=10**6, seat_burst=10**6, moves_burst=10**6)


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENIAL_WEB_SECRET", "activity test secret")


class InFrame:
    """The Activity's frame as :func:`until` and :func:`tap_cell` drive a page."""

    def __init__(self, page: Any, frame: Any) -> None:
        self.page, self.frame = page, frame

    def evaluate(self, script: str) -> Any:
        return self.frame.evaluate(script)

    def click(self, selector: str) -> None:
        self.frame.click(selector)

    def wait_for_timeout(self, ms: float) -> None:
        self.page.wait_for_timeout(ms)


def _post(port: int, path: str, body: bytes) -> tuple[int, Any]:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", body, {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=PATIENCE) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _in_discord(browser: Any, port: int, code: str, errors: list[str]) -> tuple[Any, InFrame]:
    """A phone's Discord client opening the Activity, which is given ``code``."""
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(PATIENCE * 1000)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    src = f"/activity?instance_id={INSTANCE}&frame_id={FRAME}&platform=mobile&channel_id=2"
    client = f"http://127.0.0.1:{port}/discord-client"  # same origin: Playwright answers it
    html = parent_page(src, CLIENT, FRAME, code)
    page.route(client, lambda route: route.fulfill(content_type="text/html", body=html))
    page.goto(client)
    deadline = time.monotonic() + PATIENCE
    while page.frame(name="activity") is None:
        assert time.monotonic() < deadline, "the Activity's frame"
        page.wait_for_timeout(20)
    return page, InFrame(page, page.frame(name="activity"))


def _browse(port: int, codes: dict[str, str], shots: Path) -> dict[str, Any]:
    """The player's and the watcher's Activity in one Chromium (run in a thread of its
    own: SimCord's loop runs in the test's); what they showed."""
    launch = chromium()
    browser = next(launch)
    errors: list[str] = []
    seen: dict[str, Any] = {}
    try:
        page, player = _in_discord(browser, port, codes["player"], errors)
        until(player, "() => document.body.dataset.version", "the player's look")
        got = page.evaluate("() => window.__got")
        seen["handshake"], seen["authorize"] = got[0], got[1]
        seen["rack"] = player.evaluate("() => document.querySelectorAll('.rack button').length")
        seen["my_turn"] = player.evaluate("() => document.body.dataset.myTurn")
        page.screenshot(path=str(shots / "activity-390x844.png"))
        _, watcher = _in_discord(browser, port, codes["watcher"], errors)
        until(watcher, "() => document.body.dataset.version", "the watcher's look")
        seen["watcher_rack"] = watcher.evaluate(
            "() => document.querySelectorAll('.rack button').length"
        )
        seen["watcher_me"] = watcher.evaluate("() => document.getElementById('me').hidden")
        version = int(player.evaluate("() => document.body.dataset.version"))
        # The player places their first tile on the first cells it fits.
        player.click(".rack button >> nth=0")
        first = until(player, "() => document.querySelector('.cell.legal')?.dataset.cell", "cells")
        tap_cell(player, first)
        second = until(
            player, "() => document.querySelector('.cell.legal')?.dataset.cell", "partners"
        )
        tap_cell(player, second)
        until(
            player,
            "() => document.getElementById('hint-line').textContent.startsWith('Points:')",
            "the points",
        )
        player.click("#confirm")
        seen["cells"] = f"{first} {second}"
        later = f"() => Number(document.body.dataset.version) > {version}"
        until(watcher, later, "the move on the watcher's Activity")
        refused, refusal = _in_discord(browser, port, "", errors)  # the person says no
        seen["refused"] = until(
            refusal, "() => document.getElementById('status').textContent", "the refusal"
        )
        refused.close()
        seen["errors"] = errors
    finally:
        launch.close()
    return seen


@pytest.mark.asyncio
async def test_a_player_places_a_tile_in_the_activity_and_a_watcher_sees_it(
    tmp_path: Path,
) -> None:
    from tests.bot.discord import support

    kept = os.environ.get("GENIAL_WEB_SHOTS")
    shots = Path(kept) if kept else tmp_path / "shots"
    shots.mkdir(parents=True, exist_ok=True)
    fake = FakeDiscord(CLIENT, SECRET, BOT).start()
    async with support.world(tmp_path, settings=SETTINGS) as w:
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        mover = w.to_move()
        seat = w.table().seats[w.game().to_move]
        fake.instance(INSTANCE, w.chat, str(w.guild.id), [ada.id, bob.id, cy.id])
        fake.code("code-player", mover.id)
        fake.code("code-watcher", cy.id)
        app = DiscordApp(CLIENT, SECRET, BOT, api_url=fake.url)
        board = WebBoard(w.service, "http://127.0.0.1", limits=UNLIMITED, discord=app)
        port = await asyncio.to_thread(board.start_in_thread, "127.0.0.1", 0)
        try:
            look = w.service.page_look(w.chat, str(mover.id))
            assert look is not None and look.rack
            tile = look.rack[0].name
            codes = {"player": "code-player", "watcher": "code-watcher"}
            seen = await asyncio.to_thread(_browse, port, codes, shots)
            assert seen["handshake"] == [
                0,
                {"v": 1, "encoding": "json", "client_id": CLIENT, "frame_id": FRAME},
            ]
            assert seen["authorize"][0] == 1 and seen["authorize"][1]["cmd"] == "AUTHORIZE"
            assert seen["authorize"][1]["args"]["scope"] == ["identify"]
            assert seen["rack"] == 6 and seen["my_turn"] == "true"  # the player's own tiles
            assert seen["watcher_rack"] == 0 and seen["watcher_me"] is True
            assert seen["refused"] == (
                "Discord did not tell the board who you are. Close the board, open it again"
                " and allow the app to see your Discord name."
            )
            assert seen["errors"] == []
            assert (shots / "activity-390x844.png").stat().st_size > 0
            said = f"{seat.name} placed {squares(tile)} {seen['cells']}"

            def told() -> int:
                return sum(said in support.text(m) for m in w.public())

            deadline = time.monotonic() + PATIENCE  # wall clock: SimCord's time is its own
            while not told():
                assert time.monotonic() < deadline, "the Activity's move told in the channel"
                await asyncio.sleep(0.01)
            await ada.slash(w.channel, "score")  # SimCord waits for the bot to be idle
            assert told() == 1
        finally:
            await asyncio.to_thread(board.stop_thread)
            fake.close()


@pytest.mark.asyncio
async def test_bad_sign_ins_get_a_short_json_refusal(tmp_path: Path) -> None:
    from tests.bot.discord import support

    fake = FakeDiscord(CLIENT, SECRET, BOT).start()
    async with support.world(tmp_path, settings=SETTINGS) as w:
        ada, bob, eve = w.person("Ada"), w.person("Bob"), w.person("Eve")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        fake.instance(INSTANCE, w.chat, str(w.guild.id), [ada.id, bob.id])
        app = DiscordApp(CLIENT, SECRET, BOT, api_url=fake.url)
        board = WebBoard(w.service, "http://127.0.0.1", limits=UNLIMITED, discord=app)
        port = await asyncio.to_thread(board.start_in_thread, "127.0.0.1", 0)

        def sign_in(code: object, instance: object = INSTANCE) -> tuple[int, Any]:
            body = json.dumps({"code": code, "instance_id": instance}).encode()
            return _post(port, "/activity/token", body)

        try:
            fake.code("used", ada.id)
            status, answer = await asyncio.to_thread(sign_in, "used")
            assert status == 200 and answer["table"] == board.table_id(w.chat)
            assert board.signer.check(answer["seat"]).user == str(ada.id)
            cases: list[tuple[Callable[[], tuple[int, Any]], int, str]] = [
                # the same code again (Discord's codes are used once), and one never made
                (lambda: sign_in("used"), 403, "Discord refused the code: open the board again"),
                (lambda: sign_in("expired"), 403, "Discord refused the code: open the board again"),
                (lambda: sign_in(""), 400, "no OAuth2 code"),
                (lambda: sign_in(["x"]), 400, "no OAuth2 code"),
                (lambda: sign_in("ok", "../x"), 400, "no instance_id"),
                (
                    lambda: _post(port, "/activity/token", b"[1]"),
                    400,
                    "the body is not a JSON object",
                ),
                (lambda: _post(port, "/activity/token", b"{"), 400, "the body is not JSON"),
            ]
            for call, want, error in cases:
                status, answer = await asyncio.to_thread(call)
                assert (status, answer) == (want, {"error": error})
            # Someone not in the Activity (a code of theirs, an instance they are not in).
            fake.code("eve", eve.id)
            status, answer = await asyncio.to_thread(sign_in, "eve")
            assert (status, answer) == (403, {"error": "you are not in this Activity"})
            fake.code("ada", ada.id)
            status, answer = await asyncio.to_thread(sign_in, "ada", "i-unknown")
            assert (status, answer) == (403, {"error": "no such Activity"})
            # The page itself names Discord's frames among those that may embed it.
            page = await asyncio.to_thread(
                urllib.request.urlopen, f"http://127.0.0.1:{port}/activity", None, PATIENCE
            )
            policy = page.headers["Content-Security-Policy"]
            assert "frame-ancestors 'self' https://discord.com" in policy
            assert f'data-discord="{CLIENT}"' in page.read().decode()
            # Also at the root, where Discord opens the app's root URL mapping.
            root = await asyncio.to_thread(
                urllib.request.urlopen, f"http://127.0.0.1:{port}/?frame_id=f", None, PATIENCE
            )
            assert f'data-discord="{CLIENT}"' in root.read().decode()
            # Discord asking the app to wait, or gone: 502, said shortly.
            fake.busy = True
            fake.code("busy", ada.id)
            status, answer = await asyncio.to_thread(sign_in, "busy")
            assert (status, answer) == (502, {"error": "Discord did not answer: try again"})
            fake.close()
            fake.code("late", ada.id)
            status, answer = await asyncio.to_thread(sign_in, "late")
            assert (status, answer) == (502, {"error": "Discord did not answer: try again"})
        finally:
            await asyncio.to_thread(board.stop_thread)
            fake.close()
