"""What an adapter may show one seated player of a running game, as plain values.

Adapters never see the engine's objects: autocomplete and pop-ups read a :class:`SeatLook`,
which the service builds from the seat's own view (its rack, never another's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RackTile:
    """One tile of a rack: its slot (1-based), its letters and its two colours' letters."""

    slot: int
    name: str
    first: str
    second: str


@dataclass(frozen=True)
class SeatLook:
    """A seat's look at its game.

    ``cells`` maps the label of every cell a tile may start on, in reading order, to the
    labels its second cell may take.
    """

    spezial: bool
    my_turn: bool
    rack: tuple[RackTile, ...]
    rack_text: str
    cells: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def partners(self, first: str) -> tuple[str, ...] | None:
        """The second cells for a typed first cell (any case, spaces around), or ``None``
        if it names no cell a tile may start on."""
        return self.cells.get(first.strip().upper())
