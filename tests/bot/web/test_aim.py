"""Aiming on the board in headless Chromium at phone size (issue 48): cells a thumb can
take on every board, the placement drawn before Place and turned by a tap, hints drawn on
the board and taken by a tap, the bonus placement and the swap offer said in words.
Screenshots go where ``test_browser.py``'s do (``GENIAL_WEB_SHOTS`` keeps them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bot.play.test_play import seeded_room
from tests.bot.web.board import Site, running, started_room
from tests.bot.web.browser import tap_cell, until
from tests.bot.web.test_browser import _open, _shown, _version, shots  # noqa: F401
from tests.patience import wait_until

#: A thumb's least target, CSS px (Apple's 44 pt, Android's 48 dp).
THUMB = 44
#: The least size of a label shown, CSS px.
LABEL = 11

#: Each cell's size on the page and the size of every text shown on the board, CSS px.
MEASURE = """() => {
  const svg = document.querySelector('#board svg');
  const scale = svg.getScreenCTM().a;
  const cells = [...svg.querySelectorAll('.cell')].map((g) => g.getBoundingClientRect());
  const texts = [...svg.querySelectorAll('text')]
    .filter((t) => getComputedStyle(t).display !== 'none')
    .map((t) => Number(t.getAttribute('font-size')) * scale);
  return {
    width: Math.min(...cells.map((r) => r.width)),
    height: Math.min(...cells.map((r) => r.height)),
    label: texts.length ? Math.min(...texts) : null,
    labels: texts.length,
  };
}"""


@pytest.mark.parametrize(
    ("board", "names", "options"),
    [
        ("2-player", ("Ann", "Bob"), {}),
        ("3-player", ("Ann", "Bob", "Cy"), {}),
        ("4-player", ("Ann", "Bob", "Cy", "Dee"), {}),
        ("Genial Spezial", ("Ann", "Bob"), {"game": "Spezial"}),
    ],
)
def test_every_cell_is_thumb_sized_when_the_player_aims(
    tmp_path: Path,
    browser: Any,
    shots: Path,  # noqa: F811
    board: str,
    names: tuple[str, ...],
    options: dict[str, str],
) -> None:
    room = started_room(tmp_path, names, **options)
    with running(room) as site:
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Ann')}")
        _shown(page, _version(site), "the look")
        whole = page.evaluate(MEASURE)
        # The whole board on a 390 px phone: cells smaller than a thumb, so a tap zooms;
        # labels too small to read are not shown.
        assert whole["width"] < THUMB and page.evaluate("() => document.body.dataset.zoom") == "out"
        assert whole["label"] is None or whole["label"] >= LABEL, whole
        if "game" not in options:
            page.click(".rack button >> nth=0")
        look = site.state("Ann")
        cell = sorted(look["cells"])[len(look["cells"]) // 2]
        page.click(f'.cell[data-cell="{cell}"]')  # the first tap zooms, choosing nothing
        until(page, "() => document.body.dataset.zoom === 'in'", "the board zoomed")
        assert page.evaluate("() => document.querySelectorAll('.cell.first').length") == 0
        near = page.evaluate(MEASURE)
        page.screenshot(path=str(shots / f"aim-{board.replace(' ', '-')}.png"))
        print(f"{board}: whole board {whole}, aiming {near}")  # the report's measurements
        assert near["width"] >= THUMB and near["height"] >= THUMB, near
        assert near["labels"] > 0 and near["label"] >= LABEL, near
        page.click(f'.cell[data-cell="{cell}"]')  # the second tap takes the cell
        until(page, f"() => document.querySelector('.cell.first')?.dataset.cell === '{cell}'", "it")
        page.click("#zoom-out")  # the way back out keeps the choice
        until(page, "() => document.body.dataset.zoom === 'out'", "the whole board again")
        assert page.evaluate("() => document.querySelector('.cell.first')?.dataset.cell") == cell
        assert page.errors == []
        page.context.close()


def _drawn(page: Any) -> list[tuple[str, str]]:
    return [
        tuple(x)
        for x in page.evaluate(
            "() => [...document.querySelectorAll('.aim-ghost g[data-cell]')]"
            ".map((g) => [g.dataset.cell, g.dataset.colour])"
        )
    ]


def _points(page: Any, text: str) -> None:
    until(
        page,
        f"() => document.getElementById('hint-line').textContent === {text!r}",
        f"the points {text!r}",
    )


def test_the_placement_is_drawn_before_place_and_a_tap_turns_it(
    tmp_path: Path,
    browser: Any,
    shared: Path,
    shots: Path,  # noqa: F811
) -> None:
    # Move 26 of the 2-player sample game, Ada to move with RO on her rack. Around B7 and
    # C8 (RULES.md 2.4, each symbol counts the runs of its colour in the five directions
    # but its partner's):
    #   B7: B6 green, A6 green, C7 orange (then D7 empty); C8: C7 orange (then C6 green),
    #   D9 yellow, D8 orange (then E8 blue).
    # Red on B7, orange on C8: red 0, orange C7 + D8 = 2.
    # Turned, orange on B7, red on C8: orange C7 = 1, red 0.
    room = seeded_room(tmp_path, shared, "01-genial-standard-2p", 25, ["Ada", "Bob"])
    with running(room) as site:
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Ada')}")
        _shown(page, _version(site), "the look")
        slot = next(t["slot"] for t in site.state("Ada")["rack"] if t["name"] == "RO")
        page.click(f'.rack button[data-slot="{slot}"]')
        tap_cell(page, "B7")
        tap_cell(page, "C8")
        _points(page, "Points: +2 orange")
        assert _drawn(page) == [("B7", "R"), ("C8", "O")]
        page.screenshot(path=str(shots / "aim-drawn.png"))
        page.click('.cell[data-cell="C8"]')  # a tap on either cell turns the tile
        _points(page, "Points: +1 orange")
        assert _drawn(page) == [("C8", "R"), ("B7", "O")]
        page.click('.cell[data-cell="B7"]')
        _points(page, "Points: +2 orange")
        assert _drawn(page) == [("B7", "R"), ("C8", "O")]
        page.click('.cell[data-cell="B7"]')
        _points(page, "Points: +1 orange")
        version = _version(site)
        page.click("#confirm")  # what is drawn is what is placed
        wait_until(lambda: _version(site) > version, "the move taken", interval=0.02)
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        assert table.record["moves"][-1] == "RO C8 B7"
        assert page.errors == []
        page.context.close()


def _golden_board(site: Site) -> tuple[str, str, str]:
    from tests.bot.web.test_pages import _golden_placement

    for _ in range(40):  # moves by the page's API until a golden space can be covered
        name = next(n for n in ("Ann", "Bob") if site.state(n)["my_turn"])
        found = _golden_placement(site, name)
        if found is not None:
            return name, *found
        look = site.state(name)
        first = sorted(look["cells"])[0]
        assert site.command(name, "play", f"{first} {look['cells'][first][0]}")[0] == 200
    raise AssertionError("no placement on a golden space in 40 moves")


def test_a_golden_space_s_colour_is_drawn_and_a_tap_on_it_gives_the_next(
    tmp_path: Path, browser: Any
) -> None:
    room = started_room(tmp_path, ("Ann", "Bob"), game="Spezial")
    with running(room) as site:
        name, first, second = _golden_board(site)
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token(name)}")
        _shown(page, _version(site), "the look")
        colours = site.state(name)["golden_colours"]
        tap_cell(page, first)
        tap_cell(page, second)
        given = until(
            page,
            "() => document.querySelector('#golden button.chosen')?.dataset.colour",
            "the default colour",
        )
        # The stones drawn: the plain one without a symbol, the golden space with the
        # colour its point goes to.
        until(page, f"() => document.querySelector('.aim-ghost g[data-colour=\"{given}\"]')", "it")
        assert _drawn(page) == [(first, ""), (second, given)]
        after = colours[(colours.index(given) + 1) % len(colours)]
        page.click(f'.cell[data-cell="{second}"]')  # the next colour gets the point
        until(
            page,
            f"() => document.querySelector('#golden button.chosen')?.dataset.colour === '{after}'",
            "the next colour chosen",
        )
        assert _drawn(page) == [(first, ""), (second, after)]
        version = _version(site)
        page.click("#confirm")
        wait_until(lambda: _version(site) > version, "the move taken", interval=0.02)
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        assert table.record["moves"][-1] == f"{first} {second} {after}"
        assert page.errors == []
        page.context.close()


def test_hints_are_drawn_on_the_board_and_a_tap_takes_one(
    tmp_path: Path,
    browser: Any,
    shots: Path,  # noqa: F811
) -> None:
    room = started_room(tmp_path, hints="hints on")
    with running(room) as site:
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Ann')}")
        _shown(page, _version(site), "the look")
        rack = {t["slot"]: t for t in site.state("Ann")["rack"]}
        page.click("#hint")
        until(page, "() => document.querySelectorAll('.aim-hint').length === 3", "three hints")
        page.screenshot(path=str(shots / "aim-hints.png"), full_page=True)
        drawn = page.evaluate(
            "() => [...document.querySelectorAll('.aim-hint')].map((h) => [h.dataset.hint,"
            " [...h.querySelectorAll('g[data-cell]')].map((g) => [g.dataset.cell,"
            " g.dataset.colour])])"
        )
        listed = page.evaluate(
            "() => [...document.querySelectorAll('#said button')].map((b) => b.textContent)"
        )
        # Each listed hint: its number, its cells and points, the colours as symbols only.
        assert len(listed) == 3 and all("/" not in line for line in listed)
        hints = {}
        for number, pieces in drawn:
            (a, x), (b, y) = pieces
            slot = next(
                s for s, t in rack.items() if sorted(t["first"] + t["second"]) == [*sorted(x + y)]
            )
            hints[int(number)] = (a, b, x, y, slot)
            assert listed[int(number) - 1].startswith(f"{number}.  {a} {b}  +")
            assert not any(c in listed[int(number) - 1].split() for c in "RGBOYP")
        assert sorted(hints) == [1, 2, 3]
        # A tap on the best hint's cell takes it: the tile chosen, its symbols drawn.
        a, b, x, y, slot = hints[1]
        page.click(f'.cell[data-cell="{a}"]')
        until(page, "() => document.querySelectorAll('.aim-hint').length === 0", "taken")
        assert _drawn(page) == [(a, x), (b, y)]
        chosen = "() => document.querySelector('.rack button.chosen')?.dataset.slot"
        assert page.evaluate(chosen) == str(slot)
        until(
            page,
            "() => document.getElementById('hint-line').textContent.startsWith('Points: +')",
            "the points",
        )
        version = _version(site)
        page.click("#confirm")
        wait_until(lambda: _version(site) > version, "the move taken", interval=0.02)
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        assert table.record["moves"][-1].split()[1:] == [a, b]
        assert page.errors == []
        page.context.close()


def test_the_bonus_placement_and_the_swap_offer_are_said_in_words(
    tmp_path: Path, browser: Any, shared: Path
) -> None:
    announce = "() => document.getElementById('said-aloud').textContent"
    # Bob's OY J6 I6 brings yellow to 18 (move 27 of the sample game): he places again.
    room = seeded_room(tmp_path / "bonus", shared, "01-genial-standard-2p", 26, ["Ada", "Bob"])
    with running(room) as site:
        bob = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Bob')}")
        watcher = _open(browser, f"http://127.0.0.1:{site.port}/t/{site.tid}")
        _shown(bob, _version(site), "the look")
        assert bob.evaluate(announce) == ""
        room.ok("Bob", "/play OY J6 I6")
        _shown(bob, _version(site), "the bonus")
        _shown(watcher, _version(site), "the bonus")
        until(bob, f"() => ({announce})() === 'Bonus placement: place another tile.'", "bonus")
        assert bob.evaluate("() => document.getElementById('hint-line').textContent") == (
            "Bonus placement: place another tile."
        )
        until(watcher, f"() => ({announce})() === 'Bonus placement: Bob places again.'", "it")
        for page in (bob, watcher):
            assert page.errors == []
            page.context.close()
    # Bob's BP C4 C5 at move 14 leaves him no tile of his lowest colour: the swap offer.
    room = seeded_room(tmp_path / "swap", shared, "01-genial-standard-2p", 13, ["Ada", "Bob"])
    with running(room) as site:
        bob = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Bob')}")
        _shown(bob, _version(site), "the look")
        room.ok("Bob", "/play BP C4 C5")
        _shown(bob, _version(site), "the swap offer")
        offer = "None of your tiles has your lowest colour: swap them all?"
        until(bob, f"() => ({announce})() === {offer!r}", "the swap offer")
        shown = "() => ['swap', 'keep'].map((id) => !document.getElementById(id).hidden)"
        assert bob.evaluate(shown) == [True, True]
        assert bob.errors == []
        bob.context.close()


def test_a_drag_pans_the_zoomed_board_and_chooses_nothing(tmp_path: Path, browser: Any) -> None:
    room = started_room(tmp_path, ("Ann", "Bob", "Cy", "Dee"))
    with running(room) as site:
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Ann')}")
        _shown(page, _version(site), "the look")
        page.click(".rack button >> nth=0")
        box = page.locator("#board svg").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.click(x, y)
        until(page, "() => document.body.dataset.zoom === 'in'", "the board zoomed")
        before = page.evaluate("() => document.querySelector('#board svg').getAttribute('viewBox')")
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x - 60, y - 40, steps=6)  # the thumb moves left and up
        page.mouse.up()
        after = page.evaluate("() => document.querySelector('#board svg').getAttribute('viewBox')")
        (bx, by, bw, bh), (ax, ay, aw, ah) = (
            [float(v) for v in before.split()],
            [float(v) for v in after.split()],
        )
        # The board follows the thumb: what is shown moves right and down, as large as before.
        assert ax > bx and ay > by and (aw, ah) == (bw, bh)
        assert page.evaluate("() => document.querySelectorAll('.cell.first').length") == 0
        assert page.errors == []
        page.context.close()


def test_a_wide_screen_needs_no_zoom_and_the_first_tap_takes_the_cell(
    tmp_path: Path, browser: Any
) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        context = browser.new_context(viewport={"width": 1280, "height": 1400})
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{site.port}/s/{site.token('Ann')}")
        _shown(page, _version(site), "the look")
        assert page.evaluate(MEASURE)["width"] >= THUMB
        assert page.evaluate("() => document.body.dataset.zoom") == ""
        page.click(".rack button >> nth=0")
        cell = until(page, "() => document.querySelector('.cell.legal')?.dataset.cell", "cells")
        page.click(f'.cell[data-cell="{cell}"]')
        until(page, f"() => document.querySelector('.cell.first')?.dataset.cell === '{cell}'", "it")
        context.close()


def test_spezial_says_whose_stones_are_which_and_outlines_no_free_cell_before_the_first(
    tmp_path: Path, browser: Any
) -> None:
    room = started_room(tmp_path, ("Ann", "Bob"), game="Spezial")
    with running(room) as site:
        page = _open(browser, f"http://127.0.0.1:{site.port}/s/{site.token('Ann')}")
        _shown(page, _version(site), "the look")
        # Ann's stones red, Bob's black (render.theme.SEAT), beside their names.
        swatches = page.evaluate(
            "() => [...document.querySelectorAll('#scores td.name')].map((td) =>"
            " [td.textContent, td.querySelector('svg.swatch circle')?.getAttribute('fill')])"
        )
        assert swatches == [["Ann", "#d42c34"], ["Bob", "#282a32"]]
        assert page.evaluate("() => document.querySelectorAll('.cell.legal').length") == 0
        look = site.state("Ann")
        first = sorted(look["cells"])[0]
        tap_cell(page, first)
        outlined = page.evaluate(
            "() => [...document.querySelectorAll('.cell.legal')].map((g) => g.dataset.cell)"
        )
        assert sorted(outlined) == sorted(look["cells"][first])  # its partners only
        assert page.errors == []
        page.context.close()
