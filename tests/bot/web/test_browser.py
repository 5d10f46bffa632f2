"""A whole 2-player game played by taps in headless Chromium: two players' pages and a
watcher's page, the watcher seeing every move live; a move typed in the chat shows on the
pages too; screenshots at phone size go to a temporary folder, or to the folder
``GENIAL_WEB_SHOTS`` names (kept there for a person to look at)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bot.core.table import PLAYING
from bot.web.guard import Limits
from tests.bot.web.board import Site, running, started_room
from tests.bot.web.browser import PHONE, tap_cell, until
from tests.patience import PATIENCE, wait_until


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the screenshots go: ``$GENIAL_WEB_SHOTS`` if set (kept), else the test's
    temporary folder."""
    kept = os.environ.get("GENIAL_WEB_SHOTS")
    folder = Path(kept) if kept else tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _open(browser: Any, url: str) -> Any:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    context.set_default_timeout(PATIENCE * 1000)  # a busy machine: Playwright's 30 s is short
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(url)
    return page


def _version(site: Site) -> int:
    table = site.service.table(site.chat)
    assert table is not None
    return table.version


def _shown(page: Any, version: int, what: str) -> None:
    until(page, f"() => Number(document.body.dataset.version) >= {version}", what)


def _tap_a_move(page: Any) -> str:
    """Tap the first tile, its first legal cell, that cell's first partner; wait for the
    points; confirm. The move as the page will send it."""
    page.click(".rack button >> nth=0")
    first = until(page, "() => document.querySelector('.cell.legal')?.dataset.cell", "legal cells")
    tap_cell(page, first)
    second = until(
        page, "() => document.querySelector('.cell.legal')?.dataset.cell", "second cells"
    )
    tap_cell(page, second)
    said = until(
        page,
        "() => document.getElementById('status').textContent"
        " || document.getElementById('hint-line').textContent.startsWith('Points:')",
        "the points or an error",
    )
    assert said is True, said  # the points, no error
    page.click("#confirm")
    return f"{first} {second}"


def test_a_whole_game_by_taps_with_a_watcher(tmp_path: Path, browser: Any, shots: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        base = f"http://127.0.0.1:{site.port}"
        pages = {name: _open(browser, f"{base}/s/{site.token(name)}") for name in ("Ann", "Bob")}
        watcher = _open(browser, f"{base}/t/{site.tid}")
        for page in (*pages.values(), watcher):
            _shown(page, _version(site), "the first look")
        pages["Ann"].screenshot(path=str(shots / "seat-start.png"))
        watcher_moves = 0
        taps = 0
        typed = False
        while True:
            table = site.service.table(site.chat)
            assert table is not None
            if table.status != PLAYING:
                break
            version = table.version
            for n, p in pages.items():
                _shown(p, version, f"version {version} on {n}'s page")
            name = next(
                n
                for n, p in pages.items()
                if p.evaluate("() => document.body.dataset.myTurn") == "true"
            )
            page = pages[name]
            awaiting = page.evaluate("() => document.body.dataset.awaiting")
            if awaiting == "swap":
                page.click("#keep")
            elif not typed and taps == 3:
                # One move typed in the chat, as a player would: the pages show it too.
                look = site.state(name)
                first, seconds = next(iter(look["cells"].items()))
                room.ok(name, f"/play 1 {first} {seconds[0]}")
                typed = True
            else:
                _tap_a_move(page)
                taps += 1
                if taps == 2:
                    page.screenshot(path=str(shots / "seat-after-taps.png"))
            wait_until(lambda v=version: _version(site) > v, f"{name}'s move taken", interval=0.02)
            after = _version(site)
            _shown(watcher, after, "the move on the watcher's page")
            watcher_moves += 1
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        placed = len(table.record["moves"])
        _shown(watcher, table.version, "the end on the watcher's page")
        until(watcher, "() => document.body.dataset.over === 'true'", "the result")
        watcher.screenshot(path=str(shots / "watcher-end.png"), full_page=True)
        shown_moves = watcher.evaluate("() => document.querySelectorAll('#moves li').length")
        # Every move of the record is in the watcher's list, and it saw each turn live.
        assert shown_moves == placed and taps > 10 and typed
        assert watcher_moves >= taps
        result = watcher.evaluate("() => document.getElementById('result').textContent")
        assert "wins" in result or "Shared first place" in result
        # The replay slider goes back to the empty board: no tile on any cell.
        watcher.evaluate(
            "() => { const r = document.getElementById('replay'); r.value = '0';"
            " r.dispatchEvent(new Event('input')); }"
        )
        until(
            watcher,
            "() => document.querySelectorAll('#board polygon[fill=\"#24262e\"]').length === 0",
            "the replay at its start",
        )
        for page in (*pages.values(), watcher):
            assert page.errors == []


def test_a_golden_space_s_colour_is_chosen_by_a_tap(
    tmp_path: Path, browser: Any, shots: Path
) -> None:
    from tests.bot.web.test_pages import _golden_placement

    room = started_room(tmp_path, ("Ann", "Bob"), game="Spezial")
    with running(room) as site:
        found = None
        for _ in range(40):  # moves by the page's API until a golden space can be covered
            name = next(n for n in ("Ann", "Bob") if site.state(n)["my_turn"])
            found = _golden_placement(site, name)
            if found is not None:
                break
            look = site.state(name)
            first = sorted(look["cells"])[0]
            assert site.command(name, "play", f"{first} {look['cells'][first][0]}")[0] == 200
        assert found is not None, "no placement on a golden space in 40 moves"
        first, second = found
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token(name)}")
        _shown(page, _version(site), "the look")
        tap_cell(page, first)
        tap_cell(page, second)
        given = until(
            page,
            "() => document.querySelector('#golden:not([hidden]) button.chosen')?.dataset.colour",
            "the golden space's colour offered, the default chosen",
        )
        assert page.evaluate("() => document.querySelectorAll('#golden button').length") == 4
        other = next(c for c in "BGOP" if c != given)
        page.click(f'#golden button[data-colour="{other}"]')
        until(
            page,
            f"() => document.querySelector('#golden button.chosen')?.dataset.colour === '{other}'",
            "the tapped colour chosen",
        )
        page.screenshot(path=str(shots / "spezial-golden.png"))
        version = _version(site)
        page.click("#confirm")
        wait_until(lambda: _version(site) > version, "the move taken", interval=0.02)
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        assert table.record["moves"][-1] == f"{first} {second} {other}"
        assert page.errors == []
        page.context.close()  # the page's live stream ends before the board stops


def test_a_refused_place_keeps_the_selection(tmp_path: Path, browser: Any) -> None:
    # Issue 45: a refused Place dropped the tile and both cells (4 taps to redo). Here the
    # seat's move budget is spent (a burst of one, the clock standing still): Place is
    # refused with 429, the selection stays, and once the budget is back one more press of
    # Place makes the move.
    room = started_room(tmp_path)
    now = [0.0]
    limits = Limits(pages_burst=10_000, seat_burst=10_000, moves_burst=1, moves_rate=1.0)
    with running(room, limits, clock=lambda: now[0]) as site:
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Ann')}")
        version = _version(site)
        _shown(page, version, "the look")
        assert site.command("Ann", "hint")[0] != 429  # the one move of the burst spent
        first, second = _tap_a_move(page).split()
        refused = until(page, "() => document.getElementById('status').textContent", "refusal")
        assert refused == "too many moves: wait a little"
        assert _version(site) == version
        chosen = "() => [document.querySelector('.rack button.chosen')?.dataset.slot,"
        chosen += " document.querySelector('.cell.first')?.dataset.cell,"
        chosen += " document.querySelector('.cell.second')?.dataset.cell,"
        chosen += " document.getElementById('confirm').hidden]"
        assert page.evaluate(chosen) == ["1", first, second, False]
        now[0] += 1.0  # a second later: one move again
        page.click("#confirm")
        wait_until(lambda: _version(site) > version, "the move taken", interval=0.02)
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        assert len(table.record["moves"]) == 1
        assert first in table.record["moves"][0] and second in table.record["moves"][0]
        # Chromium's own line for the refused request, and nothing else.
        assert page.errors == [
            "Failed to load resource: the server responded with a status of 429 (Too Many Requests)"
        ]
        page.context.close()


def test_the_bank_of_the_player_to_move_counts_down_on_the_page(
    tmp_path: Path, browser: Any
) -> None:
    from tests.bot.helpers import START

    # The look is built once per table version; the page tells the time left as of its own
    # clock each second (issue 44): Ann's 3d bank less her turn's time so far.
    room = started_room(tmp_path, clock="clock 3d+1d")
    with running(room) as site:
        context = browser.new_context(viewport=PHONE)
        context.set_default_timeout(PATIENCE * 1000)
        page = context.new_page()
        page.clock.set_fixed_time(START + 90 * 60)  # 1h 30m into her turn: 2d 22h 30m
        page.goto(f"http://127.0.0.1:{site.port}/t/{site.tid}")
        bank = "() => document.querySelector('#scores .to-move .bank')?.textContent"
        until(page, f"() => ({bank})() === ' ⏱ 2d 22h'", "Ann's bank as of the page's clock")
        other = "() => document.querySelector('#scores tr:not(.to-move) .bank').textContent"
        assert page.evaluate(other) == " ⏱ 3d"  # Bob's bank waits whole
        page.clock.set_fixed_time(START + 2 * 86400 + 3600)  # 3d - 2d 1h = 23h
        until(page, f"() => ({bank})() === ' ⏱ 23h'", "Ann's bank a day later")
        assert page.evaluate("() => document.getElementById('clock').textContent") == "⏱ 23:00:00"
        context.close()
