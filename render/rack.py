"""Rack images: what one seat holds, sent to that player alone.

Genial: the tiles in rack order, each under its slot number 1–6 and over its colour
letters, drawn the way ``/play 1 F7 F8`` lays it (the left colour on the first cell), and
the seat's own scores. Genial Spezial: the tiles the seat has left, and its scores.
Nothing here reads another seat's rack: only ``view.rack`` and the seat's own side.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.genial import GenialView
from engine.spezial import SCORE_COLOURS, SpezialView
from engine.tiles import COLOURS
from render import genial_board, spezial_board
from render.fonts import fit, font
from render.geometry import Lattice
from render.panel import ROW_HEIGHT, SideRow, domino_icon, draw_rows
from render.sprites import cell_sprite, joint_sprite
from render.symbols import disc
from render.theme import INK, PAPER, SOFT_INK, SYMBOL, WHITE, quantize

WIDTH = 1120
MARGIN = 16
RACK_LATTICE = Lattice.for_width(80)
SLOT_GAP = 22  # between two tiles on the rack
HEADER = 56


def _header(draw: ImageDraw.ImageDraw, text: str) -> None:
    draw.text((MARGIN + 8, HEADER // 2 + 4), fit(text, font(30), WIDTH - 2 * MARGIN), font=font(30),
              fill=INK, anchor="lm")  # fmt: skip


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
    tiles_top = HEADER + 56  # room for the slot numbers
    tiles_bottom = tiles_top + 2 * hh
    letters_y = tiles_bottom + 24
    rows_y = letters_y + 34
    height = rows_y + ROW_HEIGHT + MARGIN
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    _header(draw, names[seat])
    slot = 2 * lat.w + SLOT_GAP
    n = len(view.rack)
    left = (WIDTH - n * slot + SLOT_GAP) // 2 + lat.w // 2
    face = genial_board.PLAIN
    for k, tile in enumerate(view.rack):
        ax = left + k * slot
        ay = tiles_top + hh
        bx = ax + lat.w
        # The first colour on the left: `/play <slot> A B` puts it on cell A.
        cell_sprite(lat, face, tile.first, SYMBOL[tile.first]).paste(img, ax, ay)
        cell_sprite(lat, face, tile.second, SYMBOL[tile.second]).paste(img, bx, ay)
        joint_sprite(lat, 0, face, face).paste(img, ax, ay)
        mid = (ax + bx) // 2
        disc(draw, mid, HEADER + 26, 22, INK)
        draw.text((mid, HEADER + 26), str(k + 1), font=font(28), fill=WHITE, anchor="mm")
        draw.text((mid, letters_y), tile.name, font=font(24), fill=SOFT_INK, anchor="mm")
    side = view.side_of(seat)
    if view.mode == "team":
        row = SideRow((names[side], names[side + 2]), view.scores[side])
    else:
        row = SideRow((names[seat],), view.scores[side])
    marks = (18,) if view.cap > 18 else ()
    draw_rows(img, MARGIN, rows_y, WIDTH - 2 * MARGIN, [row], COLOURS, view.cap, marks)
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
    tile = domino_icon(spezial_board.seat_face(seat, spezial_board.SWATCH), 40, PAPER)
    left_n = view.tiles_left[seat]
    lines = max(1, -(-left_n // per_row))
    step_x, step_y = tile.width + 12, tile.height + 10
    tiles_top = HEADER + 12
    rows_y = tiles_top + lines * step_y + 12
    height = rows_y + ROW_HEIGHT + MARGIN
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    _header(draw, f"{names[seat]}  ×{left_n}")
    for k in range(left_n):
        img.paste(tile, (MARGIN + 8 + (k % per_row) * step_x, tiles_top + (k // per_row) * step_y))
    row = spezial_board.side_rows(view, names)[seat]
    row = SideRow(row.names, row.scores, swatch=row.swatch, tiles_left=row.tiles_left)
    top = spezial_board.track_length(view)
    draw_rows(img, MARGIN, rows_y, WIDTH - 2 * MARGIN, [row], SCORE_COLOURS, top)
    return img


def rack_image(view: GenialView | SpezialView, names: Sequence[str]) -> Image.Image:
    """The rack image of the view's seat, in the game's palette."""
    if isinstance(view, GenialView):
        return quantize(genial_rack(view, names), genial_board.GAME)
    return quantize(spezial_rack(view, names), spezial_board.GAME)
