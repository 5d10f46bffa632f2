"""The board as SVG for the web page: the same lattice, colours and symbols as the PNG
(``genial_board`` / ``spezial_board`` layouts and ``theme``), drawn by the browser.

Only the board itself (no score panel: the page shows that as text). Every cell is a
``<g class="cell" data-cell="F7">`` so the page can find and mark it; the output holds cell
labels and numbers only, never a name, so it carries no text a player typed.
"""

from __future__ import annotations

import math

from engine.genial import GenialView, playing_area
from engine.hexgrid import Area, Hex
from engine.spezial import TALL, SpezialView, board_layout
from engine.tiles import Colour
from render import genial_board, spezial_board
from render.cells import label_size
from render.geometry import Lattice, Point
from render.symbols import regular, star
from render.theme import (
    EMPTY,
    EMPTY_EDGE,
    GOLDEN,
    GOLDEN_CELL,
    HIGHLIGHT,
    INK,
    LABEL,
    PAPER,
    PRINTED,
    PRINTED_EDGE,
    RGB,
    ROW_LABEL,
    SEAT,
    SEAT_EDGE,
    SHORT,
    STONE_DARK,
    STONE_LIGHT,
    SYMBOL,
    TILE,
    TOKEN_DARK,
    TOKEN_LIGHT,
    WHITE,
)
from render.theme import (
    TALL as TALL_STONE,
)

__all__ = ["board_svg", "hex_colour", "symbol_svg"]


def hex_colour(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _points(points: list[Point]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _disc(cx: float, cy: float, r: float, fill: RGB) -> str:
    return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{hex_colour(fill)}"/>'


def symbol_svg(colour: Colour, cx: float, cy: float, radius: float, backdrop: RGB) -> str:
    """``colour``'s symbol as SVG, shaped as :func:`render.symbols.draw_symbol` draws it."""
    fill = SYMBOL[colour]
    ink = hex_colour(fill)
    if colour is Colour.RED:
        return (
            f'<polygon points="{_points(star(cx, cy, 12, radius, radius * 0.56))}" fill="{ink}"/>'
        )
    if colour is Colour.GREEN:
        return _disc(cx, cy, radius * 0.86, fill)
    if colour is Colour.BLUE:
        pts = star(cx, cy, 6, radius, radius / math.sqrt(3))
        return f'<polygon points="{_points(pts)}" fill="{ink}"/>'
    if colour is Colour.ORANGE:
        return f'<polygon points="{_points(regular(cx, cy, 6, radius * 0.92))}" fill="{ink}"/>'
    if colour is Colour.YELLOW:
        pts = star(cx, cy, 24, radius, radius * 0.74)
        return (
            f'<polygon points="{_points(pts)}" fill="{ink}"/>'
            + _disc(cx, cy, radius * 0.58, backdrop)
            + _disc(cx, cy, radius * 0.5, fill)
        )
    return (
        _disc(cx, cy, radius * 0.9, fill)
        + _disc(cx, cy, radius * 0.58, backdrop)
        + _disc(cx, cy, radius * 0.26, fill)
    )


def _hexagon(lat: Lattice, h: Hex, fill: RGB, edge: RGB, width: float) -> str:
    cx, cy = lat.centre(h)
    pts = _points(lat.corners(cx, cy, 1 - 1.0 / (lat.w / 2)))
    return (
        f'<polygon points="{pts}" fill="{hex_colour(fill)}" stroke="{hex_colour(edge)}"'
        f' stroke-width="{width:.1f}"/>'
    )


def _label(lat: Lattice, h: Hex, text: str, size: int, ink: RGB = LABEL) -> str:
    cx, cy = lat.centre(h)
    return (
        f'<text x="{cx}" y="{cy}" font-size="{size}" fill="{hex_colour(ink)}"'
        f' text-anchor="middle" dominant-baseline="central">{text}</text>'
    )


def _row_letters(area: Area, lat: Lattice, size: int) -> str:
    rows: dict[int, list[Hex]] = {}
    for h in area.cells:
        rows.setdefault(h.r, []).append(h)
    gap = lat.w // 2 + 4
    out = []
    ink = hex_colour(ROW_LABEL)
    for k, r in enumerate(sorted(rows)):
        letter = chr(ord("A") + k)
        lx, ly = lat.centre(rows[r][0])
        rx, ry = lat.centre(rows[r][-1])
        out.append(
            f'<text x="{lx - gap}" y="{ly}" font-size="{size}" fill="{ink}" text-anchor="end"'
            f' dominant-baseline="central">{letter}</text>'
            f'<text x="{rx + gap}" y="{ry}" font-size="{size}" fill="{ink}"'
            f' dominant-baseline="central">{letter}</text>'
        )
    return "".join(out)


def _joint(lat: Lattice, a: Hex, b: Hex, fill: RGB) -> str:
    """The bridge between a tile's two halves, so a tile reads as one piece."""
    (ax, ay), (bx, by) = lat.centre(a), lat.centre(b)
    return (
        f'<line x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}" stroke="{hex_colour(fill)}"'
        f' stroke-width="{0.5 * lat.w:.1f}"/>'
    )


def _svg(width: int, height: int, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
        f' class="board" font-family="DejaVu Sans, sans-serif">'
        f'<rect width="{width}" height="{height}" fill="{hex_colour(PAPER)}"/>'
        + "".join(body)
        + "</svg>"
    )


def _cell(label: str, inner: str) -> str:
    return f'<g class="cell" data-cell="{label}">{inner}</g>'


def _genial_svg(view: GenialView, highlight: frozenset[Hex]) -> str:
    lay = genial_board.layout(view.mode, view.players)
    lat = lay.lattice
    area = playing_area(view.radius)
    size = label_size(lat)
    last = {p.canonical() for p in view.last_placements}
    tiles = genial_board.placed_tiles(view)
    marked: set[Hex] = set()
    for p in tiles:
        if p.canonical() in last or (p.cell1 in highlight and p.cell2 in highlight):
            marked |= {p.cell1, p.cell2}
    body: list[str] = []
    for p in tiles:
        body.append(_joint(lat, p.cell1, p.cell2, HIGHLIGHT if p.cell1 in marked else TILE))
    radius = 0.34 * lat.w
    for h, label in zip(area.cells, area.labels, strict=True):
        cx, cy = lat.centre(h)
        if h in view.start_symbols:
            colour = view.start_symbols[h]
            face = _hexagon(lat, h, PRINTED, PRINTED_EDGE, max(2.0, 0.035 * lat.w))
            inner = face + symbol_svg(colour, cx, cy, radius, PRINTED)
        elif h in view.board:
            colour = view.board[h]
            edge = HIGHLIGHT if h in marked else TILE
            face = _hexagon(lat, h, TILE, edge, 0.09 * lat.w if h in marked else 1.0)
            inner = face + symbol_svg(colour, cx, cy, radius, TILE)
        else:
            inner = _hexagon(lat, h, EMPTY, EMPTY_EDGE, 1.0) + _label(lat, h, label, size)
        body.append(_cell(label, inner))
    body.append(_row_letters(area, lat, size))
    return _svg(lay.width, lay.panel_y - genial_board.PANEL_TOP // 2, body)


def _tower(lat: Lattice, h: Hex, tower: object | None, height: str) -> str:
    tall = height == TALL
    if tall:
        face = _hexagon(lat, h, TALL_STONE, STONE_DARK, 0.07 * lat.w)
    else:
        face = _hexagon(lat, h, SHORT, STONE_LIGHT, 0.03 * lat.w)
    if tower is None:
        return face
    cx, cy = lat.centre(h)
    half = lat.w / 2
    colour: Colour = tower.colour  # type: ignore[attr-defined]
    dark: bool = tower.dark  # type: ignore[attr-defined]
    value: int = tower.value  # type: ignore[attr-defined]
    stone = TALL_STONE if tall else SHORT
    ink = WHITE if dark else INK
    return (
        face
        + symbol_svg(colour, cx, cy, 0.62 * half, stone)
        + _disc(cx, cy, 0.32 * half, TOKEN_DARK if dark else TOKEN_LIGHT)
        + _label(lat, h, str(value), round(0.46 * half), ink)
    )


def _spezial_svg(view: SpezialView, highlight: frozenset[Hex]) -> str:
    lay = spezial_board.layout(view.players)
    lat = lay.lattice
    layout = board_layout()
    area = layout.area
    size = label_size(lat)
    marked: set[Hex] = set(highlight)
    if view.last_placement is not None:
        marked |= {view.last_placement.cell1, view.last_placement.cell2}
    heights = {t.cell: t.height for t in layout.towers_for(view.players)}
    body: list[str] = []
    for seat, a, b in spezial_board.placed_tiles(view):
        body.append(_joint(lat, a, b, HIGHLIGHT if a in marked else SEAT[seat]))
    for h, label in zip(area.cells, area.labels, strict=True):
        if h in heights:
            inner = _tower(lat, h, view.towers.get(h), heights[h])
        elif h in view.board:
            seat = view.board[h]
            edge = HIGHLIGHT if h in marked else SEAT_EDGE[seat]
            width = 0.09 * lat.w if h in marked else 1.0
            inner = _hexagon(lat, h, SEAT[seat], edge, width)
            if h in layout.golden:
                inner += _disc(*lat.centre(h), 0.14 * lat.w, GOLDEN)
        elif h in layout.golden:
            inner = _hexagon(lat, h, GOLDEN_CELL, GOLDEN, max(2.0, 0.04 * lat.w))
            inner += _label(lat, h, label, size)
        else:
            inner = _hexagon(lat, h, EMPTY, EMPTY_EDGE, 1.0) + _label(lat, h, label, size)
        body.append(_cell(label, inner))
    body.append(_row_letters(area, lat, size))
    return _svg(lay.width, lay.panel_y - spezial_board.PANEL_TOP // 2, body)


def board_svg(view: GenialView | SpezialView, highlight: frozenset[Hex] = frozenset()) -> str:
    """The public board of ``view`` as an SVG document (no rack, no names).

    Raises:
        TypeError: for anything but a Genial or Genial Spezial view.
    """
    if isinstance(view, GenialView):
        return _genial_svg(view, highlight)
    if isinstance(view, SpezialView):
        return _spezial_svg(view, highlight)
    raise TypeError(f"expected a GenialView or a SpezialView, got {type(view).__name__}")
