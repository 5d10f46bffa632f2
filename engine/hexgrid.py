"""Hex geometry shared by both games: axial cells, directions, areas and cell labels.

Cells are pointy-top hexagons in axial coordinates ``(q, r)`` with ``s = -q - r``
(RULES.md section 1). Pixel layout belongs to ``render``; this module only knows the grid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from engine.errors import IllegalMove, NotationError


class Hex(NamedTuple):
    """One cell of the grid in axial coordinates."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def neighbour(self, direction: int) -> Hex:
        dq, dr = DIRECTIONS[direction]
        return Hex(self.q + dq, self.r + dr)

    def neighbours(self) -> list[Hex]:
        return [Hex(self.q + dq, self.r + dr) for dq, dr in DIRECTIONS]


ORIGIN = Hex(0, 0)

# Order matters: direction d and OPPOSITE[d] point at each other.
DIRECTION_NAMES: tuple[str, ...] = ("E", "NE", "NW", "W", "SW", "SE")
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
OPPOSITE: tuple[int, ...] = (3, 4, 5, 0, 1, 2)


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a.q - b.q, a.r - b.r
    return max(abs(dq), abs(dr), abs(dq + dr))


def direction_between(a: Hex, b: Hex) -> int | None:
    """The direction from ``a`` to its neighbour ``b``, or None if they are not adjacent."""
    try:
        return DIRECTIONS.index((b.q - a.q, b.r - a.r))
    except ValueError:
        return None


def hexagon(radius: int, centre: Hex = ORIGIN) -> list[Hex]:
    """All cells within ``radius`` of ``centre``, in reading order (row by row, left to right)."""
    cells = []
    for dr in range(-radius, radius + 1):
        for dq in range(max(-radius, -dr - radius), min(radius, -dr + radius) + 1):
            cells.append(Hex(centre.q + dq, centre.r + dr))
    return cells


def ring(radius: int, centre: Hex = ORIGIN) -> list[Hex]:
    """The cells at exactly ``radius`` from ``centre``."""
    return [h for h in hexagon(radius, centre) if distance(h, centre) == radius]


_LABEL = re.compile(r"[A-Z][0-9]{1,2}")


def row_letter(index: int) -> str:
    if not 0 <= index < 26:
        raise ValueError(f"row index out of range: {index}")
    return chr(ord("A") + index)


class Area:
    """A fixed set of cells (a game's playing area) with labels and neighbour tables.

    Cells are numbered ``0..len-1`` in reading order; the games work on these indexes
    for speed and convert to :class:`Hex` and labels at their edges.
    """

    __slots__ = ("_by_label", "cells", "edges", "index", "labels", "neighbours", "rays")

    def __init__(self, cells: Iterable[Hex]) -> None:
        ordered = sorted(set(cells), key=lambda h: (h.r, h.q))
        self.cells: tuple[Hex, ...] = tuple(ordered)
        self.index: dict[Hex, int] = {h: i for i, h in enumerate(self.cells)}
        rows = sorted({h.r for h in self.cells})
        labels: list[str] = []
        numbers: dict[int, int] = {}
        for h in self.cells:
            numbers[h.r] = numbers.get(h.r, 0) + 1
            labels.append(f"{row_letter(rows.index(h.r))}{numbers[h.r]}")
        self.labels: tuple[str, ...] = tuple(labels)
        self._by_label = {label: i for i, label in enumerate(labels)}
        # neighbours[i][d]: index of the neighbour of cell i in direction d, or -1 off the area.
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index.get(h.neighbour(d), -1) for d in range(6)) for h in self.cells
        )
        # rays[i][d]: the cells from i outwards in direction d up to the edge of the area.
        rays = []
        for i in range(len(self.cells)):
            per_dir = []
            for d in range(6):
                ray = []
                j = self.neighbours[i][d]
                while j >= 0:
                    ray.append(j)
                    j = self.neighbours[j][d]
                per_dir.append(tuple(ray))
            rays.append(tuple(per_dir))
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)
        # Every pair of adjacent cells once, lower index first.
        self.edges: tuple[tuple[int, int], ...] = tuple(
            (i, j) for i in range(len(self.cells)) for j in self.neighbours[i] if j > i
        )

    def __len__(self) -> int:
        return len(self.cells)

    def __contains__(self, h: object) -> bool:
        return h in self.index

    def __iter__(self) -> Iterator[Hex]:
        return iter(self.cells)

    def label(self, h: Hex) -> str:
        """The label players type for ``h`` (``F11``).

        Raises:
            KeyError: if ``h`` is not in the area.
        """
        return self.labels[self.index[h]]

    def parse_label(self, text: str) -> Hex:
        """The cell a label names, case-insensitively.

        Raises:
            NotationError: ``cannot_parse`` if the text is not shaped like a label.
            IllegalMove: ``outside_area`` if it is a label, but of no cell of this area.
        """
        return self.cells[self.label_index(text)]

    def label_index(self, text: str) -> int:
        """Like :meth:`parse_label`, but the cell's index."""
        key = text.strip().upper()
        i = self._by_label.get(key)
        if i is None:
            if _LABEL.fullmatch(key):
                raise IllegalMove("outside_area", text)
            raise NotationError("cannot_parse", text, "a cell is a row letter and a number")
        return i

    def adjacent(self, i: int, j: int) -> bool:
        return j in self.neighbours[i]

    def pair(self, cell1: Hex, cell2: Hex, text: str = "") -> tuple[int, int]:
        """The indexes of two cells that a tile may cover: both in the area and adjacent.

        Raises:
            IllegalMove: ``outside_area``, ``same_cell`` or ``not_adjacent`` (``text`` is
                the move as written, for the message).
        """
        i = self.index.get(cell1, -1)
        j = self.index.get(cell2, -1)
        if i < 0 or j < 0:
            raise IllegalMove("outside_area", text or repr((cell1, cell2)))
        if i == j:
            raise IllegalMove("same_cell", text)
        if j not in self.neighbours[i]:
            raise IllegalMove("not_adjacent", text)
        return i, j
