"""Genial Spezial (RULES.md section 3): chains of one's own tiles connecting towers.

The board layout is read from ``engine/data/spezial_board.json``, a copy of the project's
shared board file (a test keeps the two equal).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.errors import InvalidRecord
from engine.hexgrid import Area, Hex
from engine.moves import SpezialPlacement
from engine.tiles import Colour

#: The four score colours, in the order that breaks ties for the golden default (RULES 3.3).
SCORE_COLOURS: tuple[Colour, ...] = (Colour.BLUE, Colour.GREEN, Colour.ORANGE, Colour.PURPLE)
TILES_PER_PLAYER = 20
TALL = "tall"
SHORT = "short"


@dataclass(frozen=True, slots=True)
class TowerSpace:
    """A printed tower space: the tower stands there when at least ``players`` play."""

    cell: Hex
    height: str  # "tall" or "short"
    players: int


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """The Genial Spezial board: its cells, tower spaces (in file order) and golden spaces."""

    area: Area
    tower_spaces: tuple[TowerSpace, ...]
    golden: frozenset[Hex]

    def towers_for(self, players: int) -> tuple[TowerSpace, ...]:
        """The towers in use with that many players, in the board file's order."""
        return tuple(t for t in self.tower_spaces if t.players <= players)


@cache
def board_layout() -> BoardLayout:
    """The board, read once from the packaged copy of ``spezial_board.json``."""
    text = resources.files("engine").joinpath("data/spezial_board.json").read_text("utf-8")
    data = json.loads(text)
    area = Area(Hex(q, r) for q, r in data["cells"])
    towers = tuple(
        TowerSpace(Hex(*t["cell"]), t["height"], int(t["players"])) for t in data["towers"]
    )
    golden = frozenset(Hex(q, r) for q, r in data["bonus"])
    return BoardLayout(area, towers, golden)


@dataclass(frozen=True, slots=True)
class Tower:
    """A tower in play and its score token."""

    cell: Hex
    height: str  # "tall" or "short"
    colour: Colour  # the token's colour, one of SCORE_COLOURS
    value: int  # the token's current value (light 1/2, dark 2/3)
    dark: bool  # whether the token has been flipped to its dark side


@dataclass(frozen=True, slots=True)
class SpezialView:
    """What one seat may know of a Genial Spezial game (everything is public here except
    nothing: players have no hidden tiles; ``seat=None`` is a spectator)."""

    players: int
    seat: int | None
    #: Every cell covered by a tile, with the seat whose tile it is.
    board: dict[Hex, int]
    #: The towers in play, by cell.
    towers: dict[Hex, Tower]
    #: Golden bonus spaces (covered or not).
    golden: frozenset[Hex]
    scores: tuple[dict[Colour, int], ...]
    to_move: int | None
    #: Tiles each seat still has to place.
    tiles_left: tuple[int, ...]
    moves: tuple[str, ...]
    last_placement: SpezialPlacement | None
    over: bool
    ranking: list[list[int]] | None
    version: int

    @property
    def area(self) -> Area:
        return board_layout().area


class SpezialGame:
    """Placeholder until the Spezial rules land (RULES.md section 3)."""

    def __init__(
        self,
        players: int,
        tokens: list[str] | tuple[str, ...] | None = None,
        seed: int | None = None,
    ) -> None:
        raise InvalidRecord("Genial Spezial records are not supported yet")
