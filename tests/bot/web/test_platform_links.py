"""With ``[web] public_url`` set, the table's turn, result and lobby messages carry a link to
its web page: on Telegram the bot's Mini App link (``t.me/<bot>/<app>?startapp=<id>``), on
Discord a link button; the id in it is the one the web board knows the table by."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.config import Settings, WebSettings
from bot.core.outbound import Outbound
from bot.pages.links import Signer
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from bot.web.guard import Limits
from bot.web.server import WebBoard
from bot.words.texts import squares
from tests.bot.helpers import make_service
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, buttons
from tests.patience import PATIENCE, wait_until

SECRET = "links test secret"
WEB = WebSettings(public_url="https://genial.example", telegram_app="board")
#: The board beside the platform in its process (a port): seat links too.
BESIDE = WebSettings(port=8080, public_url="https://genial.example", telegram_app="board")
UNLIMITED = Limits(pages_burst=10**6, seat_burst=10**6, moves_burst=10**6)
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
    # With the board in this process (a port), racks and pings get the player's own page.
    beside = make_service(tmp_path / "b.db", settings=Settings(web=BESIDE))
    for kind in ("rack", "ping"):
        (button,) = beside.web_links(Outbound("c", "x", kind, user="ada")).buttons
        assert button.label == "Play on the board"
        base, token = button.url.rsplit("/s/", 1)
        assert base == "https://genial.example"
        seat = Signer(SECRET.encode()).check(token, now=beside.clock())
        assert (seat.table, seat.user) == (tid, "ada")


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


def test_a_page_move_at_a_telegram_table_is_told_in_the_group(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    def service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(web=BESIDE), rng=random.Random(3))

    runner = BotRunner(api, tmp_path / "t.db", make_service=service).start()
    board = WebBoard(
        runner.service, "http://127.0.0.1", limits=Limits(pages_burst=1000, seat_burst=1000)
    )
    assert board.deliver is None  # no delivery of its own: Telegram's adapter carries it out
    port = board.start_in_thread("127.0.0.1", 0)
    try:
        for user, text in ((ADA, "/join"), (BOB, "/join"), (ADA, "/start")):
            runner.wait(api.say(GROUP, user, text))
        chat = str(GROUP)
        tid = board.table_id(chat)
        token = board.signer.seat_token(tid, str(ADA))
        base = f"http://127.0.0.1:{port}/api/t/{tid}"
        with urllib.request.urlopen(f"{base}/state?seat={token}", timeout=PATIENCE) as r:
            look = json.loads(r.read())
        assert look["my_turn"]
        # Ada's rack in her private chat opens her page as a Mini App (web_app button).
        rack = api.last_message(ADA, "Play on the board")
        (app,) = [b["web_app"]["url"] for b in buttons(rack) if "web_app" in b]
        seat = board.signer.check(app.rsplit("/s/", 1)[1])
        assert (seat.table, seat.user) == (tid, str(ADA))
        first, seconds = next(iter(look["cells"].items()))
        photos = len(api.sent(GROUP, "sendPhoto"))

        def post(version: int) -> tuple[int, dict[str, Any]]:
            body = {"seat": token, "command": "play", "move": f"1 {first} {seconds[0]}"}
            req = urllib.request.Request(
                f"{base}/command",
                json.dumps({**body, "version": version}).encode(),
                {"Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(req, timeout=PATIENCE) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        assert post(look["version"] - 1)[0] == 409  # a page behind the table: refused
        assert len(api.sent(GROUP, "sendPhoto")) == photos  # and nothing said in the group
        assert post(look["version"]) == (200, {"ok": True, "said": []})
        tile = look["rack"][0]["name"]
        wait_until(
            lambda: any(
                f"Ada placed {squares(tile)} {first} {seconds[0]}" in c.text
                for c in api.sent(GROUP, "sendPhoto")
            ),
            "the page's move told in the group with its board",
        )
    finally:
        board.stop_thread()
        runner.stop()


@pytest.mark.asyncio
async def test_a_page_move_at_a_discord_table_is_posted_in_the_channel(tmp_path: Path) -> None:
    import asyncio

    from tests.bot.discord import support

    settings = Settings(web=WebSettings(port=8080, public_url="https://genial.example"))
    async with support.world(tmp_path, settings=settings) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        # "My tiles" answers privately with a link button to the player's own page.
        result = await w.to_move().click(w.last_public(), label="My tiles")
        (answer,) = support.answers(result, clicked=True)
        urls = [
            c["url"] if isinstance(c, dict) else c.url
            for row in answer.components
            for c in (row["components"] if isinstance(row, dict) else row.children)
            if (c.get("url") if isinstance(c, dict) else getattr(c, "url", None))
        ]
        assert len(urls) == 1 and urls[0].startswith("https://genial.example/s/")
        board = WebBoard(
            w.service, "http://127.0.0.1", limits=Limits(pages_burst=1000, seat_burst=1000)
        )
        port = await asyncio.to_thread(board.start_in_thread, "127.0.0.1", 0)
        try:
            tid = board.table_id(w.chat)
            mover = w.table().seats[w.game().to_move]
            assert mover.user is not None
            token = urls[0].rsplit("/s/", 1)[1]  # the link the player was given
            assert board.signer.check(token).user == mover.user
            base = f"http://127.0.0.1:{port}/api/t/{tid}"

            def get(path: str) -> Any:
                with urllib.request.urlopen(base + path, timeout=PATIENCE) as r:
                    return json.loads(r.read())

            look = await asyncio.to_thread(get, f"/state?seat={token}")
            first, seconds = next(iter(look["cells"].items()))
            body = json.dumps(
                {
                    "seat": token,
                    "command": "play",
                    "move": f"1 {first} {seconds[0]}",
                    "version": look["version"],
                }
            ).encode()

            def post() -> Any:
                req = urllib.request.Request(
                    base + "/command", body, {"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(req, timeout=PATIENCE) as r:
                    return json.loads(r.read())

            assert await asyncio.to_thread(post) == {"ok": True, "said": []}
            tile = look["rack"][0]["name"]
            said = f"{mover.name} placed {squares(tile)} {first} {seconds[0]}"
            deadline = time.monotonic() + PATIENCE  # wall clock: SimCord's time is its own
            while not any(said in support.text(m) for m in w.public()):
                assert time.monotonic() < deadline, "the page's move posted in the channel"
                await asyncio.sleep(0.01)
            # One command through SimCord, which waits for the bot to be idle again (the
            # clock the page's move woke), before the world closes its store.
            await ada.slash(w.channel, "score")
        finally:
            await asyncio.to_thread(board.stop_thread)


@pytest.mark.usefixtures("backend")
def test_a_move_on_a_board_of_its_own_is_posted_by_the_bot_at_once(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """``genial-bot web`` in a process of its own leaves a page's move in the stored
    outbox and nudges the bot's processes: the Telegram bot, whose clock would otherwise
    sleep for an hour (``due_interval``), posts the board at once."""
    from bot.web import through_outbox
    from tests.bot.backends import store_at

    def service(path: Path) -> Service:
        return Service(store_at(path), Settings(web=WEB), rng=random.Random(3), clock=time.time)

    runner = BotRunner(api, tmp_path / "t.db", make_service=service, due_interval=3600)
    runner.start()
    own = Service(store_at(tmp_path / "t.db"), Settings(web=WEB), pictures=False)
    board = WebBoard(own, "http://127.0.0.1", deliver=through_outbox(own))
    port = board.start_in_thread("127.0.0.1", 0)
    try:
        for user, text in ((ADA, "/join"), (BOB, "/join"), (ADA, "/start")):
            runner.wait(api.say(GROUP, user, text))
        chat = str(GROUP)
        table = own.table(chat)
        assert table is not None
        mover = table.seats[0].user if table.record else None
        tid = board.table_id(chat)
        game = own.table(chat)
        assert game is not None and mover is not None
        token = board.signer.seat_token(tid, mover)
        base = f"http://127.0.0.1:{port}/api/t/{tid}"
        look = json.loads(urllib.request.urlopen(f"{base}/state?seat={token}").read())
        if not look["my_turn"]:  # the other person moves first
            mover = table.seats[1].user
            assert mover is not None
            token = board.signer.seat_token(tid, mover)
            look = json.loads(urllib.request.urlopen(f"{base}/state?seat={token}").read())
        assert look["my_turn"]
        first, seconds = next(iter(look["cells"].items()))
        body = {"seat": token, "command": "play", "move": f"1 {first} {seconds[0]}"}
        req = urllib.request.Request(
            f"{base}/command",
            json.dumps({**body, "version": look["version"]}).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=PATIENCE) as r:
            assert json.loads(r.read()) == {"ok": True, "said": []}
        tile = look["rack"][0]["name"]
        wait_until(
            lambda: any(
                f"placed {squares(tile)} {first} {seconds[0]}" in (c.text or "")
                for c in api.sent(GROUP, "sendPhoto") + api.sent(GROUP, "sendMessage")
            ),
            "the page's move told in the group without waiting for the clock's next look",
        )
    finally:
        board.stop_thread()
        runner.stop()


def _tap_through(base: str, tokens: list[str], finished: Any) -> tuple[int, int]:
    """Play a whole game through the pages' API alone, as each player's taps send it:
    whoever's page says it is their turn keeps at a swap offer and places the first
    legal placement of their first tile otherwise. Returns (placements, keeps) sent."""

    def call(path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {} if body is None else {"Content-Type": "application/json"}
        req = urllib.request.Request(base + path, data, headers)
        try:
            with urllib.request.urlopen(req, timeout=PATIENCE) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    placed = keeps = 0
    for _ in range(500):
        if finished():
            return placed, keeps
        looks = [(t, call(f"/state?seat={t}")[1]) for t in tokens]
        mine = [(t, look) for t, look in looks if look.get("my_turn")]
        if not mine:
            continue  # the chat platform is still telling the last move: look again
        token, look = mine[0]
        if look["awaiting"] == "swap":
            body = {"seat": token, "command": "keep", "version": look["version"]}
            keeps += 1
        else:
            first, seconds = next(iter(look["cells"].items()))
            body = {
                "seat": token,
                "command": "play",
                "move": f"1 {first} {seconds[0]}",
                "version": look["version"],
            }
            placed += 1
        status, answer = call("/command", body)
        assert status in (200, 409), answer  # 409: a page a moment behind, refreshed
        if status == 409:
            placed -= body["command"] == "play"
            keeps -= body["command"] == "keep"
    raise AssertionError("the game did not end in 500 looks")


def test_a_whole_telegram_game_by_taps_alone(api: FakeBotAPI, tmp_path: Path) -> None:
    """Two people in a Telegram group: after /join and /start, every move is made on the
    Mini App pages their private racks open; the group sees every board and the result."""

    def service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(web=BESIDE), rng=random.Random(5))

    runner = BotRunner(api, tmp_path / "t.db", make_service=service).start()
    # Both players' pages from one address, as fast as a test taps: no rate limit.
    board = WebBoard(runner.service, "http://127.0.0.1", limits=UNLIMITED)
    port = board.start_in_thread("127.0.0.1", 0)
    try:
        for user, text in ((ADA, "/join"), (BOB, "/join"), (ADA, "/start")):
            runner.wait(api.say(GROUP, user, text))
        tokens = []
        for person in (ADA, BOB):  # the seat pages each person's private rack opens
            rack = api.last_message(person, "Play on the board")
            (app,) = [b["web_app"]["url"] for b in buttons(rack) if "web_app" in b]
            tokens.append(app.rsplit("/s/", 1)[1])
        chat = str(GROUP)

        def finished() -> bool:
            table = runner.service.table(chat)
            return table is not None and table.status != "playing"

        base = f"http://127.0.0.1:{port}/api/t/{board.table_id(chat)}"
        placed, _ = _tap_through(base, tokens, finished)
        table = runner.service.table(chat)
        assert table is not None and table.record is not None
        assert len(table.record["moves"]) >= placed > 20  # every placement of the game
        texts = [m.text or "" for m in api.sent(GROUP, "sendPhoto")]
        wait_until(
            lambda: any("wins" in t or "Shared first place" in t for t in texts_of(api)),
            "the result told in the group",
        )
        assert sum("placed" in t for t in texts) >= placed // 2
    finally:
        board.stop_thread()
        runner.stop()


def texts_of(api: FakeBotAPI) -> list[str]:
    return [m.text or "" for m in api.sent(GROUP, "sendPhoto") + api.sent(GROUP, "sendMessage")]


@pytest.mark.asyncio
async def test_a_whole_discord_game_by_taps_alone(tmp_path: Path) -> None:
    """Two people in a Discord channel: after /join and /start each presses "My tiles"
    once for the link to their own page, and every move of the game is made there."""
    import asyncio

    from tests.bot.discord import support

    settings = Settings(web=WebSettings(port=8080, public_url="https://genial.example"))
    async with support.world(tmp_path, settings=settings) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        tokens = []
        for person in (ada, bob):
            result = await person.click(w.last_public(), label="My tiles")
            (answer,) = support.answers(result, clicked=True)
            (url,) = [
                c["url"] if isinstance(c, dict) else c.url
                for row in answer.components
                for c in (row["components"] if isinstance(row, dict) else row.children)
                if (c.get("url") if isinstance(c, dict) else getattr(c, "url", None))
            ]
            tokens.append(url.rsplit("/s/", 1)[1])
        board = WebBoard(w.service, "http://127.0.0.1", limits=UNLIMITED)
        port = await asyncio.to_thread(board.start_in_thread, "127.0.0.1", 0)
        try:
            base = f"http://127.0.0.1:{port}/api/t/{board.table_id(w.chat)}"

            def finished() -> bool:
                return w.table().status != "playing"

            placed, _ = await asyncio.to_thread(_tap_through, base, tokens, finished)
            record = w.table().record
            assert record is not None and len(record["moves"]) >= placed > 20
            deadline = time.monotonic() + PATIENCE  # wall clock: SimCord's time is its own
            while not any(
                "wins" in support.text(m) or "Shared first" in support.text(m) for m in w.public()
            ):
                assert time.monotonic() < deadline, "the result posted in the channel"
                await asyncio.sleep(0.01)
            told = sum("placed" in support.text(m) for m in w.public())
            assert told >= placed // 2
            await ada.slash(w.channel, "score")  # SimCord waits for the bot to be idle
        finally:
            await asyncio.to_thread(board.stop_thread)
