"""A small chart of a player's rating over their games, for ``/stats`` (issue 13).

The shown rating after each game is a point; the points are joined by a line, oldest at
the left. Where a point goes:

    x = LEFT + k * (WIDTH - LEFT - RIGHT) / (n - 1)         (k-th of n points; one: centred)
    y = TOP + (hi - v) * (HEIGHT - TOP - BOTTOM) / (hi - lo)

with ``lo``/``hi`` the lowest and highest rating widened by a tenth of their spread (at
least ``MIN_PAD``), so neither end touches the frame. The lowest and highest rating are
written at the left on grid lines; the number of games under the right end. The title (a
name, say) is the caller's and is cut short to the width; the chart itself has no words,
so it needs no language.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.tiles import Colour
from render.encode import png_bytes
from render.fonts import fit, font
from render.theme import INK, PANEL, PAPER, SOFT_INK, SYMBOL, TRACK, quantize

WIDTH = 640
HEIGHT = 320
LEFT = 84  # room for the scale's numbers
RIGHT = 24
TOP = 52  # room for the title
BOTTOM = 40  # room for the game count
MIN_PAD = 10
LINE = SYMBOL[Colour.BLUE]
LINE_WIDTH = 4
DOT_RADIUS = 5
MAX_DOTS = 60  # more points than this: the line alone (dots would merge)
GAME = "genial"  # the palette the chart is drawn in


def scale(values: Sequence[int]) -> tuple[float, float]:
    """The ratings at the bottom and the top of the plot.

    Raises:
        ValueError: for no values.
    """
    if not values:
        raise ValueError("a chart needs at least one rating")
    lo, hi = min(values), max(values)
    pad = max(MIN_PAD, (hi - lo) / 10)
    return lo - pad, hi + pad


def positions(values: Sequence[int]) -> list[tuple[float, float]]:
    """Where each rating goes on the chart, in pixels (the formula in the module's doc).

    Raises:
        ValueError: for no values.
    """
    lo, hi = scale(values)
    n = len(values)
    width = WIDTH - LEFT - RIGHT
    height = HEIGHT - TOP - BOTTOM
    xs = [LEFT + width / 2] if n == 1 else [LEFT + k * width / (n - 1) for k in range(n)]
    return [(x, TOP + (hi - v) * height / (hi - lo)) for x, v in zip(xs, values, strict=True)]


def rating_chart(values: Sequence[int], title: str = "") -> Image.Image:
    """The chart of ``values`` (ratings, oldest first) in the palette.

    Raises:
        ValueError: for no values.
    """
    points = positions(values)
    lo, hi = scale(values)
    img = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(img)
    box = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    draw.rectangle(box, fill=PANEL)
    small = font(18, bold=False)
    height = HEIGHT - TOP - BOTTOM
    for v in sorted({min(values), max(values)}):  # the best and worst, on grid lines
        y = TOP + (hi - v) * height / (hi - lo)
        draw.line((LEFT, y, WIDTH - RIGHT, y), fill=TRACK, width=2)
        draw.text((LEFT - 8, y), str(v), font=small, fill=SOFT_INK, anchor="rm")
    draw.text((WIDTH - RIGHT, HEIGHT - BOTTOM + 8), str(len(values)), font=small,
              fill=SOFT_INK, anchor="ra")  # fmt: skip
    if title:
        face = font(24)
        draw.text((LEFT, TOP // 2), fit(title, face, WIDTH - LEFT - RIGHT), font=face,
                  fill=INK, anchor="lm")  # fmt: skip
    if len(points) > 1:
        draw.line(points, fill=LINE, width=LINE_WIDTH, joint="curve")
    if len(points) <= MAX_DOTS:
        r = DOT_RADIUS
        for px, py in points:
            draw.ellipse((px - r, py - r, px + r, py + r), fill=LINE)
    return quantize(img, GAME)


def rating_chart_png(values: Sequence[int], title: str = "") -> bytes:
    """The chart as PNG bytes.

    Raises:
        ValueError: for no values.
    """
    return png_bytes(rating_chart(values, title))
