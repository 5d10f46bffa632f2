"""The Genial Spezial board: its cells, tower spaces and golden spaces, and the tables that
follow from the number of players (RULES.md section 3).

The board layout is read from ``engine/data/spezial_board.json``, a copy of the project's
shared board file (a test keeps the two equal).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.hexgrid import Area, Hex
from engine.moves import SpezialPlacement

TALL = "tall"
SHORT = "short"

# Cell contents on the internal board; a tile cell holds its seat (0..3).
EMPTY = -1
TOWER = -2


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


# --- fixed tables per player count ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tables:
    """Everything about the board that depends only on the number of players."""

    spaces: tuple[TowerSpace, ...]  # the towers in use, in file order
    tower_cells: tuple[int, ...]
    tall_mask: int  # bit k set when tower k is tall
    near: tuple[int, ...]  # per cell: bit mask of the towers next to it
    golden: tuple[bool, ...]  # per cell: a golden space?
    board: tuple[int, ...]  # the empty board: TOWER on tower cells, else EMPTY
    cell_edges: tuple[tuple[int, ...], ...]  # per cell: the area's edges at it
    free_edges: tuple[int, ...]  # edges with no tower at either end, ascending
    #: per edge: its placement (canonical, golden left to the default), made once
    placements: tuple[SpezialPlacement, ...]


@cache
def _tables(players: int) -> _Tables:
    layout = board_layout()
    area = layout.area
    spaces = layout.towers_for(players)
    tower_cells = tuple(area.index[t.cell] for t in spaces)
    near = [0] * len(area)
    for k, c in enumerate(tower_cells):
        for j in area.neighbours[c]:
            if j >= 0:
                near[j] |= 1 << k
    board = [EMPTY] * len(area)
    for c in tower_cells:
        board[c] = TOWER
    cell_edges: list[list[int]] = [[] for _ in area.cells]
    for e, (i, j) in enumerate(area.edges):
        cell_edges[i].append(e)
        cell_edges[j].append(e)
    return _Tables(
        spaces=spaces,
        tower_cells=tower_cells,
        tall_mask=sum(1 << k for k, t in enumerate(spaces) if t.height == TALL),
        near=tuple(near),
        golden=tuple(h in layout.golden for h in area.cells),
        board=tuple(board),
        cell_edges=tuple(tuple(x) for x in cell_edges),
        free_edges=tuple(
            e for e, (i, j) in enumerate(area.edges) if board[i] == EMPTY and board[j] == EMPTY
        ),
        placements=tuple(SpezialPlacement(area.cells[i], area.cells[j]) for i, j in area.edges),
    )


def _bits(mask: int) -> list[int]:
    """The set bits of a mask, lowest first (towers in file order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
