"""Play without sight, in headless Chromium (issue 48, items 5 and 6): a whole 2-player
game played by the keyboard alone, every move read from the pages' live regions; the arrow
keys follow the hex directions (worked out by the engine's own neighbours); axe-core finds
no serious or critical violation on the table page, a seat's page and the Mini App; the
bytes a watcher's page receives per move."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.core import games
from bot.core.table import PLAYING
from tests.bot.helpers import START
from tests.bot.web.board import running, started_room
from tests.bot.web.browser import PHONE, until
from tests.bot.web.test_telegram_app import BOT_TOKEN, signed
from tests.patience import PATIENCE, wait_until

ACTIVE = (
    "() => { const a = document.activeElement; if (!a) return '';"
    " return a.id || a.dataset.cell || (a.dataset.slot && 'slot') || a.tagName; }"
)


def _open(browser: Any, url: str) -> Any:
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(PATIENCE * 1000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    until(page, "() => document.body.dataset.version", "the first look")
    return page


def _tab_to(page: Any, wanted: str, back: bool = False) -> None:
    """Press Tab (or Shift+Tab) until the focus is on ``wanted`` (an element's id,
    ``slot`` for a rack tile, ``cell`` for a board cell)."""
    for _ in range(80):
        at = page.evaluate(ACTIVE)
        on_cell = wanted == "cell" and page.evaluate(
            "() => Boolean(document.activeElement?.dataset?.cell)"
        )
        if at == wanted or on_cell:
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached {wanted}")


def _version(site: Any) -> int:
    table = site.service.table(site.chat)
    assert table is not None
    return table.version


def _keyboard_move(page: Any) -> tuple[str, str]:
    """Choose the first tile, the first cell it fits (N), its first partner (N), and
    Place: by keys only. The two cells chosen."""
    _tab_to(page, "slot")
    page.keyboard.press("Enter")
    _tab_to(page, "cell", back=True)
    page.keyboard.press("n")
    first = until(page, "() => document.activeElement?.dataset?.cell", "a first cell")
    page.keyboard.press("Enter")
    until(page, "() => document.querySelector('.cell.first')", "the first cell chosen")
    page.keyboard.press("n")
    second = until(
        page,
        "() => { const c = document.activeElement?.dataset?.cell;"
        f" return c !== '{first}' && c; }}",
        "a second cell",
    )
    page.keyboard.press("Enter")
    until(page, "() => !document.getElementById('confirm').hidden", "Place shown")
    until(
        page,
        "() => document.getElementById('hint-line').textContent.startsWith('Points:')",
        "the points",
    )
    _tab_to(page, "confirm")
    page.keyboard.press("Enter")
    return first, second


def _announced(page: Any) -> str:
    return str(page.evaluate("() => document.getElementById('announce').textContent"))


def test_a_whole_game_by_keyboard_with_announcements(tmp_path: Path, browser: Any) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        base = f"http://127.0.0.1:{site.port}"
        pages = {name: _open(browser, f"{base}/s/{site.token(name)}") for name in ("Ann", "Bob")}
        watcher = _open(browser, f"{base}/t/{site.tid}")
        # The watcher's bytes: what its event stream brings, as Chromium received them.
        cdp = watcher.context.new_cdp_session(watcher)
        cdp.send("Network.enable")
        streams: set[str] = set()
        received: list[int] = []
        cdp.on(
            "Network.requestWillBeSent",
            lambda e: streams.add(e["requestId"]) if "/events" in e["request"]["url"] else None,
        )
        cdp.on(
            "Network.dataReceived",
            lambda e: (
                received.append(int(e["encodedDataLength"])) if e["requestId"] in streams else None
            ),
        )
        watcher.reload()  # the stream opened again, now seen by the network domain
        until(watcher, "() => document.body.dataset.version", "the watcher's look again")
        per_move: list[int] = []
        moves = 0
        while True:
            table = site.service.table(site.chat)
            assert table is not None
            if table.status != PLAYING:
                break
            version = table.version
            for n, p in (*pages.items(), ("watcher", watcher)):
                until(p, f"() => Number(document.body.dataset.version) >= {version}", n)
            name = next(
                n
                for n, p in pages.items()
                if p.evaluate("() => document.body.dataset.myTurn") == "true"
            )
            page = pages[name]
            before = sum(received)
            if page.evaluate("() => document.body.dataset.awaiting") == "swap":
                _tab_to(page, "keep")
                page.keyboard.press("Enter")
                cells: tuple[str, ...] = ()
            else:
                cells = _keyboard_move(page)
                moves += 1
            wait_until(lambda v=version: _version(site) > v, f"{name}'s move", interval=0.02)
            after = _version(site)
            until(watcher, f"() => Number(document.body.dataset.version) >= {after}", "watcher")
            for p in (*pages.values(), watcher):
                # Every page says the move aloud: who placed on which cells.
                said = until(
                    p,
                    "() => document.getElementById('announce').textContent",
                    "an announcement",
                )
                if cells:
                    until(
                        p,
                        f"() => ['{cells[0]}', '{cells[1]}'].every(c => "
                        "document.getElementById('announce').textContent.includes(c))",
                        f"the move {cells} announced: {said}",
                    )
            if cells and _version(site) == after:
                per_move.append(sum(received) - before)
        for p in (*pages.values(), watcher):
            assert p.errors == []
        assert moves > 10
        until(watcher, "() => document.body.dataset.over === 'true'", "the end")
        ending = _announced(watcher)
        assert "wins" in ending or "Shared first place" in ending
        median = statistics.median(per_move)
        print(f"watcher's bytes per move (2 players, compressed): median {median:.0f}")
        assert 0 < median <= 5000


def test_arrow_keys_follow_the_hex_directions(tmp_path: Path, browser: Any) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        watcher = _open(browser, f"http://127.0.0.1:{site.port}/t/{site.tid}")
        _tab_to(watcher, "cell")
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        area = games.rebuild(table.record).area
        # The engine's directions: 0 right, 1 up right, 2 up left, 3 left, 4 down left,
        # 5 down right (engine/hexgrid.DIRECTIONS as render/geometry draws them).
        keys = {
            "ArrowRight": 0,
            "Shift+ArrowUp": 1,
            "ArrowUp": 2,
            "ArrowLeft": 3,
            "Shift+ArrowDown": 4,
            "ArrowDown": 5,
        }
        path = ["ArrowDown", "ArrowDown", "ArrowRight", "ArrowDown", "Shift+ArrowDown"]
        path += ["ArrowUp", "Shift+ArrowUp", "ArrowLeft", "ArrowDown", "ArrowRight"]
        at = str(watcher.evaluate("() => document.activeElement.dataset.cell"))
        for key in path:
            expected = area.label(area.parse_label(at).neighbour(keys[key]))
            watcher.keyboard.press(key)
            at = str(watcher.evaluate("() => document.activeElement.dataset.cell"))
            assert at == expected, key
        name = watcher.evaluate("() => document.activeElement.getAttribute('aria-label')")
        assert name == f"{at}, free"
        # L reads the cell's lines, as /look tells them, into the live region.
        watcher.keyboard.press("l")
        until(
            watcher,
            f"() => document.getElementById('announce').textContent.startsWith('{at}: free.')",
            "the lines read",
        )
        # A1 holds the red start symbol: its name says so.
        label = watcher.evaluate(
            "() => document.querySelector('.cell[data-cell=\"A1\"]').getAttribute('aria-label')"
        )
        assert label == "A1, red burst, start symbol"


def _serious(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = results.response["violations"]
    print(
        page.url.split("/")[3].split("#")[0],
        "axe violations:",
        json.dumps({v["id"]: [v["impact"], len(v["nodes"])] for v in found}),
    )
    serious = [v for v in found if v["impact"] in ("serious", "critical")]
    for v in serious:
        print(v["id"], [(n["target"], n.get("failureSummary", "")[:160]) for n in v["nodes"]])
    return [v["id"] for v in serious]


@pytest.mark.parametrize("which", ["table", "seat", "mini app"])
def test_axe_finds_nothing_serious(tmp_path: Path, browser: Any, which: str) -> None:
    pytest.importorskip("axe_playwright_python")
    room = started_room(tmp_path, ids=("42", "43"))
    with running(room, telegram_token=BOT_TOKEN) as site:
        base = f"http://127.0.0.1:{site.port}"
        if which == "table":
            url = f"{base}/t/{site.tid}"
        elif which == "seat":
            url = f"{base}/s/{site.token('Ann')}"
        else:
            user = json.dumps({"id": 42, "first_name": "Ann"})
            good = signed({"auth_date": str(int(START)), "user": user, "start_param": site.tid})
            url = f"{base}/tg#tgWebAppData={quote(good)}"
        page = _open(browser, url)
        if which != "table":
            until(page, "() => document.querySelector('.rack button')", "the rack")
            page.keyboard.press("Tab")
        assert _serious(page) == []
