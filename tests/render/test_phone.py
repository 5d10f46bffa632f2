"""Issue 27, item 5: images read on a phone, 390 px wide. Each check is made on the pixels
(colours sampled, boxes measured), against bounds worked out here from the layout."""

from __future__ import annotations

import math
import random

import pytest
from PIL import Image

from engine.genial import START_SYMBOLS, GenialGame, GenialView, playing_area
from engine.hexgrid import Area, Hex
from engine.moves import KEEP
from engine.spezial import SpezialGame, SpezialView, board_layout
from engine.tiles import Colour
from render import Told, board_png, genial_board, marks, panel, spezial_board
from render.geometry import Lattice
from render.sprites import Face
from render.theme import HIGHLIGHT, INK, LABEL, LOWEST, SEAT, SEAT_MARK
from tests.render.helpers import decode

PHONE = 390  # px: an iPhone's screen width in CSS px, the width the images are read at


def _runs(xs: list[int]) -> list[tuple[int, int]]:
    """Consecutive x values as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    for x in xs:
        if runs and x == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((x, x))
    return runs


def test_spezial_two_digit_scores_stay_inside_their_frames() -> None:
    # A Genial Spezial row is half the panel wide (two columns): four blocks of ~81 px,
    # each framed (all four colours equal are all the lowest), with two-digit points.
    width = (spezial_board.WIDTH - 2 * spezial_board.PANEL_X - panel.ROW_GAP) // 2
    scores = ((Colour.BLUE, 88), (Colour.GREEN, 88), (Colour.ORANGE, 88), (Colour.PURPLE, 88))
    swatch = Face(SEAT[0])
    colours = tuple(c for c, _ in scores)
    img = panel._row_image("spezial", width, ("Ann",), scores, None, None, swatch, 20, colours,
                           30, ())  # fmt: skip
    rgb = img.convert("RGB")
    y = panel.ROW_HEIGHT // 2 - 10  # the line through the symbols and points
    start = panel.NARROW_NAME_WIDTH
    borders = _runs([x for x in range(start, width) if rgb.getpixel((x, y)) == LOWEST])
    # Each frame's left and right border, whole (4 px wide): a number running over the
    # frame's right side paints it over with its own box.
    assert len(borders) == 8, borders
    assert all(b - a + 1 >= 3 for a, b in borders), borders
    frames = [(borders[k][1], borders[k + 1][0]) for k in range(0, 8, 2)]
    for yy in range(y - 14, y + 15):
        for x in range(start, width):
            if rgb.getpixel((x, yy)) == INK:
                assert any(a < x < b for a, b in frames), (x, yy, frames)


#: The legibility floor: a cell label's capitals at least this many px high when the image
#: is shown 390 px wide (the capitals of a 9 px font; before, 4.5 px on a 4-player board).
LABEL_FLOOR = 6.5


def _label_height(rgb: Image.Image, lat: Lattice, h: Hex) -> int:
    """The height of the label ink (LABEL pixels) inside a cell's inner box."""
    cx, cy = lat.centre(h)
    half = round(0.4 * lat.w)
    ys = [
        y
        for y in range(cy - half, cy + half)
        for x in range(cx - half, cx + half)
        if rgb.getpixel((x, y)) == LABEL
    ]
    return max(ys) - min(ys) + 1 if ys else 0


def _dead(area: Area, filled: set[Hex]) -> set[Hex]:
    """Empty cells whose every neighbour on the board is filled: no tile can go there."""
    return {
        h
        for h in area.cells
        if h not in filled and all(n not in area or n in filled for n in h.neighbours())
    }


def _genial_late(players: int, placements: int) -> GenialGame:
    game = GenialGame(players, seed=3)
    rng = random.Random(3)
    placed = 0
    while placed < placements:
        if game.awaiting == "swap":
            game.play(KEEP)
            continue
        game.play(game.random_placement(rng))
        placed += 1
    return game


def _spezial_late(players: int, placements: int) -> SpezialGame:
    game = SpezialGame(players, seed=3)
    rng = random.Random(3)
    for _ in range(placements):
        game.play(game.random_placement(rng))
    return game


@pytest.mark.parametrize("game", ["genial-4p", "spezial-4p"])
def test_cell_labels_are_legible_at_phone_width(game: str) -> None:
    if game == "genial-4p":
        view: GenialView | SpezialView = _genial_late(4, 10).view(None)
        lat, area = genial_board.layout("standard", 4).lattice, playing_area(7)
        filled = set(view.board) | set(START_SYMBOLS)
    else:
        view = _spezial_late(4, 10).view(None)
        lat, area = spezial_board.layout(4).lattice, board_layout().area
        filled = set(view.board) | set(view.towers)
    rgb = decode(board_png(view))
    live = [h for h in area.cells if h not in filled and h not in _dead(area, filled)]
    heights = [_label_height(rgb, lat, h) for h in live]
    assert len(heights) > 100
    # Every label of an empty cell (capitals and digits: all one height).
    assert min(heights) * PHONE / rgb.width >= LABEL_FLOOR, min(heights)


def test_labels_only_where_a_tile_can_go() -> None:
    view = _genial_late(2, 40).view(None)
    area = playing_area(5)
    lat = genial_board.layout("standard", 2).lattice
    filled = set(view.board) | set(START_SYMBOLS)
    empty = [h for h in area.cells if h not in filled]
    # A cell whose every neighbour on the board is filled can take no tile.
    dead = _dead(area, filled)
    assert dead, "the position has an enclosed empty cell"
    rgb = decode(board_png(view))
    for h in empty:
        assert (_label_height(rgb, lat, h) == 0) == (h in dead), area.label(h)


# --- several placements told together ---------------------------------------------------


def _probe(rgb: Image.Image, xy: tuple[float, float]) -> tuple[int, int, int]:
    return rgb.getpixel((round(xy[0]), round(xy[1])))  # type: ignore[return-value]


def _rim_colours(rgb: Image.Image, lat: Lattice, cell: Hex) -> list[tuple[int, int, int]]:
    """The colour just inside a cell's face towards each of its six sides."""
    cx, cy = lat.centre(cell)
    return [
        _probe(rgb, (cx + 0.415 * lat.w * math.cos(a), cy + 0.415 * lat.w * math.sin(a)))
        for a in (math.radians(60 * k) for k in range(6))
    ]


def test_genial_placements_told_together_are_numbered_in_seat_colours() -> None:
    game = _genial_late(4, 24)
    view = game.view(None)
    tiles = genial_board.placed_tiles(view)[-3:]
    told = [Told(seat, p.cell1, p.cell2) for seat, p in zip((0, 1, 2), tiles, strict=True)]
    names = ["Ann", "Computer 1", "Computer 2", "Computer 3"]
    rgb = decode(board_png(view, names=names, told=told))
    lat = genial_board.layout("standard", 4).lattice
    d = marks.badge_diameter(lat)
    for number, t in enumerate(told, 1):
        colour = SEAT_MARK[t.seat]
        # The tile's outline in the seat's colour (on at least its five open sides).
        for cell in (t.cell1, t.cell2):
            assert _rim_colours(rgb, lat, cell).count(colour) >= 4, (number, cell)
        # Its badge on the joint: the seat's colour left and right of the figure, a ring.
        cx, cy = marks.badge_centre(lat, t)
        assert _probe(rgb, (cx - 0.36 * d, cy)) == colour
        assert _probe(rgb, (cx + 0.36 * d, cy)) == colour
        # The figure is its number: the badge as drawn for this number, not another.
        crop = rgb.crop((cx - d // 2, cy - d // 2, cx - d // 2 + d, cy - d // 2 + d))
        mark = genial_board.MARKS[t.seat]
        own = marks.badge("genial", number, d, mark)[0].convert("RGB")
        other = marks.badge("genial", number + 1, d, mark)[0].convert("RGB")
        inside = [
            (x, y)
            for x in range(d)
            for y in range(d)
            if (x - d / 2) ** 2 + (y - d / 2) ** 2 < (d / 2 - 3) ** 2
        ]
        assert all(crop.getpixel(xy) == own.getpixel(xy) for xy in inside)
        assert any(crop.getpixel(xy) != other.getpixel(xy) for xy in inside)
    # The legend: a disc in each seat's colour, Ann's top left, Computer 1's top right.
    cy = marks.LEGEND_Y + marks.LEGEND_LINE // 2
    r = marks.LEGEND_DISC // 2
    assert _probe(rgb, (marks.LEGEND_X + r, cy)) == SEAT_MARK[0]
    assert _probe(rgb, (rgb.width - 1 - marks.LEGEND_X - r, cy)) == SEAT_MARK[1]
    assert _probe(rgb, (marks.LEGEND_X + r, cy + marks.LEGEND_LINE)) == SEAT_MARK[2]


def test_one_placement_alone_is_not_numbered() -> None:
    view = _genial_late(4, 24).view(None)
    p = genial_board.placed_tiles(view)[-1]
    rgb = decode(board_png(view, told=[Told(1, p.cell1, p.cell2)]))
    # Marked as the last placement always is, in the highlight; no seat's colour, no legend.
    assert SEAT_MARK[1] not in {c for _, c in rgb.getcolors(1 << 16) or []}


def test_spezial_placements_told_together_are_numbered_in_seat_colours() -> None:
    game = _spezial_late(3, 12)
    view = game.view(None)
    told = [Told(s, a, b) for s, a, b in spezial_board.placed_tiles(view)[-3:]]
    assert sorted(t.seat for t in told) == [0, 1, 2]
    rgb = decode(board_png(view, names=["Ann", "Computer 1", "Computer 2"], told=told))
    lat = spezial_board.layout(3).lattice
    d = marks.badge_diameter(lat)
    for t in told:
        cx, cy = marks.badge_centre(lat, t)
        # The badge in the seat's own colour, ringed in the highlight.
        assert _probe(rgb, (cx - 0.36 * d, cy)) == SEAT[t.seat]
        assert _probe(rgb, (cx - d / 2 + 1, cy)) == HIGHLIGHT
    cy = marks.LEGEND_Y + marks.LEGEND_LINE // 2
    r = marks.LEGEND_DISC // 2
    assert _probe(rgb, (marks.LEGEND_X + r, cy)) == SEAT[told[0].seat]
