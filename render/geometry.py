"""Pixel geometry of the hex grid: where a cell's centre and corners fall in an image.

Cells are pointy-top hexagons (RULES.md section 1). Centres sit on an integer lattice
(``w`` px between neighbours in a row, ``v`` px between rows, odd rows shifted by ``w/2``)
so that every cell looks exactly alike: a sprite drawn once can be pasted anywhere.
The hexagon is stretched by a fraction of a pixel to fit that lattice, which nobody sees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.hexgrid import DIRECTIONS, Hex, direction_between

SQRT3 = math.sqrt(3.0)
Point = tuple[float, float]

#: The directions a joint between two cells is drawn in (E, SE, SW): the other three are
#: the same joints seen from the other cell.
JOINT_DIRECTIONS: tuple[int, ...] = (0, 5, 4)


@dataclass(frozen=True, slots=True)
class Lattice:
    """Where cells go in an image: ``w`` (even) and ``v`` are the centre spacings in px."""

    w: int
    v: int
    ox: int = 0
    oy: int = 0

    @classmethod
    def for_width(cls, w: int) -> Lattice:
        """The lattice whose cells are ``w`` px wide (rounded down to even)."""
        w -= w % 2
        return cls(w, round(1.5 * w / SQRT3))

    def at(self, ox: int, oy: int) -> Lattice:
        """The same lattice with ``Hex(0, 0)`` at pixel ``(ox, oy)``."""
        return Lattice(self.w, self.v, ox, oy)

    @property
    def rx(self) -> float:
        """Horizontal scale of the corners (the hexagon's radius, seen across)."""
        return self.w / SQRT3

    @property
    def ry(self) -> float:
        """Vertical scale of the corners (the hexagon's radius, seen up and down)."""
        return self.v / 1.5

    @property
    def size(self) -> float:
        """The hexagon's radius (centre to corner), for proportions."""
        return (self.rx + self.ry) / 2

    def centre(self, h: Hex) -> tuple[int, int]:
        return (self.ox + self.w * h.q + (self.w // 2) * h.r, self.oy + self.v * h.r)

    def offset(self, direction: int) -> tuple[int, int]:
        """Pixel step from a cell to its neighbour in ``direction``."""
        dq, dr = DIRECTIONS[direction]
        return (self.w * dq + (self.w // 2) * dr, self.v * dr)

    def corners(self, cx: float, cy: float, scale: float = 1.0) -> list[Point]:
        """The six corners of a cell centred at ``(cx, cy)``, shrunk by ``scale``."""
        return [
            (cx + scale * self.rx * math.cos(a), cy + scale * self.ry * math.sin(a))
            for a in _CORNER_ANGLES
        ]


# Pointy-top corners, clockwise from the top (y grows downwards).
_CORNER_ANGLES = tuple(math.radians(-90 + 60 * k) for k in range(6))


def edge_corners(direction: int) -> tuple[int, int]:
    """The indexes (into :meth:`Lattice.corners`) of the two corners of the edge that a
    cell shares with its neighbour in ``direction``."""
    # Direction d's edge faces angle -60*d degrees; corners sit at -90 + 60k degrees.
    return _EDGE_CORNERS[direction]


_EDGE_CORNERS: dict[int, tuple[int, int]] = {
    0: (1, 2),  # E: the corners at -30 and +30 degrees
    1: (0, 1),  # NE
    2: (5, 0),  # NW
    3: (4, 5),  # W
    4: (3, 4),  # SW
    5: (2, 3),  # SE
}


def joint_order(a: Hex, b: Hex) -> tuple[Hex, Hex, int]:
    """Two neighbouring cells ordered so that the second lies in one of
    :data:`JOINT_DIRECTIONS` from the first, with that direction.

    Raises:
        ValueError: if the cells are not neighbours.
    """
    d = direction_between(a, b)
    if d is None:
        raise ValueError(f"cells {a} and {b} are not neighbours")
    if d in JOINT_DIRECTIONS:
        return a, b, d
    return b, a, (d + 3) % 6  # the opposite direction


def polygon_scaled(points: list[Point], factor: float) -> list[Point]:
    return [(x * factor, y * factor) for x, y in points]


def lerp(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
