"""What a player reads off the Genial board: symbols in their cells, labels in the empty
cells (the right label in the right cell), tiles joined, the last placement marked.

Expected colours come from the view and RULES.md, positions from the board's lattice,
which is itself checked against RULES.md section 1's pixel geometry.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from engine.genial import START_SYMBOLS, GenialView, playing_area
from engine.hexgrid import Hex, direction_between
from engine.tiles import Colour
from render import board_png
from render.fonts import Font, label_font
from render.genial_board import layout, placed_tiles
from render.geometry import Lattice
from render.theme import EMPTY, HIGHLIGHT, LABEL, PAPER, PRINTED, SYMBOL, TILE
from tests.render.helpers import decode, genial_game

# RULES.md 2.2: on a 2-player board the start symbols are at these labels.
TWO_PLAYER_STARTS = {
    "A1": Colour.RED,
    "A6": Colour.GREEN,
    "F11": Colour.BLUE,
    "K6": Colour.ORANGE,
    "K1": Colour.YELLOW,
    "F1": Colour.PURPLE,
}


def rules_label(h: Hex, radius: int) -> str:
    """RULES.md section 1, worked out here: rows from the top, numbers from the left."""
    row = h.r + radius
    first_q = max(-radius, -h.r - radius)
    return f"{chr(ord('A') + row)}{h.q - first_q + 1}"


def board(view: GenialView) -> tuple[Image.Image, Lattice]:
    return decode(board_png(view)), layout(view.mode, view.players).lattice


@pytest.mark.parametrize(("mode", "players"), [("standard", 2), ("standard", 3), ("standard", 4),
                                               ("team", 4), ("solo", 1)])  # fmt: skip
def test_lattice_follows_the_rules_geometry(mode: str, players: int) -> None:
    lat = layout(mode, players).lattice
    x0, y0 = lat.centre(Hex(0, 0))
    scale = lat.w / math.sqrt(3)
    for h in playing_area(_radius(mode, players)).cells:
        x, y = lat.centre(h)
        # x = √3·(q + r/2), y = 1.5·r, at the board's scale: across exactly (to a pixel),
        # and up and down stretched by at most 1% (rows sit on whole pixels).
        assert abs(x - x0 - scale * math.sqrt(3) * (h.q + h.r / 2)) <= 1
        assert abs(y - y0 - scale * 1.5 * h.r) <= 0.01 * scale * 1.5 * abs(h.r) + 1


def _radius(mode: str, players: int) -> int:
    return {("standard", 2): 5, ("standard", 3): 6, ("solo", 1): 5}.get((mode, players), 7)


def test_start_symbols_of_a_two_player_board(shared: Path) -> None:
    view = genial_game(shared, "01-genial-standard-2p", 0).view(None)
    img, lat = board(view)
    area = view.area
    for label, colour in TWO_PLAYER_STARTS.items():
        cx, cy = lat.centre(area.parse_label(label))
        assert img.getpixel((cx, cy)) == SYMBOL[colour], label
        # Printed on the board, not a tile: the printed cell shows beside the symbol.
        near_corner = lat.corners(cx, cy, 0.8)[0]
        assert img.getpixel((round(near_corner[0]), round(near_corner[1]))) == PRINTED


@pytest.mark.parametrize(("name", "moves"), [("01-genial-standard-2p", 30),
                                             ("03-genial-standard-3p", 50),
                                             ("04-genial-standard-4p", 70),
                                             ("05-genial-team-4p", 44),
                                             ("06-genial-solo-1p", 25)])  # fmt: skip
def test_every_cell_shows_its_symbol_or_is_empty(shared: Path, name: str, moves: int) -> None:
    view = genial_game(shared, name, moves).view(None)
    img, lat = board(view)
    for h in view.area.cells:
        cx, cy = lat.centre(h)
        colour = view.board.get(h)
        if colour is not None:
            assert img.getpixel((cx, cy)) == SYMBOL[colour], rules_label(h, view.radius)
        else:
            # An empty cell: its face, with its label in the middle.
            top = lat.corners(cx, cy, 0.8)[0]
            assert img.getpixel((round(top[0]), round(top[1]))) == EMPTY


def _label_face(lat: Lattice, radius: int) -> Font:
    """The labels' face: condensed bold, as large as the widest label of the board allows
    in 0.84 of a cell's width (issue 27: legible 390 px wide)."""
    labels = playing_area(radius).labels
    size = 8
    while max(label_font(size + 1).getlength(t) for t in labels) <= 0.84 * lat.w:
        size += 1
    return label_font(size)


def _label_crop(img: Image.Image, face: Font, centre: tuple[int, int], text: str) -> bytes:
    box = face.getbbox(text, anchor="mm")
    x, y = centre
    return img.crop((x + box[0], y + box[1], x + box[2], y + box[3])).tobytes()


def _reference_label(face: Font, text: str) -> bytes:
    """The label drawn on its own, crisp: label ink where the glyphs cover a pixel, else
    the empty cell's face."""
    size = 200
    ref = Image.new("RGB", (size, size), EMPTY)
    draw = ImageDraw.Draw(ref)
    draw.fontmode = "1"
    draw.text((size // 2, size // 2), text, font=face, fill=LABEL, anchor="mm")
    return _label_crop(ref, face, (size // 2, size // 2), text)


@pytest.mark.parametrize(("name", "radius"), [("01-genial-standard-2p", 5),
                                              ("03-genial-standard-3p", 6),
                                              ("04-genial-standard-4p", 7)])  # fmt: skip
def test_each_empty_cell_carries_its_own_label(shared: Path, name: str, radius: int) -> None:
    view = genial_game(shared, name, 12).view(None)
    img, lat = board(view)
    face = _label_face(lat, radius)
    checked = 0
    for h in view.area.cells:
        if h in view.board:
            continue
        label = rules_label(h, radius)
        here = _label_crop(img, face, lat.centre(h), label)
        assert here == _reference_label(face, label), label
        checked += 1
        # The label sits inside its hex: no label ink on the cell's rim.
        cx, cy = lat.centre(h)
        rim = [lat.corners(cx, cy, 0.85)[k] for k in range(6)]
        assert all(img.getpixel((round(x), round(y))) == EMPTY for x, y in rim)
    assert checked > 40
    # The comparison tells labels apart: F7's cell does not show F8.
    cell = next(h for h in view.area.cells if rules_label(h, radius) == "F7")
    assert _label_crop(img, face, lat.centre(cell), "F8") != _reference_label(face, "F8")


def test_a_tile_is_joined_and_neighbouring_tiles_are_apart(shared: Path) -> None:
    view = genial_game(shared, "04-genial-standard-4p", 60).view(None)
    img, lat = board(view)
    tiles = placed_tiles(view)
    partner = {}
    for p in tiles:
        partner[p.cell1], partner[p.cell2] = p.cell2, p.cell1
    joined = apart = 0
    for a, b in partner.items():
        for n in a.neighbours():
            if n not in partner:
                continue
            (ax, ay), (bx, by) = lat.centre(a), lat.centre(n)
            mid = img.getpixel(((ax + bx) // 2, (ay + by) // 2))
            if n == b:
                assert mid == TILE  # the gap between the halves is filled
                joined += 1
            else:
                assert mid == PAPER  # a gap between two tiles
                apart += 1
    assert joined > 50 and apart > 50


def test_last_placement_is_outlined(shared: Path) -> None:
    view = genial_game(shared, "05-genial-team-4p", 35).view(None)
    img, lat = board(view)
    last = {c for p in view.last_placements for c in p.cells}
    assert last
    for h in view.board:
        if h in {s for s, _ in START_SYMBOLS}:
            continue
        cx, cy = lat.centre(h)
        # Probe the rim of the cell's face, towards each of its six neighbours.
        probes = [
            img.getpixel((round(cx + 0.415 * lat.w * math.cos(a)),
                          round(cy + 0.415 * lat.w * math.sin(a))))
            for a in (math.radians(60 * k) for k in range(6))
        ]  # fmt: skip
        rim = probes.count(HIGHLIGHT)
        if h in last:
            assert rim == 5, rules_label(h, view.radius)  # all round but the joined side
        else:
            assert rim == 0, rules_label(h, view.radius)


def test_tiles_of_the_last_turn_are_neighbours(shared: Path) -> None:
    # The placements the image outlines are real tiles: two neighbouring cells each.
    view = genial_game(shared, "04-genial-standard-4p", 80).view(None)
    for p in view.last_placements:
        assert direction_between(p.cell1, p.cell2) is not None
