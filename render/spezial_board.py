"""The Genial Spezial board image: the double hexagon, towers with their tokens, golden
spaces, tiles in each player's colour with their chains linked, the last placement, and the
score panel below.

The board's sprites (tiles, chains, towers, dead cells without labels) are an ordered list
drawn on the empty board through a cache of the last boards (render/scene.py): at a table
a turn draws again only the few cells that changed, with the pixels of a board drawn from
nothing. Marks go on a copy, every time; the panel goes below the sprites, on the PNG
writer's canvas, which is kept as the board itself when it has no marks (no copy: the
next board draws its panel again).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from PIL import Image

from engine.hexgrid import Hex
from engine.moves import SpezialPlacement
from engine.notation import parse_spezial_placement
from engine.spezial import SCORE_COLOURS, TALL, SpezialView, board_layout
from engine.tiles import Colour
from render import marks
from render.canvas import Canvas
from render.cells import EMPTY_FACE, dead_cells, empty_board
from render.fonts import draw_text, font
from render.geometry import JOINT_DIRECTIONS, Lattice, joint_order
from render.marks import SeatMark, Told
from render.panel import SideRow, draw_rows, row_tops, rows_height
from render.prebuilt import piece
from render.scene import Item, Scenes
from render.sprites import Face, Sprite, Window, cell_sprite, draw_face, joint_sprite
from render.sprites import highlighted as highlight_face
from render.symbols import draw_symbol
from render.theme import (
    GOLDEN,
    GOLDEN_CELL,
    GOLDEN_MARK,
    HIGHLIGHT,
    INK,
    PAPER,
    SEAT,
    SEAT_EDGE,
    SHORT,
    STONE_DARK,
    STONE_LIGHT,
    SYMBOL,
    TOKEN_DARK,
    TOKEN_LIGHT,
    WHITE,
    quantize,
)
from render.theme import (
    TALL as TALL_STONE,
)

GAME = "spezial"
WIDTH = 1120
SIDE_MARGIN = 92  # cells 72 px wide, to keep the 25 rows short enough for a phone
TOP_MARGIN = 14
PANEL_TOP = 24
PANEL_X = 16
BOTTOM_MARGIN = 16
PANEL_COLUMNS = 2  # four scores fit half a row: the tall board needs no taller panel
# Cells, chains and towers are drawn crisp (not over-size, so without blend colours at
# their edges): on a late 4-player board smooth cell edges cost 13 KB of PNG and smooth
# towers 7 KB more (bench_render.py: 96.8 KB -> 76.9 KB). At 72 px a cell's crisp edge is
# an even staircase nobody notices on a phone; labels and token values stay smooth text.
CELL_SS = 1
TOWER_SS = 1
# A seat's tiles have a thin darker rim. One pixel: drawn crisp, a rim of 1.8 px came out
# 1 or 2 px wide along each slanted edge, which the eye does not see and deflate does
# (0.9 KB of a late board's PNG).
SEAT_RIM = 1.0
# How the PNG writer deflates this board (render/encode.py). A tile on the tall board spans
# ~130 rows whatever the bands, so bands of 32 rows deflate no more rows per turn than
# bands of 16 and lose less at their edges (-2 KB). Level 7 takes a third more time than 6
# for 2 KB less (at 6 the largest late boards come within 0.1 KB of the 60 KB goal); the
# score rows, deflated again every turn, stay at 6: level 7 saves 0.2 KB there.
PNG_BAND_ROWS = 32
PNG_LEVEL = 7
PANEL_PNG_LEVEL = 6


def seat_face(seat: int, lat: Lattice, highlighted: bool = False) -> Face:
    """How a seat's tiles look; the last placement gets a wide rim."""
    if highlighted:
        return highlight_face(SEAT[seat], lat)
    return Face(SEAT[seat], SEAT_EDGE[seat], SEAT_RIM)


def golden_face(lat: Lattice) -> Face:
    return Face(GOLDEN_CELL, GOLDEN, max(2.0, 0.04 * lat.w))


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Where things go on the board image for a number of players."""

    lattice: Lattice
    width: int
    height: int
    panel_y: int


@cache
def layout(players: int) -> BoardLayout:
    area = board_layout().area
    halves = [2 * h.q + h.r for h in area.cells]  # a cell's x, in half cell widths
    rs = [h.r for h in area.cells]
    across = (max(halves) - min(halves)) // 2 + 1
    lat = Lattice.for_width((WIDTH - 2 * SIDE_MARGIN) // across)
    # Centre the cells across the image.
    left = WIDTH // 2 - (lat.w // 2) * (max(halves) + min(halves)) // 2
    top = TOP_MARGIN + round(lat.ry) - min(rs) * lat.v
    lat = lat.at(left, top)
    board_bottom = top + max(rs) * lat.v + round(lat.ry)
    panel_y = board_bottom + PANEL_TOP
    height = panel_y + rows_height(players, PANEL_COLUMNS) + BOTTOM_MARGIN
    return BoardLayout(lat, WIDTH, height, panel_y)


@cache
def band_cuts(players: int) -> tuple[int, ...]:
    """Rows where the PNG writer should start a band: each line of the panel's rows
    changes as a whole from turn to turn (see :func:`render.encode.png_bytes`)."""
    return tuple(row_tops(layout(players).panel_y, players, PANEL_COLUMNS))


@cache
def tower_base(lat: Lattice, height: str) -> Sprite:
    """A tower's cell without its token: dark stone with battlements if tall, light
    stone if short."""
    return _tower(lat, height, None)


@piece
def tower_sprite(lat: Lattice, height: str, colour: Colour, value: int, dark: bool) -> Sprite:
    """A tower with its token: the colour's symbol, the value on a light or dark disc."""
    return _tower(lat, height, (colour, value, dark))


def _tower(lat: Lattice, height: str, token: tuple[Colour, int, bool] | None) -> Sprite:
    tall = height == TALL
    half = lat.w / 2
    if tall:
        face = Face(TALL_STONE, STONE_DARK, 0.07 * lat.w)
    else:
        face = Face(SHORT, STONE_LIGHT, 0.03 * lat.w)
    hw, hh = int(lat.rx) + 2, int(lat.ry) + 2
    win = Window(-hw, -hh, hw + 1, hh + 1, PAPER, TOWER_SS)
    draw_face(win, lat, 0, 0, face)
    cx, cy = win.ss((0, 0))
    big = half * win.k  # half the cell width, in drawing coordinates
    draw = win.draw
    if tall:  # battlements round the top, so a tall tower reads as tall without colour
        for k in range(6):
            a = math.pi * k / 3
            mx, my = cx + 0.74 * big * math.cos(a), cy + 0.74 * big * math.sin(a)
            m = 0.1 * big
            draw.rectangle((mx - m, my - m, mx + m, my + m), fill=STONE_LIGHT)
    if token is not None:
        colour, value, dark = token
        fill = SYMBOL[colour]  # the colour always reads; the disc tells the side
        draw_symbol(draw, colour, cx, cy, 0.62 * big, fill, face.fill)
        r_disc = 0.32 * big
        disc = TOKEN_DARK if dark else TOKEN_LIGHT
        draw.ellipse((cx - r_disc, cy - r_disc, cx + r_disc, cy + r_disc), fill=disc)
        size = round(0.46 * big)
        ink = WHITE if dark else INK
        draw_text(win.big, (cx, cy + 0.02 * big), str(value), font(size), ink, "mm")
    win.mask_polygon(lat.corners(0, 0, 1 - 1.0 / half))
    return win.sprite(GAME)


@piece
def background(towers: frozenset[tuple[Hex, str]], players: int) -> Image.Image:
    """The empty board: labelled cells, golden spaces, the bases of the towers in use."""
    lay = layout(players)
    lat = lay.lattice
    where = dict(towers)
    golden = board_layout().golden
    gold = golden_face(lat)

    def tower(h: Hex) -> Sprite | None:
        height = where.get(h)
        return None if height is None else tower_base(lat, height)

    def face(h: Hex) -> Face:
        return gold if h in golden else EMPTY_FACE

    img = empty_board((lay.width, lay.height), board_layout().area, lat, tower, face, CELL_SS)
    return quantize(img, GAME)


@lru_cache(maxsize=8192)
def _placement(text: str) -> SpezialPlacement:
    return parse_spezial_placement(text, board_layout().area)


def placed_tiles(view: SpezialView) -> list[tuple[int, Hex, Hex]]:
    """The tiles on the board as (seat, cell, cell), from the moves, checked against the
    board."""
    tiles = []
    for text in view.moves:
        p = _placement(text)
        seat = view.board.get(p.cell1)
        if seat is not None and view.board.get(p.cell2) == seat:
            tiles.append((seat, p.cell1, p.cell2))
    return tiles


@cache
def _cells(
    players: int,
) -> tuple[dict[Hex, tuple[int, int]], dict[Hex, list[tuple[int, Hex]]]]:
    """Each cell's centre pixel, and its neighbours in :data:`JOINT_DIRECTIONS` (worked out
    once: a board asks for them hundreds of times)."""
    lat = layout(players).lattice
    area = board_layout().area
    cells = area.cells
    centres = {h: lat.centre(h) for h in cells}
    # From the area's table of neighbours by index (a new Hex per cell and direction cost
    # 0.6 ms of a new process's first board).
    neighbours = {
        h: [(d, cells[row[d]]) for d in JOINT_DIRECTIONS if row[d] >= 0]
        for h, row in zip(cells, area.neighbours, strict=True)
    }
    return centres, neighbours


#: The numbered badges of each seat (render/marks.py): the seat's own colour, a figure
#: that reads on it, the highlight's ring.
MARKS = tuple(SeatMark(c, WHITE if k < 2 else INK, HIGHLIGHT) for k, c in enumerate(SEAT))


@cache
def legend_rooms(towers: frozenset[tuple[Hex, str]], players: int) -> tuple[int, ...]:
    return marks.legend_rooms(background(towers, players), GAME)


#: Boards' sprite layers kept (~2 MB each at 4 players) to draw the next turn's from: at a
#: table a turn changes a dozen or two of a board's 30-300 sprites (render/scene.py).
SCENES = 16
_scenes = Scenes(SCENES)


def clear_cache() -> None:
    """Forget the boards kept (for tests and benchmarks: as after a restart)."""
    _scenes.clear()


def draw_board(
    view: SpezialView,
    names: Sequence[str],
    highlight: frozenset[Hex] = frozenset(),
    told: Sequence[Told] = (),
    clocks: Sequence[str | None] = (),
    out: Image.Image | None = None,
) -> Image.Image:
    """The board image (in the palette); tiles on ``highlight`` cells are marked too,
    ``told`` (several placements told together, in order) are marked and numbered in
    their seats' colours, with a legend, and ``clocks`` (each seat's time left) shown in
    the panel. Drawn on ``out`` (an image of :func:`layout`'s size) if given, else on a
    new image."""
    lay = layout(view.players)
    key = frozenset((h, t.height) for h, t in view.towers.items())
    numbered = marks.numbered(told)
    last: set[Hex] = set(highlight)
    for placement in numbered:
        last |= {placement.cell1, placement.cell2}
    if view.last_placement is not None:
        last |= {view.last_placement.cell1, view.last_placement.cell2}
    items = sprite_items(view, last)
    panel = (0, lay.panel_y, lay.width, lay.height)
    img = _scenes.board(background(key, view.players), items, out, panel, marked=bool(numbered))
    canvas = Canvas(img, GAME)
    if numbered:
        marks.draw_badges(img, GAME, lay.lattice, numbered, MARKS)
        marks.draw_legend(canvas, legend_rooms(key, view.players), numbered, MARKS, names)
    draw_panel(canvas, view, names, lay.panel_y, clocks)
    return img


class _Made(dict[tuple[Any, ...], Sprite]):
    """Sprites by what tells them apart on one layout's board, each made on first use: a
    board looks up hundreds, and the sprite functions' own caches hash the lattice and
    the faces on every call."""

    def __init__(self, make: Callable[..., Sprite]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key: tuple[Any, ...]) -> Sprite:
        sprite = self[key] = self._make(*key)
        return sprite


@dataclass(frozen=True, slots=True)
class _Sprites:
    """A layout's sprites: ``cells`` by (seat, highlighted, golden space), ``joints`` by
    (direction, seat, each cell highlighted, chain), ``towers`` by (height, colour,
    value, dark), ``empty`` (a dead cell without its label) by (golden space,)."""

    cells: _Made
    joints: _Made
    towers: _Made
    empty: _Made


@cache
def _sprites(players: int) -> _Sprites:
    lat = layout(players).lattice

    def cell(s: int, hl: bool, gold: bool) -> Sprite:
        ring = GOLDEN_MARK[s] if gold else None
        return cell_sprite(lat, seat_face(s, lat, hl), ring=ring, game=GAME, ss=CELL_SS)

    def joint(d: int, s: int, hl_a: bool, hl_b: bool, chain: bool) -> Sprite:
        face_a, face_b = seat_face(s, lat, hl_a), seat_face(s, lat, hl_b)
        link = SEAT[s] if chain else None
        return joint_sprite(lat, d, face_a, face_b, link, GAME, ss=CELL_SS)

    def tower(height: str, colour: Colour, value: int, dark: bool) -> Sprite:
        return tower_sprite(lat, height, colour, value, dark)

    def empty(gold: bool) -> Sprite:  # a cell no tile can reach, without its label
        return cell_sprite(lat, golden_face(lat) if gold else EMPTY_FACE, game=GAME, ss=CELL_SS)

    return _Sprites(_Made(cell), _Made(joint), _Made(tower), _Made(empty))


@lru_cache(maxsize=8192)
def _tile(text: str) -> tuple[Hex, Hex, int]:
    """A placement's cells in joint order, and the direction from the one to the other."""
    p = _placement(text)
    return joint_order(p.cell1, p.cell2)


def sprite_items(view: SpezialView, last: Collection[Hex]) -> list[Item]:
    """The board's sprites in the order they go on its background: tiles, the chains'
    links, the tiles' own joints, towers with their tokens, and the cells no tile can reach
    without their labels; tiles on ``last`` drawn as the last placement."""
    looks = _sprites(view.players)
    cells, joints = looks.cells, looks.joints
    golden = board_layout().golden
    board = view.board
    centres, neighbours = _cells(view.players)
    tiles = []  # (seat, first cell, second cell, direction), as placed_tiles checks them
    partner: dict[Hex, Hex] = {}
    for text in view.moves:
        a, b, d = _tile(text)
        s = board.get(a)
        if s is not None and board.get(b) == s:
            tiles.append((s, a, b, d))
            partner[a], partner[b] = b, a
    items: list[Item] = []
    # Chains after every cell, and a tile's own joint last, so its outline stays whole.
    chains: list[Item] = []
    for h, s in board.items():
        cx, cy = centres[h]
        hl = h in last
        items.append((cells[s, hl, h in golden], cx, cy))
        for d, n in neighbours[h]:
            if board.get(n) == s and partner.get(h) != n:
                chains.append((joints[d, s, hl, n in last, True], cx, cy))
    items += chains
    for s, a, b, d in tiles:
        cx, cy = centres[a]
        items.append((joints[d, s, a in last, b in last, False], cx, cy))
    towers = looks.towers
    for h, t in view.towers.items():
        cx, cy = centres[h]
        items.append((towers[t.height, t.colour, t.value, t.dark], cx, cy))
    empty = looks.empty
    for h in dead_cells(board_layout().area, board.keys() | view.towers.keys()):
        cx, cy = centres[h]
        items.append((empty[h in golden,], cx, cy))
    return items


SWATCH = Lattice.for_width(22)


def side_rows(
    view: SpezialView, names: Sequence[str], clocks: Sequence[str | None] = ()
) -> list[SideRow]:
    """The panel's rows, one per seat; ``clocks``: each seat's time left, if any."""
    return [
        SideRow(
            (names[s],),
            view.scores[s],
            0 if view.to_move == s else None,
            swatch=seat_face(s, SWATCH),
            tiles_left=view.tiles_left[s],
            clocks=(clocks[s],) if clocks else (),
        )
        for s in range(view.players)
    ]


def track_length(view: SpezialView) -> int:
    """Spezial tracks have no end: bars run to the best score on the table (at least 10)."""
    return max([10, *(max(sc.values()) for sc in view.scores)])


def draw_panel(
    canvas: Canvas,
    view: SpezialView,
    names: Sequence[str],
    y: int,
    clocks: Sequence[str | None] = (),
) -> None:
    """The score panel below the board, from ``y`` down."""
    rows = side_rows(view, names, clocks)
    width = WIDTH - 2 * PANEL_X
    top = track_length(view)
    draw_rows(canvas, PANEL_X, y, width, rows, SCORE_COLOURS, top, columns=PANEL_COLUMNS)
