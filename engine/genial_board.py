"""The Genial board: the playing areas, the start symbols, the fixed tables of each area,
and the board of a game in progress, kept up to date as its cells are covered (RULES.md
sections 1 and 2).

Listing every legal placement is what computer players and hints do all the time, so the
game keeps what a listing needs up to date as cells are covered instead of rebuilding it:
the empty adjacent pairs, and for every colour the points a symbol of it would score on
every empty cell (covering a cell changes only the two empty cells at the ends of each of
its three lines). The placements themselves are made once per playing area, every kind of
tile on every pair, so a listing picks out references to them; a game listed again and
again (one at a time) also keeps them as rows, one per empty pair in the pairs' order, so
that a listing is a strided copy of references per kind of tile and way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.errors import IllegalMove
from engine.genial_setup import Setup
from engine.hexgrid import OPPOSITE, Area, Hex, hexagon
from engine.moves import Placement
from engine.tiles import COLOURS, TILE_KINDS, Colour, Tile

#: Start symbols at the corners of the radius-5 area, clockwise from the top left.
START_SYMBOLS: tuple[tuple[Hex, Colour], ...] = (
    (Hex(0, -5), Colour.RED),
    (Hex(5, -5), Colour.GREEN),
    (Hex(5, 0), Colour.BLUE),
    (Hex(0, 5), Colour.ORANGE),
    (Hex(-5, 5), Colour.YELLOW),
    (Hex(-5, 0), Colour.PURPLE),
)

EMPTY = -1
#: The kinds of tile by index into ``TILE_KINDS`` (a kind's colours are in colour order).
KIND_OF: dict[Tile, int] = {t: k for k, t in enumerate(TILE_KINDS)}
_KIND_COLOURS: tuple[tuple[int, int], ...] = tuple(
    (t.first.index, t.second.index) for t in TILE_KINDS
)
#: _KIND_BY_COLOURS[x][y]: the kind of tile showing colours x and y (by index).
_KIND_BY_COLOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(KIND_OF[Tile.of(a, b)] for b in COLOURS) for a in COLOURS
)


#: The placements on one pair of cells: every kind of tile, each way round (a double's
#: two ways are one placement): 15 * 2 + 6.
ROW_WIDTH = 36

_AREAS: dict[int, Area] = {}


def playing_area(radius: int) -> Area:
    """The playing area of that radius (cached: areas are immutable)."""
    area = _AREAS.get(radius)
    if area is None:
        area = _AREAS[radius] = Area(hexagon(radius))
    return area


class PlacementSpot(NamedTuple):
    """A placement with its cells and colours as indexes, for search: colour ``first`` goes
    on cell ``cell1`` and ``second`` on ``cell2``."""

    placement: Placement
    cell1: int
    cell2: int
    first: int
    second: int
    #: Orders placements by their cells in reading order, then by their colours.
    order: int


def count_points(board: Sequence[int], area: Area) -> list[list[int]]:
    """``points[colour][cell]``: the points a symbol of that colour would score on each empty
    cell of ``board``, counted from scratch (0 on occupied cells)."""
    rays = area.rays
    points = [[0] * len(board) for _ in range(6)]
    for c, k in enumerate(board):
        if k != EMPTY:
            continue
        for ray in rays[c]:
            if not ray:
                continue
            colour = board[ray[0]]
            if colour == EMPTY:
                continue
            run = 0
            for j in ray:
                if board[j] != colour:
                    break
                run += 1
            points[colour][c] += run
    return points


def raise_points(
    board: Sequence[int], points: list[int], rays: Sequence[Sequence[int]], colour: int
) -> None:
    """After a symbol of ``colour`` was put on the cell whose rays are ``rays``: add what it
    now gives to ``points`` (that colour's points by cell). In each direction, the run of
    its colour beyond it: the empty cell at the far end of the run on the other side now
    sees this cell and that run as well (the cell was empty, so it stopped its line
    before)."""
    for d in (0, 1, 2):  # each line once: a direction and its opposite
        ahead = rays[d]
        behind = rays[OPPOSITE[d]]
        a = 0
        for c in ahead:
            if board[c] != colour:
                break
            a += 1
        b = 0
        for c in behind:
            if board[c] != colour:
                break
            b += 1
        if a < len(ahead) and board[ahead[a]] == EMPTY:
            points[ahead[a]] += 1 + b
        if b < len(behind) and board[behind[b]] == EMPTY:
            points[behind[b]] += 1 + a


class _Layout:
    """The fixed tables of one playing area, built once per radius and shared by every game
    on it: adjacent pairs (edges), every placement of every kind of tile on every edge made
    once (moves are immutable, so listing them is copying references), and the position
    before the first placement."""

    __slots__ = (
        "board",
        "cell_edges",
        "checked",
        "edge_pos",
        "edges",
        "empty_edges",
        "first_rows",
        "high_cells",
        "lines",
        "low_cells",
        "moves",
        "near_start",
        "points",
        "rows",
        "spots",
        "start_cells",
        "start_edges",
        "tile_columns",
        "where",
    )

    def __init__(self, area: Area) -> None:
        self.edges = edges = area.edges
        n = len(area)
        cell_edges: list[list[int]] = [[] for _ in range(n)]
        for e, (i, j) in enumerate(edges):
            cell_edges[i].append(e)
            cell_edges[j].append(e)
        self.cell_edges: tuple[tuple[int, ...], ...] = tuple(tuple(x) for x in cell_edges)
        #: By edge: its lower and its higher cell.
        self.low_cells: tuple[int, ...] = tuple(i for i, _ in edges)
        self.high_cells: tuple[int, ...] = tuple(j for _, j in edges)
        cells = area.cells
        spots: list[tuple[tuple[PlacementSpot, ...], ...]] = []
        for first, second in TILE_KINDS:
            x, y = first.index, second.index
            ways = [(0, 1), (1, 0)] if x != y else [(0, 1)]
            per_way = []
            for u, v in ways:
                # A table's placements made one after the other, so that they lie together
                # in memory: a listing touches each one it copies.
                placed = [Placement(first, second, cells[e[u]], cells[e[v]]) for e in edges]
                per_edge = []
                for edge, placement in zip(edges, placed, strict=True):
                    i, j = edge[u], edge[v]
                    order = ((i * n + j) * 6 + x) * 6 + y
                    per_edge.append(PlacementSpot(placement, i, j, x, y, order))
                per_way.append(tuple(per_edge))
            spots.append(tuple(per_way))
        #: spots[kind][way][edge]: the placement of that kind of tile on that edge, with its
        #: first colour on the edge's lower cell (way 0) or on its higher cell (way 1; none
        #: for doubles, whose two ways are the same placement).
        self.spots: tuple[tuple[tuple[PlacementSpot, ...], ...], ...] = tuple(spots)
        #: Every placement of the tables (all canonical) with its cells and colours, so a
        #: listed move is played by one look-up (moves written another way take the long
        #: road through the checks).
        self.where: dict[Placement, PlacementSpot] = {
            s.placement: s for per_way in spots for per_edge in per_way for s in per_edge
        }
        #: checked[placement]: a listed placement's cells, colours, tile and text, as
        #: GenialGame's checks work them out (filled as placements are played).
        self.checked: dict[Placement, tuple[int, int, int, int, Tile, str]] = {}
        self.moves: tuple[tuple[tuple[Placement, ...], ...], ...] = tuple(
            tuple(tuple(s.placement for s in per_edge) for per_edge in per_way) for per_way in spots
        )
        columns: list[tuple[int, ...]] = []
        by_column: list[tuple[Placement, ...]] = []
        for tables in self.moves:
            columns.append(tuple(range(len(by_column), len(by_column) + len(tables))))
            by_column += tables
        #: tile_columns[tile]: where the placements of the tile's kind stand in a row of a
        #: game's rows of placements (``GenialBoard._rows``), one way round and then the
        #: other (one column for a double).
        self.tile_columns: dict[Tile, tuple[int, ...]] = {t: columns[k] for t, k in KIND_OF.items()}
        #: rows[edge]: every placement on the edge, ROW_WIDTH of them, kind by kind in the
        #: order of TILE_KINDS, each one way round and then the other.
        self.rows: tuple[tuple[Placement, ...], ...] = tuple(zip(*by_column, strict=True))
        #: lines[cell]: the three lines through the cell, each as its two rays (a direction
        #: and its opposite), as raise_points goes through them.
        self.lines: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...] = tuple(
            tuple((rays[d], rays[OPPOSITE[d]]) for d in (0, 1, 2)) for rays in area.rays
        )
        board = [EMPTY] * n
        self.start_cells: dict[int, int] = {}
        for h, colour in START_SYMBOLS:
            i = area.index[h]
            board[i] = colour.index
            self.start_cells[i] = colour.index
        #: near_start[cell]: the start symbols next to the cell.
        self.near_start: tuple[tuple[int, ...], ...] = tuple(
            tuple(j for j in area.neighbours[i] if j in self.start_cells) for i in range(n)
        )
        #: start_edges[symbol]: the pairs with a cell next to that start symbol (those the
        #: first-round rule allows while no tile touches the symbol).
        self.start_edges: dict[int, tuple[int, ...]] = {
            s: tuple(sorted({e for j in area.neighbours[s] if j >= 0 for e in self.cell_edges[j]}))
            for s in self.start_cells
        }
        self.board: tuple[int, ...] = tuple(board)
        self.points: tuple[tuple[int, ...], ...] = tuple(
            tuple(column) for column in count_points(board, area)
        )
        self.empty_edges: tuple[int, ...] = tuple(
            e for e, (i, j) in enumerate(edges) if board[i] == EMPTY and board[j] == EMPTY
        )
        edge_pos = [-1] * len(edges)
        for p, e in enumerate(self.empty_edges):
            edge_pos[e] = p
        #: edge_pos[edge]: where the edge stands in empty_edges (-1: not empty).
        self.edge_pos: tuple[int, ...] = tuple(edge_pos)
        #: The rows of placements on the empty pairs before the first placement, flat (a
        #: game's ``_rows`` starts as a copy; never changed).
        self.first_rows: list[Placement] = [p for e in self.empty_edges for p in self.rows[e]]


_LAYOUTS: dict[int, _Layout] = {}


def _layout(radius: int) -> _Layout:
    layout = _LAYOUTS.get(radius)
    if layout is None:
        layout = _LAYOUTS[radius] = _Layout(playing_area(radius))
    return layout


class GenialBoard:
    """The board of a Genial game in progress, the base of :class:`~engine.genial.GenialGame`:
    the cells covered, each colour's points on every empty cell and the empty pairs, set out
    by :meth:`_set_out` and kept up to date by :meth:`_fill` as cells are covered."""

    def _set_out(self, setup: Setup) -> None:
        """The board before the first placement: only the start symbols."""
        self.area = area = playing_area(setup.radius)
        self._layout = layout = _layout(setup.radius)
        self._rays = area.rays
        self.board: list[int] = list(layout.board)
        self.start_cells: dict[int, int] = layout.start_cells
        # For the first-round rule: start symbols that a tile touches already.
        self.start_touched: set[int] = set()
        # Occupied cells in the order they were covered (start symbols first), for records.
        self.cell_order: list[int] = list(self.start_cells)
        # _points[colour][cell]: the points a symbol of that colour would score on that cell
        # (meaningless on occupied cells), kept up to date as cells are covered: covering a
        # cell changes only the empty cells at the ends of the lines through it.
        self._points: list[list[int]] = [list(column) for column in layout.points]
        # Empty adjacent pairs, kept as a list with positions so that a random one can be
        # drawn, and the end of the game seen, in constant time.
        self._edge_cells: tuple[tuple[int, int], ...] = layout.edges
        self._cell_edges: tuple[tuple[int, ...], ...] = layout.cell_edges
        self.empty_edges: list[int] = list(layout.empty_edges)
        self._edge_pos: list[int] = list(layout.edge_pos)
        # Every placement on the empty pairs, a row of ROW_WIDTH per pair in the order of
        # empty_edges, flat (engine.genial_placements lists a kind of tile as a strided
        # slice of it); kept up to date by _fill as pairs are covered, while it is there:
        # only the game listed again and again has it (64-128 KB).
        self._rows: list[Placement] | None = None

    def _first_round_cells(self) -> set[int]:
        """Empty cells next to a start symbol that no tile touches yet."""
        nbrs = self.area.neighbours
        cells = set()
        for s in self.start_cells:
            if s not in self.start_touched:
                for j in nbrs[s]:
                    if j >= 0 and self.board[j] == EMPTY:
                        cells.add(j)
        return cells

    def _first_round_edges(self) -> list[int]:
        """The empty pairs with a cell next to a start symbol that no tile touches yet, in
        the order of ``empty_edges`` (the pairs of :meth:`_first_round_cells`)."""
        pos = self._edge_pos
        touched = self.start_touched
        found = {
            e
            for s, edges in self._layout.start_edges.items()
            if s not in touched
            for e in edges
            if pos[e] >= 0
        }
        return sorted(found, key=pos.__getitem__)

    def colour_points(self) -> list[list[int]]:
        """``points[colour][cell]``: the points a symbol of that colour would score on that
        cell, for empty cells (meaningless on occupied ones). A placement scores
        ``points[first][cell1] + points[second][cell2]``: the two cells of a tile never see
        each other, as the partner's direction is skipped. Kept up to date as cells are
        covered, so this is a copy, not a count."""
        return [column.copy() for column in self._points]

    def cell_points(self) -> list[tuple[int, ...] | None]:
        """For each empty cell, the points a symbol of each colour would score there
        (None for occupied cells): :meth:`colour_points` by cell."""
        board = self.board
        return [
            pts if board[c] == EMPTY else None
            for c, pts in enumerate(zip(*self._points, strict=True))
        ]

    def points_of(self, placement: Placement) -> dict[Colour, int]:
        """The points a placement would score now, per colour (before caps), unchecked."""
        index = self.area.index
        i, j = index[placement.cell1], index[placement.cell2]
        pts = [0] * 6
        pts[placement.first.index] += self._line_points(i, placement.first.index)
        pts[placement.second.index] += self._line_points(j, placement.second.index)
        return {c: pts[c.index] for c in COLOURS if pts[c.index]}

    def _line_points(self, cell: int, colour: int) -> int:
        # Counted on the board before the tile goes down: the partner cell is still empty,
        # so its direction adds nothing, exactly as the rule skips it.
        board = self.board
        total = 0
        for ray in self.area.rays[cell]:
            for j in ray:
                if board[j] != colour:
                    break
                total += 1
        return total

    def _cover_all(self, board: dict[Hex, Colour]) -> None:
        """Cover the cells of a board in its order (to rebuild a position): the empty pairs
        go as cell by cell in play, so they are kept in the same order as in the game the
        board came from; the points and the start symbols touched are then counted from
        scratch, which is quicker than keeping them up to date cell by cell."""
        index = self.area.index
        cells = self.board
        for h, colour in board.items():
            i = index[h]
            if i not in self.start_cells:
                cells[i] = colour.index
                self.cell_order.append(i)
                self._drop_edges(i)
        self._rows = None
        nbrs = self.area.neighbours
        self.start_touched = {
            s for s in self.start_cells if any(j >= 0 and cells[j] != EMPTY for j in nbrs[s])
        }
        self._points = count_points(cells, self.area)

    def put(self, cell: Hex, colour: Colour) -> None:
        """Put a symbol on an empty cell without a move, to set up a position (a puzzle, a
        test). Scores, racks and turns are untouched.

        Raises:
            IllegalMove: ``outside_area`` or ``occupied``.
        """
        i = self.area.index.get(cell, -1)
        if i < 0:
            raise IllegalMove("outside_area", repr(cell))
        if self.board[i] != EMPTY:
            raise IllegalMove("occupied", self.area.label(cell))
        self._fill(i, colour.index)

    def _fill(self, cell: int, colour: int) -> None:
        # The steps of _drop_edges and raise_points, written out here: every placement
        # played (two cells) comes through this, play-outs' thousands a move included.
        board = self.board
        board[cell] = colour
        self.cell_order.append(cell)
        pos = self._edge_pos
        empty = self.empty_edges
        rows = self._rows
        for e in self._cell_edges[cell]:
            p = pos[e]
            if p >= 0:
                last = empty.pop()
                if last != e:
                    empty[p] = last
                    pos[last] = p
                    if rows is not None:
                        # The last pair's row fills the gap, as in empty_edges.
                        n = len(empty) * ROW_WIDTH
                        rows[p * ROW_WIDTH : p * ROW_WIDTH + ROW_WIDTH] = rows[n : n + ROW_WIDTH]
                pos[e] = -1
        near = self._layout.near_start[cell]
        if near:
            self.start_touched.update(near)
        points = self._points[colour]
        for ahead, behind in self._layout.lines[cell]:
            # The run of the colour each way, and the empty cell that ends it, if any.
            a = 0
            end_a = -1
            for c in ahead:
                k = board[c]
                if k != colour:
                    if k == EMPTY:
                        end_a = c
                    break
                a += 1
            b = 0
            end_b = -1
            for c in behind:
                k = board[c]
                if k != colour:
                    if k == EMPTY:
                        end_b = c
                    break
                b += 1
            if end_a >= 0:
                points[end_a] += 1 + b
            if end_b >= 0:
                points[end_b] += 1 + a

    def _drop_edges(self, cell: int) -> None:
        """Take the pairs of a cell just covered out of the empty pairs (the last one kept
        fills each gap, as the order does not matter to the rules)."""
        pos = self._edge_pos
        empty = self.empty_edges
        for e in self._cell_edges[cell]:
            p = pos[e]
            if p >= 0:
                last = empty.pop()
                if last != e:
                    empty[p] = last
                    pos[last] = p
                pos[e] = -1
