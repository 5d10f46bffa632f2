"""Pictures of a game's review (issue 29): every side's lowest colour over the moves, and
a board with a played placement and the expert's best one drawn as two labelled outlines.

The lowest-colour chart is drawn like the rating chart (:mod:`render.chart`): one line per
side, the moves along the bottom, the points up the side (0 to the track's end). Where a
point goes:

    x = LEFT + k * (WIDTH - LEFT - RIGHT) / (n - 1)         (after the k-th of n moves)
    y = TOP + (cap - v) * (HEIGHT - TOP - BOTTOM) / cap

The names under the chart and the two outlines' labels are the caller's (in the chat's
language); the drawing itself has no words.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.genial import GenialView
from engine.moves import Placement
from engine.tiles import Colour
from render import genial_board
from render.encode import png_bytes
from render.fonts import fit, font
from render.theme import INK, PANEL, PAPER, SOFT_INK, SYMBOL, TRACK, WHITE, quantize

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


def _outline(
    draw: ImageDraw.ImageDraw, view: GenialView, move: Placement, colour: tuple[int, int, int]
) -> tuple[float, float]:
    """Two cells' outlines with the move's colours as dots inside; returns the top-most
    point of the outline (where the label goes)."""
    lat = genial_board.layout(view.mode, view.players).lattice
    top = (0.0, float("inf"))
    for cell, symbol in ((move.cell1, move.first), (move.cell2, move.second)):
        cx, cy = lat.centre(cell)
        corners = lat.corners(cx, cy, 0.92)
        draw.polygon(corners, outline=colour, width=OUTLINE_WIDTH)
        r = lat.size * 0.34
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=SYMBOL[symbol], outline=WHITE)
        if cy < top[1]:
            top = (float(cx), cy - lat.ry)
    return top


def compared_board_png(
    view: GenialView,
    played: Placement,
    best: Placement,
    labels: tuple[str, str],
    names: Sequence[str] | None = None,
) -> bytes:
    """The board before a move (``view``: a spectator's is enough), with the placement
    ``played`` and the ``best`` one outlined in two colours, each labelled (``labels``:
    the played one's, then the best one's) above its top cell.

    Raises:
        ValueError: for a wrong number of names.
    """
    from render import seat_names

    who = seat_names(view, names)
    img = genial_board.draw_board(view, who).convert("RGB")
    draw = ImageDraw.Draw(img)
    face = font(22)
    for move, colour, label in ((played, PLAYED, labels[0]), (best, BEST, labels[1])):
        x, y = _outline(draw, view, move, colour)
        text = fit(label, face, 260)
        box = draw.textbbox((x, y - 4), text, font=face, anchor="mb")
        draw.rectangle((box[0] - 6, box[1] - 4, box[2] + 6, box[3] + 4), fill=colour)
        draw.text((x, y - 4), text, font=face, fill=WHITE, anchor="mb")
    return png_bytes(quantize(img, GAME))
