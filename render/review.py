"""Pictures of a game's review (issue 29): every side's chance to win over the moves (issue
47; Genial Spezial: every side's lowest colour), and a board with a played placement and the
expert's best one drawn as two outlines, labelled in a strip under the board.

The chances chart is drawn twice as large as a phone shows it (:data:`CHANCES_SIZE`, shown
at 390 px wide), one line per side in its seat's colour (:data:`~render.theme.SEAT_MARK`,
the colours of a Genial seat's badges, on a dark plot as on the board's tiles; a team's in
its first seat's), the move where the game turned marked by a vertical line.

The lowest-colour chart is drawn like the rating chart (:mod:`render.chart`): one line per
side, the moves along the bottom, the points up the side (0 to the track's end). Where a
point goes:

    x = LEFT + k * (WIDTH - LEFT - RIGHT) / (n - 1)         (after the k-th of n moves)
    y = TOP + (cap - v) * (HEIGHT - TOP - BOTTOM) / cap

The names under the chart and the two outlines' labels are the caller's (in the chat's
language); the drawing itself has no words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.genial import GenialView
from engine.moves import Placement
from engine.tiles import Colour
from render import genial_board
from render.encode import png_bytes
from render.fonts import fit, font
from render.theme import (
    INK,
    PANEL,
    PAPER,
    SEAT_MARK,
    SOFT_INK,
    SYMBOL,
    TILE,
    TRACK,
    quantize,
)

WIDTH = 640
HEIGHT = 360
LEFT = 56
RIGHT = 24
TOP = 52
BOTTOM = 76  # room for the move count and the names
LINE_WIDTH = 4
GAME = "genial"
#: The lines' colours, one per side (the palette's own, so the chart maps onto it exactly).
LINES = (SYMBOL[Colour.RED], SYMBOL[Colour.BLUE], SYMBOL[Colour.GREEN], SYMBOL[Colour.ORANGE])
#: The outline of the placement played, and of the expert's best placement.
PLAYED = INK
BEST = SYMBOL[Colour.BLUE]
OUTLINE_WIDTH = 6


def chart_positions(values: Sequence[int], cap: int) -> list[tuple[float, float]]:
    """Where each of one side's lowest colours goes (the formula in the module's doc).

    Raises:
        ValueError: for no values or a cap below 1.
    """
    if not values or cap < 1:
        raise ValueError("a chart needs values and a track of at least one point")
    n = len(values)
    width = WIDTH - LEFT - RIGHT
    height = HEIGHT - TOP - BOTTOM
    xs = [LEFT + width / 2] if n == 1 else [LEFT + k * width / (n - 1) for k in range(n)]
    return [(x, TOP + (cap - v) * height / cap) for x, v in zip(xs, values, strict=True)]


def lowest_chart_png(
    lines: Sequence[Sequence[int]], names: Sequence[str], cap: int, title: str = ""
) -> bytes:
    """The chart of each side's lowest colour after every move (``lines[side][move]``),
    with each side's name under it in its line's colour.

    Raises:
        ValueError: for no lines, lines of different lengths, a name per line missing, or
            more lines than :data:`LINES`.
    """
    if not lines or len({len(line) for line in lines}) != 1 or len(names) != len(lines):
        raise ValueError("one name and one equally long line per side")
    if len(lines) > len(LINES):
        raise ValueError(f"at most {len(LINES)} sides")
    img = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(img)
    draw.rectangle((LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM), fill=PANEL)
    small = font(18, bold=False)
    height = HEIGHT - TOP - BOTTOM
    for v in (0, cap // 2, cap):
        y = TOP + (cap - v) * height / cap
        draw.line((LEFT, y, WIDTH - RIGHT, y), fill=TRACK, width=2)
        draw.text((LEFT - 8, y), str(v), font=small, fill=SOFT_INK, anchor="rm")
    moves = len(lines[0])
    draw.text((WIDTH - RIGHT, HEIGHT - BOTTOM + 6), str(moves), font=small, fill=SOFT_INK,
              anchor="ra")  # fmt: skip
    if title:
        face = font(24)
        draw.text((LEFT, TOP // 2), fit(title, face, WIDTH - LEFT - RIGHT), font=face,
                  fill=INK, anchor="lm")  # fmt: skip
    for line, colour in zip(lines, LINES, strict=False):
        points = chart_positions(line, cap)
        if len(points) > 1:
            draw.line(points, fill=colour, width=LINE_WIDTH, joint="curve")
        else:
            (px, py) = points[0]
            draw.ellipse((px - 5, py - 5, px + 5, py + 5), fill=colour)
    # The names in a row under the chart, each after a swatch of its line's colour.
    slot = (WIDTH - LEFT - RIGHT) / len(names)
    face = font(18)
    y = HEIGHT - 24
    for k, (name, colour) in enumerate(zip(names, LINES, strict=False)):
        x = LEFT + k * slot
        draw.rectangle((x, y - 6, x + 22, y + 6), fill=colour)
        draw.text((x + 30, y), fit(name, face, slot - 40), font=face, fill=INK, anchor="lm")
    return png_bytes(quantize(img, GAME))


#: The chances chart: its size (twice a 390 px phone's width), margins and lines.
CHANCES_SIZE = (780, 520)
CHANCES_MARGINS = (92, 28, 72, 104)  # left, right, top, bottom
CHANCES_LINE = 6


def chances_positions(values: Sequence[float], moves: int) -> list[tuple[float, float]]:
    """Where each of one side's chances (per cent, the first before any move) goes."""
    width, height = CHANCES_SIZE
    left, right, top, bottom = CHANCES_MARGINS
    w, h = width - left - right, height - top - bottom
    n = max(1, moves)
    return [(left + k * w / n, top + (100 - v) * h / 100) for k, v in enumerate(values)]


def chances_chart_png(
    lines: Sequence[Sequence[float]],
    names: Sequence[str],
    title: str = "",
    team: bool = False,
    turned: int | None = None,
) -> bytes:
    """The chart of each side's chance to win in per cent (``lines[side][k]``: before the
    first move, then after every move), each side's name under it in its line's colour;
    ``turned``: the point (move number + 1) where the game turned, marked.

    Raises:
        ValueError: for no lines, lines of different lengths, a name per line missing, or
            more than four lines.
    """
    if not lines or len({len(line) for line in lines}) != 1 or len(names) != len(lines):
        raise ValueError("one name and one equally long line per side")
    if len(lines) > len(SEAT_MARK):
        raise ValueError(f"at most {len(SEAT_MARK)} sides")
    width, height = CHANCES_SIZE
    left, right, top, bottom = CHANCES_MARGINS
    img = Image.new("RGB", CHANCES_SIZE, PAPER)
    draw = ImageDraw.Draw(img)
    draw.rectangle((left, top, width - right, height - bottom), fill=TILE)
    small = font(26, bold=False)
    moves = len(lines[0]) - 1
    for v in (0, 50, 100):
        y = top + (100 - v) * (height - top - bottom) / 100
        draw.line((left, y, width - right, y), fill=SOFT_INK, width=2)
        draw.text((left - 10, y), f"{v}%", font=small, fill=INK, anchor="rm")
    draw.text((width - right, height - bottom + 8), str(moves), font=small, fill=INK, anchor="ra")
    if turned is not None and 0 < turned <= moves:
        x = chances_positions([0.0] * (turned + 1), moves)[turned][0]
        draw.line((x, top, x, height - bottom), fill=TRACK, width=3)
    if title:
        face = font(32)
        draw.text((left, top // 2), fit(title, face, width - left - right), font=face, fill=INK,
                  anchor="lm")  # fmt: skip
    colours = [SEAT_MARK[0], SEAT_MARK[1]] if team else list(SEAT_MARK)
    for line, colour in zip(lines, colours, strict=False):
        points = chances_positions(line, moves)
        if len(points) > 1:
            draw.line(points, fill=colour, width=CHANCES_LINE, joint="curve")
    # The names in two columns under the chart, each after a swatch of its line's colour
    # (on the plot's dark colour, so a white line's swatch shows on the paper too).
    face = font(28)
    column = (width - left - right) / 2
    for k, (name, colour) in enumerate(zip(names, colours, strict=False)):
        x = left + (k % 2) * column
        y = height - bottom + 52 + (k // 2) * 36 - (18 if len(names) > 2 else 0)
        draw.rectangle((x, y - 12, x + 40, y + 12), fill=TILE)
        draw.rectangle((x + 6, y - 5, x + 34, y + 5), fill=colour)
        draw.text((x + 50, y), fit(name, face, column - 60), font=face, fill=INK, anchor="lm")
    return png_bytes(quantize(img, GAME))


#: The strip above the compared board with the two outlines' labels: its text size, one
#: row per label (the board is some 1,100 px wide: 40 px letters are 14 px on a phone).
LABEL_SIZE = 40
LABEL_ROW = 60


def _outline(
    draw: ImageDraw.ImageDraw,
    view: GenialView,
    move: Placement,
    colour: tuple[int, int, int],
    below: bool,
    dy: int,
) -> None:
    """Two cells' outlines, each with a small dot of the move's colour at its top (the
    played placement) or foot (``below``: the best one), so the cell's name in the middle
    stays readable and two placements sharing a cell both show; ``dy``: the board's offset
    in the image."""
    lat = genial_board.layout(view.mode, view.players).lattice
    for cell, symbol in ((move.cell1, move.first), (move.cell2, move.second)):
        cx, cy = lat.centre(cell)
        cy += dy
        corners = lat.corners(cx, cy, 0.92)
        draw.polygon(corners, outline=colour, width=OUTLINE_WIDTH)
        r = lat.size * 0.22
        my = cy + (0.6 if below else -0.6) * lat.ry
        draw.ellipse((cx - r, my - r, cx + r, my + r), fill=SYMBOL[symbol], outline=colour,
                     width=2)  # fmt: skip


def compared_board_png(
    view: GenialView,
    played: Placement,
    best: Placement,
    labels: tuple[str, str],
    names: Sequence[str] | None = None,
) -> bytes:
    """The board before a move (``view``: a spectator's is enough), with the placement
    ``played`` and the ``best`` one outlined in two colours (and nothing else marked: not
    the placement before), labelled (``labels``: the played one's, then the best one's) in
    a strip above the board, each after a swatch of its outline, so no label covers a cell.

    Raises:
        ValueError: for a wrong number of names.
    """
    from render import seat_names

    who = seat_names(view, names)
    plain = dataclasses.replace(view, last_placements=())
    board = genial_board.draw_board(plain, who).convert("RGB")
    band = 2 * LABEL_ROW + 24
    img = Image.new("RGB", (board.width, board.height + band), PAPER)
    img.paste(board, (0, band))
    draw = ImageDraw.Draw(img)
    face = font(LABEL_SIZE)
    pairs = ((played, PLAYED, labels[0], False), (best, BEST, labels[1], True))
    for row, (move, colour, label, below) in enumerate(pairs):
        _outline(draw, view, move, colour, below, band)
        y = 12 + row * LABEL_ROW + LABEL_ROW // 2
        x = 24
        draw.rectangle((x, y - 20, x + 40, y + 20), outline=colour, width=OUTLINE_WIDTH)
        text = fit(label, face, img.width - x - 80)
        draw.text((x + 60, y), text, font=face, fill=INK, anchor="lm")
    return png_bytes(quantize(img, GAME))
