"""Moves as small immutable values: a Genial placement, the swap decision, a Spezial placement.

A move holds cells as :class:`~engine.hexgrid.Hex`, not labels, because labels depend on the
game's playing area; :mod:`engine.notation` converts between the two.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.hexgrid import Hex
from engine.tiles import Colour, Tile


class Placement(NamedTuple):
    """A Genial tile placed with colour ``first`` on ``cell1`` and ``second`` on ``cell2``."""

    first: Colour
    second: Colour
    cell1: Hex
    cell2: Hex

    @property
    def tile(self) -> Tile:
        return Tile.of(self.first, self.second)

    @property
    def cells(self) -> tuple[Hex, Hex]:
        return (self.cell1, self.cell2)

    def canonical(self) -> Placement:
        """The same placement written one fixed way: tile colours in colour order, and for a
        double the cells in reading order. Two placements are the same iff these are equal."""
        if self.first is self.second:
            if (self.cell2.r, self.cell2.q) < (self.cell1.r, self.cell1.q):
                return Placement(self.first, self.second, self.cell2, self.cell1)
            return self
        if self.first.index > self.second.index:
            return Placement(self.second, self.first, self.cell2, self.cell1)
        return self


class SwapChoice(NamedTuple):
    """The swap decision of RULES.md 2.6: ``swap`` (True) or ``keep`` (False)."""

    swap: bool


SWAP = SwapChoice(True)
KEEP = SwapChoice(False)


class SpezialPlacement(NamedTuple):
    """A Genial Spezial tile on ``cell1`` and ``cell2``, with the colours chosen for the golden
    spaces it covers (in the order of the cells; empty means the default, RULES.md 3.3)."""

    cell1: Hex
    cell2: Hex
    golden: tuple[Colour, ...] = ()

    @property
    def cells(self) -> tuple[Hex, Hex]:
        return (self.cell1, self.cell2)

    def canonical(self) -> SpezialPlacement:
        """Cells in reading order (a Spezial tile is one colour, so its way round is moot)."""
        if (self.cell2.r, self.cell2.q) < (self.cell1.r, self.cell1.q):
            return SpezialPlacement(self.cell2, self.cell1, self.golden)
        return self


GenialMove = Placement | SwapChoice
Move = Placement | SwapChoice | SpezialPlacement
