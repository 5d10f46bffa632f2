"""Rack images: what one seat holds, sent to that player alone.

Genial: the tiles in rack order, each under its slot number 1–6 and over its colour
letters, drawn the way ``/play 1 F7 F8`` lays it (the left colour on the first cell), and
the seat's own scores. Genial Spezial: the tiles the seat has left, and its scores.
Nothing here reads another seat's rack: only ``view.rack`` and the seat's own side.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from PIL import Image, ImageDraw

from engine.genial import GenialView
from engine.spezial import SCORE_COLOURS, SpezialView
from engine.tiles import COLOURS
from render import genial_board, spezial_board
from render.canvas import Canvas
from render.fonts import font
from render.geometry import Lattice
from render.panel import ROW_HEIGHT, SideRow, domino_icon, draw_rows, fitted
from render.sprites import SS, cell_sprite, joint_sprite
from render.symbols import disc
from render.theme import INK, PAPER, SOFT_INK, SYMBOL, WHITE, quantize

GENIAL = genial_board.GAME
SPEZIAL = spezial_board.GAME

WIDTH = 1120
MARGIN = 16
RACK_LATTICE = Lattice.for_width(80)
SLOT_GAP = 22  # between two tiles on the rack
HEADER = 56
TILES_TOP = HEADER + 56  # room for the slot numbers


def slot_cells(n: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Centre pixels of the left and right cell of each of ``n`` tiles on a Genial rack,
    slot 1 first (left to right)."""
    lat = RACK_LATTICE
    slot = 2 * lat.w + SLOT_GAP
    left = (WIDTH - n * slot + SLOT_GAP) // 2 + lat.w // 2
    y = TILES_TOP + round(lat.ry)
    return [((left + k * slot, y), (left + k * slot + lat.w, y)) for k in range(n)]


def _header(canvas: Canvas, text: str) -> None:
    canvas.text((MARGIN + 8, HEADER // 2 + 4), fitted(text, 30, WIDTH - 2 * MARGIN), 30, INK,
                PAPER)  # fmt: skip


def genial_rack(view: GenialView, names: Sequence[str]) -> Image.Image:
    """The rack of ``view.seat`` (a seat's view).

    Raises:
        ValueError: for a spectator's view, which has no rack.
    """
    if view.rack is None or view.seat is None:
        raise ValueError("a rack image needs a seat's view; this view has no rack")
    seat = view.seat
    lat = RACK_LATTICE
    hh = round(lat.ry)
    tiles_bottom = TILES_TOP + 2 * hh
    letters_y = tiles_bottom + 24
    # An empty rack (after the last tile) takes no room.
    rows_y = letters_y + 34 if view.rack else HEADER + 8
    height = rows_y + ROW_HEIGHT + MARGIN
    canvas = Canvas.new(GENIAL, (WIDTH, height))
    img = canvas.img
    _header(canvas, names[seat])
    face = genial_board.PLAIN
    for k, (tile, ((ax, ay), (bx, _))) in enumerate(
        zip(view.rack, slot_cells(len(view.rack)), strict=True)
    ):
        # The first colour on the left: `/play <slot> A B` puts it on cell A.
        cell_sprite(lat, face, tile.first, SYMBOL[tile.first], game=GENIAL).paste(img, ax, ay)
        cell_sprite(lat, face, tile.second, SYMBOL[tile.second], game=GENIAL).paste(img, bx, ay)
        joint_sprite(lat, 0, face, face, game=GENIAL).paste(img, ax, ay)
        mid = (ax + bx) // 2
        badge = slot_badge(k + 1)
        canvas.paste(badge, (mid - badge.width // 2, HEADER + 26 - badge.height // 2))
        canvas.text((mid, letters_y), tile.name, 24, SOFT_INK, PAPER, anchor="mm")
    side = view.side_of(seat)
    if view.mode == "team":
        row = SideRow((names[side], names[side + 2]), view.scores[side])
    else:
        row = SideRow((names[seat],), view.scores[side])
    marks = (18,) if view.cap > 18 else ()
    draw_rows(canvas, MARGIN, rows_y, WIDTH - 2 * MARGIN, [row], COLOURS, view.cap, marks)
    return img


def spezial_rack(view: SpezialView, names: Sequence[str]) -> Image.Image:
    """The tiles ``view.seat`` has left, and its scores.

    Raises:
        ValueError: for a spectator's view.
    """
    if view.seat is None:
        raise ValueError("a rack image needs a seat's view; this view is a spectator's")
    seat = view.seat
    per_row = 10
    tile = domino_icon(spezial_board.seat_face(seat, spezial_board.SWATCH), 40, PAPER, SPEZIAL)
    left_n = view.tiles_left[seat]
    lines = -(-left_n // per_row)
    step_x, step_y = tile.width + 12, tile.height + 10
    tiles_top = HEADER + 12
    rows_y = tiles_top + lines * step_y + 12
    height = rows_y + ROW_HEIGHT + MARGIN
    canvas = Canvas.new(SPEZIAL, (WIDTH, height))
    _header(canvas, f"{names[seat]}  ×{left_n}")
    for k in range(left_n):
        x, y = MARGIN + 8 + (k % per_row) * step_x, tiles_top + (k // per_row) * step_y
        canvas.paste(tile, (x, y))
    row = spezial_board.side_rows(view, names)[seat]
    row = SideRow(row.names, row.scores, swatch=row.swatch, tiles_left=row.tiles_left)
    top = spezial_board.track_length(view)
    draw_rows(canvas, MARGIN, rows_y, WIDTH - 2 * MARGIN, [row], SCORE_COLOURS, top)
    return canvas.img


@cache
def slot_badge(slot: int) -> Image.Image:
    """The slot number in a dark disc, as the rack shows it above each tile."""
    side = 45
    big = Image.new("RGB", (side * SS, side * SS), PAPER)
    draw = ImageDraw.Draw(big)
    c = (side * SS - 1) / 2
    disc(draw, c, c, 22 * SS, INK)
    draw.text((c, c), str(slot), font=font(28 * SS), fill=WHITE, anchor="mm")
    return quantize(big.reduce(SS), GENIAL)


def rack_image(view: GenialView | SpezialView, names: Sequence[str]) -> Image.Image:
    """The rack image of the view's seat, in the game's palette."""
    if isinstance(view, GenialView):
        return genial_rack(view, names)
    return spezial_rack(view, names)
