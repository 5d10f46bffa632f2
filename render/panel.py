"""Score panels: one row per side (a player, or a team), shared by board, rack and result.

A row shows the side's names (an arrow at the player to move), then one block per colour:
its symbol, the points, and a bar along the track; the lowest colours (the ones that
decide the game) are framed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from engine.tiles import Colour
from render.fonts import fit, font
from render.geometry import Lattice
from render.sprites import SS, Face, cell_sprite, joint_sprite
from render.symbols import draw_symbol
from render.theme import INK, LOWEST, PANEL, RGB, SOFT_INK, SYMBOL, TRACK, TURN, WHITE

ROW_HEIGHT = 92
ROW_GAP = 10
NAME_WIDTH = 250
ICON_RADIUS = 19


@dataclass(frozen=True, slots=True)
class SideRow:
    """One side's row: its names, who of them is to move, its scores."""

    names: tuple[str, ...]
    scores: dict[Colour, int]
    mover: int | None = None  # index into names of the player to move
    place: int | None = None  # the side's place, on the result image
    swatch: Face | None = None  # Spezial: how the seat's tiles look
    tiles_left: int | None = None  # Spezial: tiles the seat still has to place


@cache
def icon(colour: Colour, radius: int, backdrop: RGB = PANEL) -> Image.Image:
    """A colour's symbol, ``2*radius+1`` px square on ``backdrop``."""
    side = 2 * radius + 1
    big = Image.new("RGB", (side * SS, side * SS), backdrop)
    c = (side * SS - 1) / 2
    draw_symbol(ImageDraw.Draw(big), colour, c, c, radius * SS, SYMBOL[colour], backdrop)
    return big.reduce(SS)


@cache
def domino_icon(face: Face, w: int, backdrop: RGB) -> Image.Image:
    """A small plain tile (two joined cells, side by side) in ``face``, on ``backdrop``."""
    lat = Lattice.for_width(w)
    hw, hh = math.ceil(lat.rx) + 1, math.ceil(lat.ry) + 1
    img = Image.new("RGB", (lat.w + 2 * hw + 1, 2 * hh + 1), backdrop)
    cell_sprite(lat, face, backdrop=backdrop).paste(img, hw, hh)
    cell_sprite(lat, face, backdrop=backdrop).paste(img, hw + lat.w, hh)
    joint_sprite(lat, 0, face, face, backdrop=backdrop).paste(img, hw, hh)
    return img


def paste_icon(img: Image.Image, colour: Colour, cx: int, cy: int, radius: int) -> None:
    img.paste(icon(colour, radius), (cx - radius, cy - radius))


def arrow(draw: ImageDraw.ImageDraw, x: float, cy: float, size: float, fill: RGB) -> None:
    """A solid triangle pointing right, its tip at ``(x + size, cy)``."""
    draw.polygon([(x, cy - size * 0.6), (x + size, cy), (x, cy + size * 0.6)], fill=fill)


def lowest_colours(scores: dict[Colour, int]) -> set[Colour]:
    low = min(scores.values())
    return {c for c, v in scores.items() if v == low}


def rows_height(n: int) -> int:
    return n * ROW_HEIGHT + (n - 1) * ROW_GAP


def draw_rows(
    img: Image.Image,
    x: int,
    y: int,
    width: int,
    rows: Sequence[SideRow],
    colours: Sequence[Colour],
    cap: int,
    marks: Sequence[int] = (),
) -> int:
    """Draw ``rows`` from ``(x, y)``; bars run to ``cap`` with ticks at ``marks``.

    Returns:
        The y just below the last row.
    """
    draw = ImageDraw.Draw(img)
    for row in rows:
        _draw_row(img, draw, x, y, width, row, colours, cap, marks)
        y += ROW_HEIGHT + ROW_GAP
    return y - ROW_GAP


def _draw_row(
    img: Image.Image,
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    width: int,
    row: SideRow,
    colours: Sequence[Colour],
    cap: int,
    marks: Sequence[int],
) -> None:
    cy = y + ROW_HEIGHT // 2
    draw.rounded_rectangle((x, y, x + width - 1, y + ROW_HEIGHT - 1), 12, fill=PANEL)
    if row.mover is not None:
        draw.rounded_rectangle((x, y, x + 9, y + ROW_HEIGHT - 1), 4, fill=TURN)
    name_x = x + 40
    if row.place is not None:
        draw.text((x + 22, cy), f"{row.place}.", font=font(30), fill=INK, anchor="lm")
        name_x = x + 70
    name_room = x + NAME_WIDTH - name_x
    if row.swatch is not None:
        # Spezial: the name, and below it the seat's tile (its colour) and tiles left.
        top = cy - 17
        if row.mover == 0:
            arrow(draw, name_x - 26, top, 18, TURN)
        draw.text((name_x, top), fit(row.names[0], font(26), name_room), font=font(26),
                  fill=INK, anchor="lm")  # fmt: skip
        tile = domino_icon(row.swatch, 22, PANEL)
        img.paste(tile, (name_x, cy + 20 - tile.height // 2))
        if row.tiles_left is not None:
            draw.text((name_x + tile.width + 6, cy + 20), f"×{row.tiles_left}", font=font(22),
                      fill=SOFT_INK, anchor="lm")  # fmt: skip
    else:
        size = 26 if len(row.names) == 1 else 22
        step = 0 if len(row.names) == 1 else 32
        for k, name in enumerate(row.names):
            ly = cy + (k - (len(row.names) - 1) / 2) * step
            if row.mover == k:
                arrow(draw, name_x - 26, ly, 18, TURN)
            draw.text((name_x, ly), fit(name, font(size), name_room), font=font(size),
                      fill=INK, anchor="lm")  # fmt: skip
    low = lowest_colours(row.scores)
    bx0 = x + NAME_WIDTH + 8
    bw = (width - NAME_WIDTH - 16) // len(colours)
    for k, colour in enumerate(colours):
        bx = bx0 + k * bw
        value = row.scores[colour]
        if colour in low:
            draw.rounded_rectangle((bx + 2, y + 5, bx + bw - 4, y + ROW_HEIGHT - 6), 10,
                                   fill=WHITE, outline=LOWEST, width=4)  # fmt: skip
        icy = cy - 10
        backdrop = WHITE if colour in low else PANEL
        img.paste(icon(colour, ICON_RADIUS, backdrop), (bx + 10, icy - ICON_RADIUS))
        draw.text((bx + 2 * ICON_RADIUS + 18, icy), str(value), font=font(32), fill=INK,
                  anchor="lm")  # fmt: skip
        x0, x1 = bx + 12, bx + bw - 14
        by = cy + 20
        draw.rounded_rectangle((x0, by, x1, by + 10), 5, fill=TRACK)
        filled = x0 + round((x1 - x0) * min(value, cap) / cap)
        if value > 0:
            draw.rounded_rectangle((x0, by, max(filled, x0 + 10), by + 10), 5,
                                   fill=SYMBOL[colour])  # fmt: skip
        for m in marks:
            if m < cap:
                mx = x0 + round((x1 - x0) * m / cap)
                draw.line((mx, by - 3, mx, by + 13), fill=INK, width=2)
