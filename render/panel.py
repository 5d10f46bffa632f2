"""Score panels: one row per side (a player, or a team), shared by board, rack and result.

A row shows the side's names (an arrow at the player to move), then one block per colour:
its symbol, the points, and a bar along the track; the lowest colours (the ones that
decide the game) are framed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.tiles import Colour
from render.canvas import Canvas
from render.fonts import fit, font
from render.geometry import Lattice
from render.prebuilt import piece
from render.sprites import SS, Face, cell_sprite, joint_sprite
from render.symbols import draw_symbol
from render.theme import (
    INK,
    LOWEST,
    PANEL,
    PAPER,
    RGB,
    SOFT_INK,
    SYMBOL,
    TRACK,
    TURN,
    WHITE,
    inked,
    quantize,
)

ROW_HEIGHT = 88
ROW_GAP = 10
NAME_WIDTH = 250
NARROW = 800  # a row narrower than this gets the narrow measures below
NARROW_NAME_WIDTH = 196
NARROW_ICON_RADIUS = 16
NARROW_NUMBER_SIZE = 28
ICON_RADIUS = 19
NAME_SIZE = 26
TEAM_NAME_SIZE = 22
NUMBER_SIZE = 32
CLOCK_SIZE = 20


@dataclass(frozen=True, slots=True)
class SideRow:
    """One side's row: its names, who of them is to move, its scores."""

    names: tuple[str, ...]
    scores: dict[Colour, int]
    mover: int | None = None  # index into names of the player to move
    place: int | None = None  # the side's place, on the result image
    swatch: Face | None = None  # Spezial: how the seat's tiles look
    tiles_left: int | None = None  # Spezial: tiles the seat still has to place
    #: Time left on each name's clock (issue 26), as the table words it; empty: no clock.
    clocks: tuple[str | None, ...] = ()


@piece
def icon(colour: Colour, radius: int, backdrop: RGB, game: str) -> Image.Image:
    """A colour's symbol, ``2*radius+1`` px square on ``backdrop``, in the palette."""
    side = 2 * radius + 1
    cover = Image.new("L", (side * SS, side * SS), 0)
    c = (side * SS - 1) / 2
    draw_symbol(ImageDraw.Draw(cover), colour, c, c, radius * SS, 255, 0)
    return quantize(inked(cover.reduce(SS), SYMBOL[colour], backdrop), game)


@piece
def domino_icon(face: Face, w: int, backdrop: RGB, game: str) -> Image.Image:
    """A small plain tile (two joined cells, side by side) in ``face``, on ``backdrop``."""
    lat = Lattice.for_width(w)
    hw, hh = math.ceil(lat.rx) + 1, math.ceil(lat.ry) + 1
    img = Image.new("RGB", (lat.w + 2 * hw + 1, 2 * hh + 1), backdrop)
    cell_sprite(lat, face, backdrop=backdrop).paste(img, hw, hh)
    cell_sprite(lat, face, backdrop=backdrop).paste(img, hw + lat.w, hh)
    joint_sprite(lat, 0, face, face, backdrop=backdrop).paste(img, hw, hh)
    return quantize(img, game)


@lru_cache(maxsize=1024)
def fitted(name: str, size: int, width: int) -> str:
    return fit(name, font(size), width)


def lowest_colours(scores: dict[Colour, int]) -> set[Colour]:
    low = min(scores.values())
    return {c for c, v in scores.items() if v == low}


def row_tops(y: int, n: int, columns: int = 1) -> list[int]:
    """The top of each line of ``n`` rows drawn from ``y`` (see :func:`draw_rows`)."""
    return [y + k * (ROW_HEIGHT + ROW_GAP) for k in range(-(-n // columns))]


def rows_height(n: int, columns: int = 1) -> int:
    lines = -(-n // columns)
    return lines * ROW_HEIGHT + (lines - 1) * ROW_GAP


def draw_rows(
    canvas: Canvas,
    x: int,
    y: int,
    width: int,
    rows: Sequence[SideRow],
    colours: Sequence[Colour],
    cap: int,
    marks: Sequence[int] = (),
    columns: int = 1,
) -> int:
    """Draw ``rows`` from ``(x, y)``, side by side in ``columns``, left to right then down;
    bars run to ``cap`` with ticks at ``marks``.

    Returns:
        The y just below the last row.
    """
    row_width = (width - (columns - 1) * ROW_GAP) // columns
    for k, row in enumerate(rows):
        rx = x + (k % columns) * (row_width + ROW_GAP)
        ry = y + (k // columns) * (ROW_HEIGHT + ROW_GAP)
        scores = tuple(row.scores.items())
        piece = _row_image(
            canvas.game,
            row_width,
            row.names,
            scores,
            row.mover,
            row.place,
            row.swatch,
            row.tiles_left,
            tuple(colours),
            cap,
            tuple(marks),
            row.clocks,
        )
        canvas.paste(piece, (rx, ry))
    return y + rows_height(len(rows), columns)


@lru_cache(maxsize=256)  # ~100 KB each
def _row_image(
    game: str,
    width: int,
    names: tuple[str, ...],
    scores: tuple[tuple[Colour, int], ...],
    mover: int | None,
    place: int | None,
    swatch: Face | None,
    tiles_left: int | None,
    colours: tuple[Colour, ...],
    cap: int,
    marks: tuple[int, ...],
    clocks: tuple[str | None, ...] = (),
) -> Image.Image:
    """One side's row on paper, in the palette. Cached: from one turn to the next most rows
    stay as they were (only the last and the next player's change)."""
    canvas = Canvas.new(game, (width, ROW_HEIGHT), PAPER)
    row = SideRow(names, dict(scores), mover, place, swatch, tiles_left, clocks)
    _draw_row(canvas, 0, 0, width, row, colours, cap, marks)
    return canvas.img


def _draw_row(
    canvas: Canvas,
    x: int,
    y: int,
    width: int,
    row: SideRow,
    colours: Sequence[Colour],
    cap: int,
    marks: Sequence[int],
) -> None:
    cy = y + ROW_HEIGHT // 2
    name_width = NARROW_NAME_WIDTH if width < NARROW else NAME_WIDTH
    canvas.rect((x, y, x + width - 1, y + ROW_HEIGHT - 1), PANEL, 12)
    if row.mover is not None:
        canvas.rect((x, y, x + 9, y + ROW_HEIGHT - 1), TURN, 4)
    name_x = x + 40
    if row.place is not None:
        canvas.text((x + 22, cy), f"{row.place}.", 30, INK, PANEL)
        name_x = x + 70
    room = x + name_width - name_x
    clocks = row.clocks or (None,) * len(row.names)
    if row.swatch is not None:
        # Spezial: the name, and below it the seat's tile (its colour), tiles left and the
        # time left at the end of that line.
        top = cy - 17
        _name(canvas, name_x, top, row.names[0], NAME_SIZE, room, row.mover == 0)
        tile = domino_icon(row.swatch, 22, PANEL, canvas.game)
        canvas.paste(tile, (name_x, cy + 20 - tile.height // 2))
        after = name_x + tile.width + 6
        if row.tiles_left is not None:
            count = f"×{row.tiles_left}"
            canvas.text((after, cy + 20), count, 22, SOFT_INK, PANEL)
            if clocks[0] is not None:  # measured only then: the font is loaded for it
                after += math.ceil(font(22).getlength(count)) + 10
        if clocks[0] is not None:
            size, fitted_clock = clock_fit(clocks[0], x + name_width - after)
            canvas.text((after, cy + 20), fitted_clock, size, SOFT_INK, PANEL)
    elif len(row.names) == 1 and clocks[0] is not None:
        # A player with a clock: the name, and the time left below it.
        _name(canvas, name_x, cy - 14, row.names[0], NAME_SIZE, room, row.mover == 0)
        canvas.text((name_x, cy + 20), clocks[0], CLOCK_SIZE, SOFT_INK, PANEL)
    else:
        size = NAME_SIZE if len(row.names) == 1 else TEAM_NAME_SIZE
        step = 0 if len(row.names) == 1 else 32
        for k, name in enumerate(row.names):
            ly = round(cy + (k - (len(row.names) - 1) / 2) * step)
            clock = clocks[k] if k < len(clocks) else None
            if clock is None:
                _name(canvas, name_x, ly, name, size, room, row.mover == k)
                continue
            # A team's names share the row: each one's time left at the end of its line.
            right = x + name_width - 6
            used = math.ceil(font(CLOCK_SIZE).getlength(clock))
            _name(canvas, name_x, ly, name, size, room - used - 10, row.mover == k)
            canvas.text((right, ly), clock, CLOCK_SIZE, SOFT_INK, PANEL, "rm")
    low = lowest_colours(row.scores)
    bx0 = x + name_width + 8
    # One size for the row's points, fitted to its longest (blocks alike side by side).
    longest = max((str(row.scores[c]) for c in colours), key=len)
    bw, r, size = block_measures(width, len(colours), len(longest))
    for k, colour in enumerate(colours):
        bx = bx0 + k * bw
        value = row.scores[colour]
        backdrop = PANEL
        if colour in low:
            backdrop = WHITE
            canvas.paste(_frame(canvas.game, bw), (bx + 2, y + 5))
        icy = cy - 10
        canvas.paste(icon(colour, r, backdrop, canvas.game), (bx + 8, icy - r))
        canvas.text((bx + 2 * r + 14, icy), str(value), size, INK, backdrop)
        bar = _bar(canvas.game, colour, min(value, cap) if value > 0 else -1, cap, bw, tuple(marks),
                   backdrop)  # fmt: skip
        canvas.paste(bar, (bx + 12 - BAR_MARGIN, cy + 20 - BAR_MARGIN))


def block_measures(width: int, blocks: int, digits: int) -> tuple[int, int, int]:
    """A row ``width`` px wide with ``blocks`` colours whose longest points have ``digits``
    digits: each block's width, its symbol's radius and the points' size."""
    bw, radius, number, text = block_fit_args(width, blocks, digits)
    return (bw, *block_fit(bw, radius, number, text))


def block_fit_args(width: int, blocks: int, digits: int) -> tuple[int, int, int, str]:
    """What :func:`block_measures` asks :func:`block_fit` for such a row."""
    narrow = width < NARROW
    name_width = NARROW_NAME_WIDTH if narrow else NAME_WIDTH
    radius = NARROW_ICON_RADIUS if narrow else ICON_RADIUS
    number = NARROW_NUMBER_SIZE if narrow else NUMBER_SIZE
    return (width - name_width - 16) // blocks, radius, number, "8" * digits


#: Room kept right of a block's points: the lowest colour's frame (4 px wide) ends 4 px
#: before the block does, and 2 px of air inside it.
BLOCK_PAD = 10


def number_box(bw: int, radius: int, size: int, text: str) -> tuple[int, int]:
    """Where a block's points fall across it (from its left edge): start and end x."""
    start = 2 * radius + 14
    return start, start + math.ceil(font(size).getlength(text))


@piece  # in the file of pieces: a first board then loads no font to measure "88"
def block_fit(bw: int, radius: int, size: int, text: str) -> tuple[int, int]:
    """The symbol's radius and the points' size that keep ``text`` inside a block ``bw``
    px wide (and inside its frame): as drawn if it fits, else the number a little smaller,
    then the symbol too (a narrow block with two-digit points: Genial Spezial's two
    columns of rows)."""
    for r, s in (
        (radius, size),
        (radius, size - 2),
        (radius - 3, size - 2),
        (radius - 5, size - 4),
        (radius - 6, size - 6),
    ):
        if number_box(bw, r, s, text)[1] <= bw - BLOCK_PAD:
            return r, s
    return radius - 6, size - 6


# Frames and bars are drawn once (rounded rectangles cost more to draw than to paste): a
# frame with the panel's colour in its box's corners, a bar on a margin of its backdrop,
# which is what lies under them where they are pasted.
BAR_MARGIN = 3  # the ticks reach 3 px above and below the track


@lru_cache(maxsize=64)
def _frame(game: str, bw: int) -> Image.Image:
    """The frame round one of a side's lowest colours, for a block ``bw`` px wide."""
    canvas = Canvas.new(game, (bw - 5, ROW_HEIGHT - 10), PANEL)
    canvas.rect((0, 0, bw - 6, ROW_HEIGHT - 11), WHITE, 10, LOWEST, 4)
    return canvas.img


@lru_cache(maxsize=64)
def _track(game: str, bw: int, backdrop: RGB) -> Image.Image:
    """A bar's empty track on a margin of its backdrop (see :func:`_bar`)."""
    m = BAR_MARGIN
    length = bw - 26  # the track runs from 12 px into the block to 14 px before its end
    canvas = Canvas.new(game, (length + 1 + 2 * m, 11 + 2 * m), backdrop)
    canvas.rect((m, m, m + length, m + 10), TRACK, 5)
    return canvas.img


@lru_cache(maxsize=4096)
def _bar(
    game: str, colour: Colour, value: int, cap: int, bw: int, marks: tuple[int, ...], backdrop: RGB
) -> Image.Image:
    """A colour's bar along its track (``value`` -1: no bar), ticks at ``marks``: drawn on
    a copy of the empty track, the same pixels as drawing the track first (a first board
    draws some twenty bars, and the track was half of each one's drawing)."""
    m = BAR_MARGIN
    canvas = Canvas(_track(game, bw, backdrop).copy(), game)
    x0, x1, by = m, m + bw - 26, m
    if value >= 0:
        filled = x0 + round((x1 - x0) * value / cap)
        canvas.rect((x0, by, max(filled, x0 + 10), by + 10), SYMBOL[colour], 5)
    for mark in marks:
        if mark < cap:
            mx = x0 + round((x1 - x0) * mark / cap)
            canvas.line((mx, by - 3, mx, by + 13), INK, 2)
    return canvas.img


def _name(canvas: Canvas, x: int, y: int, name: str, size: int, room: int, to_move: bool) -> None:
    if to_move:
        canvas.shape("arrow", (x - 30, y - 11), 22, TURN, PANEL)
    size, text = name_fit(name, size, room)
    canvas.text((x, y), text, size, INK, PANEL)


@lru_cache(maxsize=1024)
def clock_fit(clock: str, room: int) -> tuple[int, str]:
    """A time left in ``room`` px: as the table words it if it fits, else a little smaller,
    else its largest unit alone (``23h 59m`` as ``23h``: rounded down, so never more time
    than there is; the turn's message has it whole)."""
    for s in (CLOCK_SIZE, CLOCK_SIZE - 2):
        if font(s).getlength(clock) <= room:
            return s, clock
    return CLOCK_SIZE - 2, clock.split(" ")[0]


@lru_cache(maxsize=1024)
def name_fit(name: str, size: int, room: int) -> tuple[int, str]:
    """A name in ``room`` px: at ``size`` if it fits, else a little smaller, else cut
    short with an ellipsis at the smallest size."""
    for s in (size, size - 3, size - 6):
        if font(s).getlength(name) <= room:
            return s, name
    smallest = size - 6
    return smallest, fitted(name, smallest, room)
