"""The six Genial symbols as drawn shapes (RULES.md 2.1), never font glyphs, so that each
reads by its outline alone: a 12-pointed star, a circle, a 6-pointed star, a hexagon, a
24-pointed sun and a ring. Each is solid at its centre (the ring has a dot there), which is
what a test probes.
"""

from __future__ import annotations

import math

from PIL import ImageDraw

from engine.tiles import Colour
from render.geometry import Point
from render.theme import RGB

#: A colour to draw with: RGB, or a grey level on a coverage (``L``) image.
Ink = RGB | int


def star(cx: float, cy: float, points: int, outer: float, inner: float) -> list[Point]:
    """A star with ``points`` tips, the first pointing straight up."""
    out = []
    for k in range(2 * points):
        a = math.pi * k / points - math.pi / 2
        rad = outer if k % 2 == 0 else inner
        out.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    return out


def regular(cx: float, cy: float, sides: int, radius: float, turn: float = 0.0) -> list[Point]:
    return [
        (
            cx + radius * math.cos(2 * math.pi * k / sides + turn),
            cy + radius * math.sin(2 * math.pi * k / sides + turn),
        )
        for k in range(sides)
    ]


def disc(draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float, fill: Ink) -> None:
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=fill)


def draw_symbol(
    draw: ImageDraw.ImageDraw,
    colour: Colour,
    cx: float,
    cy: float,
    radius: float,
    fill: Ink,
    backdrop: Ink,
) -> None:
    """Draw ``colour``'s symbol in ``fill`` within ``radius`` of ``(cx, cy)``; ``backdrop``
    is the colour behind it (the ring's hole)."""
    if colour is Colour.RED:
        draw.polygon(star(cx, cy, 12, radius, radius * 0.56), fill=fill)
    elif colour is Colour.GREEN:
        disc(draw, cx, cy, radius * 0.86, fill)
    elif colour is Colour.BLUE:
        draw.polygon(star(cx, cy, 6, radius, radius / math.sqrt(3)), fill=fill)
    elif colour is Colour.ORANGE:
        draw.polygon(regular(cx, cy, 6, radius * 0.92), fill=fill)  # flat-topped
    elif colour is Colour.YELLOW:
        draw.polygon(star(cx, cy, 24, radius, radius * 0.74), fill=fill)
        disc(draw, cx, cy, radius * 0.58, backdrop)
        disc(draw, cx, cy, radius * 0.5, fill)
    else:  # purple ring, with a dot so that its centre shows its colour
        disc(draw, cx, cy, radius * 0.9, fill)
        disc(draw, cx, cy, radius * 0.58, backdrop)
        disc(draw, cx, cy, radius * 0.26, fill)
