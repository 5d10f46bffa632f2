"""The legal placements of the player to move in a Genial game, listed: in canonical form
(the one list of what may be placed), in groups by kind of tile and way round, as spots
with their cells and colours as indexes (for search), with the points each would make, or
one drawn at random (for play-outs)."""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable, Sequence
from itertools import compress, count
from operator import itemgetter, ne
from typing import NamedTuple, TypeVar

from engine.genial_board import _KIND_COLOURS, KIND_OF, ROW_WIDTH, GenialBoard, PlacementSpot
from engine.moves import Placement
from engine.tiles import Tile

T = TypeVar("T")


class PlacementGroup(NamedTuple):
    """The legal placements of one kind of tile laid one way round, for search: placement
    ``spots[n]`` puts colour ``first`` on cell ``cells1[n]`` and ``second`` on
    ``cells2[n]``. With :meth:`GenialGame.colour_points`, the points of a whole group can
    be looked up at once (``map``), without a Python step per placement."""

    first: int
    second: int
    cells1: tuple[int, ...]
    cells2: tuple[int, ...]
    spots: tuple[PlacementSpot, ...]


#: The game listed last (its id): a game listed twice in a row keeps rows of placements.
_last_listed: list[int] = [0]
#: The game that keeps rows of placements, if any.
_rows_held: list[weakref.ref[GenialPlacements] | None] = [None]


class GenialPlacements(GenialBoard):
    """The listings of :class:`~engine.genial.GenialGame`'s legal placements."""

    # Kept by GenialGame (engine.genial).
    racks: list[list[Tile]]
    to_move: int
    has_placed: list[bool]
    over: bool
    awaiting: str | None

    def _candidate_edges(self) -> list[tuple[int, int]]:
        edges = self._edge_cells
        if not self.has_placed[self.to_move]:
            return [edges[e] for e in self._first_round_edges()]
        return [edges[e] for e in self.empty_edges]

    def _candidate_edges_getter(self) -> Callable[[Sequence[T]], tuple[T, ...]] | None:
        """What picks out, from a table by edge, the entries of the empty edges the player to
        move may cover (in the order they are kept); None if there are none."""
        edges = self.empty_edges
        if not self.has_placed[self.to_move]:
            edges = self._first_round_edges()
        if len(edges) > 1:
            # One C-level call per table instead of a Python step per edge.
            return itemgetter(*edges)
        if edges:
            only = edges[0]
            return lambda table: (table[only],)
        return None

    def _rack_kinds(self) -> list[int]:
        """The kinds of tile on the rack of the player to move, each once, in rack order."""
        return [KIND_OF[t] for t in dict.fromkeys(self.racks[self.to_move])]

    def legal_placements(self) -> list[Placement]:
        """Every legal placement, each once in canonical form: the rack's kinds of tile in
        rack order, each one way round and then the other, pair of cells by pair of cells
        (the order :meth:`placement_groups` lists them in)."""
        if self.over or self.awaiting != "place":
            return []
        rows = self._rows
        if rows is None:
            if not self.has_placed[self.to_move] or _last_listed[0] != id(self):
                _last_listed[0] = id(self)
                return self._picked_listing()
            rows = self._keep_rows()
        # The game listed again: each table is a strided slice of the rows kept (one
        # C-level copy of references a table, no step per pair). The first round's
        # placements do not come from here: only some of the empty pairs are allowed.
        elif not self.has_placed[self.to_move]:
            return self._picked_listing()
        end = len(self.empty_edges) * ROW_WIDTH
        columns = self._layout.tile_columns
        out: list[Placement] | None = None
        for tile in dict.fromkeys(self.racks[self.to_move]):
            for c in columns[tile]:
                if out is None:
                    out = rows[c:end:ROW_WIDTH]
                else:
                    out += rows[c:end:ROW_WIDTH]
        return [] if out is None else out

    def _picked_listing(self) -> list[Placement]:
        """:meth:`legal_placements`, picking each placement out of its kind's table."""
        pick = self._candidate_edges_getter()
        if pick is None:
            return []
        moves = self._layout.moves
        out: list[Placement] = []
        for k in self._rack_kinds():
            for table in moves[k]:
                # One C-level call per table (a copy of references), no step per move.
                out += pick(table)
        return out

    def _keep_rows(self) -> list[Placement]:
        """Make and keep the rows of placements on the empty pairs (see ``_rows``), taking
        them from the game that had them: one game at a time has them, so that a process
        holding many games does not hold a table of placements for each."""
        held = _rows_held[0]
        other = held() if held is not None else None
        if other is not None:
            other._rows = None
        # The rows before the first placement, then the row of each pair that stands
        # where another stood then (the pairs only ever leave, the last filling the gap).
        layout = self._layout
        empty = self.empty_edges
        rows = self._rows = layout.first_rows[: len(empty) * ROW_WIDTH]
        by_edge = layout.rows
        for p in compress(count(), map(ne, empty, layout.empty_edges)):
            rows[p * ROW_WIDTH : p * ROW_WIDTH + ROW_WIDTH] = by_edge[empty[p]]
        _rows_held[0] = weakref.ref(self)
        return rows

    def placement_groups(self) -> list[PlacementGroup]:
        """Every legal placement, in groups by kind of tile and way round (the same
        placements as :meth:`legal_placements`, in another order)."""
        if self.over or self.awaiting != "place":
            return []
        pick = self._candidate_edges_getter()
        if pick is None:
            return []
        layout = self._layout
        spots = layout.spots
        low = pick(layout.low_cells)
        high = pick(layout.high_cells)
        out = []
        for k in self._rack_kinds():
            x, y = _KIND_COLOURS[k]
            ways = spots[k]
            out.append(PlacementGroup(x, y, low, high, pick(ways[0])))
            if len(ways) > 1:
                out.append(PlacementGroup(x, y, high, low, pick(ways[1])))
        return out

    def placement_spots(self) -> list[PlacementSpot]:
        """Every legal placement with its cells and colours as indexes, group by group of
        :meth:`placement_groups`."""
        out: list[PlacementSpot] = []
        for group in self.placement_groups():
            out += group.spots
        return out

    def placements_with_points(self) -> list[tuple[Placement, tuple[int, ...]]]:
        """Every legal placement with the points it would make, per colour in colour order
        (before caps), group by group of :meth:`placement_groups`."""
        points = self._points
        out: list[tuple[Placement, tuple[int, ...]]] = []
        for x, y, cells1, cells2, spots in self.placement_groups():
            px = points[x]
            py = points[y]
            firsts = map(px.__getitem__, cells1)
            seconds = map(py.__getitem__, cells2)
            for p, a, b in zip(spots, firsts, seconds, strict=True):
                pts = [0, 0, 0, 0, 0, 0]
                pts[x] += a
                pts[y] += b
                out.append((p.placement, tuple(pts)))
        return out

    def random_placement(self, rng: random.Random) -> Placement:
        """A random legal placement, drawn without listing them all (for playouts)."""
        rack = self.racks[self.to_move]
        if self.has_placed[self.to_move]:
            i, j = self._edge_cells[self.empty_edges[rng.randrange(len(self.empty_edges))]]
        else:
            i, j = rng.choice(self._candidate_edges())
        first, second = rack[rng.randrange(len(rack))]
        if rng.random() < 0.5:
            i, j = j, i
        cells = self.area.cells
        return Placement(first, second, cells[i], cells[j])
