"""Genial (Einfach Genial / Ingenious): the standard, team and solo games (RULES.md section 2).

The game state is mutable for speed (``copy()`` makes an independent one); its record
(setup, draw order and moves) is what defines a game. Cells are handled as indexes into the
playing area's :class:`~engine.hexgrid.Area` inside, and as :class:`Hex` at the edges.

Listing every legal placement is what computer players and hints do all the time, so the
game keeps what a listing needs up to date as cells are covered instead of rebuilding it:
the empty adjacent pairs, and for every colour the points a symbol of it would score on
every empty cell (covering a cell changes only the two empty cells at the ends of each of
its three lines). The placements themselves are made once per playing area, every kind of
tile on every pair, so a listing picks out references to them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple, TypeVar, cast

from engine.errors import GameOver, IllegalMove, NotYourTurn, at_move
from engine.events import (
    BonusEarned,
    BonusLost,
    Event,
    GameEnded,
    Kept,
    Placed,
    Refilled,
    Scored,
    SwapOffered,
    Swapped,
    TurnStarted,
)
from engine.hexgrid import OPPOSITE, Area, Hex, hexagon
from engine.moves import KEEP, SWAP, Placement, SwapChoice
from engine.notation import format_genial_move, parse_genial_move
from engine.ranking import rank
from engine.tiles import COLOUR_LETTERS, COLOURS, TILE_KINDS, Bag, Colour, Tile, tile_set

MODES = ("standard", "team", "solo")
FULL_RADIUS = 7
RACK_SIZE = 6
STANDARD_CAP = 18
LONG_CAP = 36  # team and solo tracks
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
T = TypeVar("T")
_COLOUR_OF = {c.index: c for c in COLOURS}
#: The kinds of tile by index into ``TILE_KINDS`` (a kind's colours are in colour order).
KIND_OF: dict[Tile, int] = {t: k for k, t in enumerate(TILE_KINDS)}
_KIND_COLOURS: tuple[tuple[int, int], ...] = tuple(
    (t.first.index, t.second.index) for t in TILE_KINDS
)
#: _KIND_BY_COLOURS[x][y]: the kind of tile showing colours x and y (by index).
_KIND_BY_COLOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(KIND_OF[Tile.of(a, b)] for b in COLOURS) for a in COLOURS
)


def _by_name(item: tuple[Tile, int]) -> str:
    return item[0].name


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything that follows from the mode and the number of players, in one place."""

    mode: str
    players: int
    radius: int
    rack_size: int
    cap: int
    #: Marks on the track that stop a placement and earn a bonus placement (2.5, 2.7, 2.8).
    marks: tuple[int, ...]
    bonus_placements: bool
    swaps: bool
    sides: int

    @classmethod
    def of(cls, mode: str, players: int) -> Setup:
        """The setup of a mode for a number of players.

        Raises:
            ValueError: for a mode unknown or impossible with that many players.
        """
        if mode == "standard" and 2 <= players <= 4:
            radius = {2: 5, 3: 6, 4: 7}[players]
            return cls(mode, players, radius, RACK_SIZE, STANDARD_CAP, (18,), True, True, players)
        if mode == "team" and players == 4:
            return cls(mode, 4, 7, RACK_SIZE, LONG_CAP, (18, 36), True, True, 2)
        if mode == "solo" and players == 1:
            return cls(mode, 1, 5, 1, LONG_CAP, (18, 36), False, False, 1)
        raise ValueError(f"no Genial {mode!r} game for {players} players")

    def side_of(self, seat: int) -> int:
        """The score board a seat plays for: its team (seats 0+2, 1+3) or itself."""
        return seat % 2 if self.mode == "team" else seat


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


class _Layout:
    """The fixed tables of one playing area, built once per radius and shared by every game
    on it: adjacent pairs (edges), every placement of every kind of tile on every edge made
    once (moves are immutable, so listing them is copying references), and the position
    before the first placement."""

    __slots__ = (
        "board",
        "cell_edges",
        "edge_pos",
        "edges",
        "empty_edges",
        "high_cells",
        "low_cells",
        "moves",
        "near_start",
        "points",
        "spots",
        "start_cells",
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
                per_edge = []
                for edge in edges:
                    i, j = edge[u], edge[v]
                    order = ((i * n + j) * 6 + x) * 6 + y
                    per_edge.append(
                        PlacementSpot(
                            Placement(first, second, cells[i], cells[j]), i, j, x, y, order
                        )
                    )
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
        self.moves: tuple[tuple[tuple[Placement, ...], ...], ...] = tuple(
            tuple(tuple(s.placement for s in per_edge) for per_edge in per_way) for per_way in spots
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


_LAYOUTS: dict[int, _Layout] = {}


def _layout(radius: int) -> _Layout:
    layout = _LAYOUTS.get(radius)
    if layout is None:
        layout = _LAYOUTS[radius] = _Layout(playing_area(radius))
    return layout


@dataclass(frozen=True, slots=True)
class GenialView:
    """What one seat may know (``seat=None``: a spectator). Never holds the draw order or
    another seat's rack."""

    mode: str
    players: int
    seat: int | None
    radius: int
    cap: int
    board: dict[Hex, Colour]
    start_symbols: dict[Hex, Colour]
    scores: tuple[dict[Colour, int], ...]
    to_move: int | None
    awaiting: str | None
    rack: tuple[Tile, ...] | None
    rack_sizes: tuple[int, ...]
    bag_size: int
    #: Tiles this seat has not seen: the bag and the other racks, as counts.
    unseen: dict[Tile, int]
    bonus_owed: int
    has_placed: tuple[bool, ...]
    moves: tuple[str, ...]
    #: The placements of the last turn (a turn with bonus placements has several).
    last_placements: tuple[Placement, ...]
    over: bool
    ranking: list[list[int]] | None
    winner: int | None
    version: int

    @property
    def area(self) -> Area:
        return playing_area(self.radius)

    @property
    def setup(self) -> Setup:
        return Setup.of(self.mode, self.players)

    def side_of(self, seat: int) -> int:
        return self.setup.side_of(seat)


class GenialGame:
    """A game of Genial in progress.

    Moves go through :meth:`play`, which checks them against the rules and returns the
    events; :meth:`legal_moves` is the one list of what may be played.
    """

    def __init__(
        self,
        players: int,
        mode: str | None = None,
        bag: Sequence[Tile] | None = None,
        seed: int | None = None,
    ) -> None:
        """Set up a game and deal the racks.

        Args:
            players: number of seats, 1–4.
            mode: ``standard``, ``team`` or ``solo`` (default: solo for 1 player).
            bag: the complete draw order (the 120 tiles); else shuffled with ``seed``.

        Raises:
            ValueError: for an impossible mode/player count or a bag that is not the set.
        """
        self.setup = setup = Setup.of(mode or ("solo" if players == 1 else "standard"), players)
        if bag is None:
            initial = tile_set()
            random.Random(seed).shuffle(initial)
        else:
            initial = list(bag)
            if Counter(initial) != Counter(tile_set()):
                raise ValueError("the bag must hold exactly the 120 tiles of the set")
        self.initial_bag: tuple[Tile, ...] = tuple(initial)
        self.bag = Bag(initial)
        self._set_out(setup)
        self.racks: list[list[Tile]] = [self.bag.draw(setup.rack_size) for _ in range(players)]
        self.scores: list[list[int]] = [[0] * 6 for _ in range(setup.sides)]
        self.has_placed: list[bool] = [False] * players
        self.to_move = 0
        self.awaiting: str | None = "place"
        self.bonus_owed = 0
        self.over = False
        self.winner: int | None = None
        self.end_reason: str | None = None
        self.moves: list[str] = []
        self.last_placements: list[Placement] = []
        self._turn_placements: list[Placement] = []

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

    # --- copying ------------------------------------------------------------------------

    def copy(self) -> GenialGame:
        """An independent copy (for search): shares only immutable tables."""
        new = object.__new__(GenialGame)
        new.__dict__.update(self.__dict__)
        new.bag = self.bag.copy()
        new.board = self.board.copy()
        new.start_touched = set(self.start_touched)
        new.cell_order = self.cell_order.copy()
        new._points = [column.copy() for column in self._points]
        new.empty_edges = self.empty_edges.copy()
        new._edge_pos = self._edge_pos.copy()
        new.racks = [r.copy() for r in self.racks]
        new.scores = [s.copy() for s in self.scores]
        new.has_placed = self.has_placed.copy()
        new.moves = self.moves.copy()
        new.last_placements = self.last_placements.copy()
        new._turn_placements = self._turn_placements.copy()
        return new

    # --- queries ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def mode(self) -> str:
        return self.setup.mode

    @property
    def version(self) -> int:
        """The number of moves made: a command for an older version is stale."""
        return len(self.moves)

    @property
    def sides(self) -> int:
        """The number of score boards: one per seat, or two teams."""
        return self.setup.sides

    def side_of(self, seat: int) -> int:
        return self.setup.side_of(seat)

    def board_summary(self) -> dict[Hex, str]:
        """Every occupied cell with its colour letter (RECORD.md's ``board``)."""
        return {h: c.value for h, c in self.board_colours().items()}

    def score(self, side: int) -> dict[Colour, int]:
        return {c: self.scores[side][c.index] for c in COLOURS}

    def board_colours(self) -> dict[Hex, Colour]:
        """Every occupied cell with its colour: start symbols, then tiles as placed."""
        cells = self.area.cells
        board = self.board
        return {cells[i]: _COLOUR_OF[board[i]] for i in self.cell_order}

    def ranking(self) -> list[list[int]] | None:
        """Places, best first, each a list of sides; None while the game goes on."""
        if not self.over:
            return None
        return rank(self.scores, self.winner)

    def returns(self) -> list[int]:
        """Each side's result: its lowest colour (RULES.md 2.9, 2.8)."""
        return [min(s) for s in self.scores]

    def lowest_colours(self, side: int) -> tuple[Colour, ...]:
        s = self.scores[side]
        low = min(s)
        return tuple(c for c, points in zip(COLOURS, s, strict=True) if points == low)

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

    def legal_moves(self) -> list[Placement | SwapChoice]:
        """Every move the player to move may make, each once, in canonical form."""
        if self.over:
            return []
        if self.awaiting == "swap":
            return [SWAP, KEEP]
        # A new list each time, never kept: no copy needed to widen its type.
        return cast(list[Placement | SwapChoice], self.legal_placements())

    def _candidate_edges(self) -> list[tuple[int, int]]:
        edges = self._edge_cells
        pairs = [edges[e] for e in self.empty_edges]
        if not self.has_placed[self.to_move]:
            allowed = self._first_round_cells()
            pairs = [(i, j) for i, j in pairs if i in allowed or j in allowed]
        return pairs

    def _candidate_edges_getter(self) -> Callable[[Sequence[T]], tuple[T, ...]] | None:
        """What picks out, from a table by edge, the entries of the empty edges the player to
        move may cover (in the order they are kept); None if there are none."""
        edges = self.empty_edges
        if not self.has_placed[self.to_move]:
            allowed = self._first_round_cells()
            cells = self._edge_cells
            edges = [e for e in edges if cells[e][0] in allowed or cells[e][1] in allowed]
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
        """Every legal placement, each once in canonical form: pair of cells by pair of
        cells, and on each pair the rack's kinds of tile in rack order, each both ways."""
        if self.over or self.awaiting != "place":
            return []
        pick = self._candidate_edges_getter()
        if pick is None:
            return []
        moves = self._layout.moves
        picked = [pick(table) for k in self._rack_kinds() for table in moves[k]]
        if not picked:
            return []  # an empty rack (only in positions set up by hand)
        # Interleaved by edge with strided slice assignments (C-level copies): the same
        # order as going through the edges one by one, at the cost of copying by table.
        step = len(picked)
        out: list[Placement] = [*picked[0]] * step
        for n, entries in enumerate(picked):
            out[n::step] = entries
        return out

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

    # --- views --------------------------------------------------------------------------

    def view(self, seat: int | None = None) -> GenialView:
        """What ``seat`` may know; ``None`` for a spectator (no rack at all)."""
        rack = tuple(self.racks[seat]) if seat is not None else None
        unseen = Counter(self.bag.order())
        for s, r in enumerate(self.racks):
            if s != seat:
                unseen.update(r)
        return GenialView(
            mode=self.mode,
            players=self.players,
            seat=seat,
            radius=self.setup.radius,
            cap=self.setup.cap,
            board=self.board_colours(),
            start_symbols={self.area.cells[i]: _COLOUR_OF[k] for i, k in self.start_cells.items()},
            scores=tuple(self.score(side) for side in range(self.setup.sides)),
            to_move=None if self.over else self.to_move,
            awaiting=self.awaiting,
            rack=rack,
            rack_sizes=tuple(len(r) for r in self.racks),
            bag_size=len(self.bag),
            unseen=dict(unseen),
            bonus_owed=self.bonus_owed,
            has_placed=tuple(self.has_placed),
            moves=tuple(self.moves),
            last_placements=tuple(self._turn_placements or self.last_placements),
            over=self.over,
            ranking=self.ranking(),
            winner=self.winner,
            version=self.version,
        )

    @classmethod
    def from_view(
        cls, view: GenialView, rng: random.Random, racks: Sequence[Sequence[Tile]] | None = None
    ) -> GenialGame:
        """A full game consistent with ``view``: the tiles it has not seen dealt at random
        to the other racks and the bag (a determinisation, for search by computer players).
        ``racks`` fixes every rack instead (then the bag is the rest of the unseen tiles).

        Raises:
            ValueError: if the view is a spectator's and ``racks`` is not given.
        """
        if racks is None and view.rack is None:
            raise ValueError("a spectator's view needs the racks given")
        game = object.__new__(cls)
        game.setup = setup = Setup.of(view.mode, view.players)
        game._set_out(setup)
        pool: list[Tile] = [
            t for t, n in sorted(view.unseen.items(), key=_by_name) for _ in range(n)
        ]
        if racks is not None:
            for s, r in enumerate(racks):
                if s != view.seat:
                    for t in r:
                        pool.remove(t)
        rng.shuffle(pool)
        new_racks: list[list[Tile]] = []
        for s in range(view.players):
            if racks is not None:
                new_racks.append(list(racks[s]))
            elif s == view.seat and view.rack is not None:
                new_racks.append(list(view.rack))
            else:
                k = view.rack_sizes[s]
                new_racks.append(pool[:k])
                del pool[:k]
        game.racks = new_racks
        game.bag = Bag(pool)
        game.initial_bag = ()
        game._cover_all(view.board)
        game.scores = [[sc[c] for c in COLOURS] for sc in view.scores]
        game.has_placed = list(view.has_placed)
        game.to_move = view.to_move if view.to_move is not None else 0
        game.awaiting = view.awaiting
        game.bonus_owed = view.bonus_owed
        game.over = view.over
        game.winner = view.winner
        game.end_reason = None
        game.moves = list(view.moves)
        game.last_placements = list(view.last_placements)
        game._turn_placements = []
        return game

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
        nbrs = self.area.neighbours
        self.start_touched = {
            s for s in self.start_cells if any(j >= 0 and cells[j] != EMPTY for j in nbrs[s])
        }
        self._points = count_points(cells, self.area)

    # --- playing ------------------------------------------------------------------------

    def parse(self, text: str, seat: int | None = None) -> Placement | SwapChoice:
        """A move in notation; a rack slot stands for a tile of ``seat``'s rack if given.

        Raises:
            NotationError, IllegalMove: as :func:`engine.notation.parse_genial_move`.
        """
        rack = self.racks[seat] if seat is not None else None
        return parse_genial_move(text, self.area, rack)

    def play_text(self, text: str, seat: int | None = None) -> list[Event]:
        """Parse and play a move (see :meth:`parse` and :meth:`play`)."""
        return self.play(self.parse(text, seat), seat)

    def play(self, move: Placement | SwapChoice, seat: int | None = None) -> list[Event]:
        """Play a move for the player to move (or check that it is ``seat``'s turn).

        Returns:
            The events, in order.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is given and another seat must act.
            IllegalMove: the move breaks a rule; ``reason`` says which. The game is unchanged.
        """
        if self.over:
            raise GameOver(self._describe(move))
        if seat is not None and seat != self.to_move:
            raise NotYourTurn(self._describe(move), f"seat {self.to_move} is to move")
        if isinstance(move, SwapChoice):
            if self.awaiting != "swap":
                raise IllegalMove("swap_not_offered", self._describe(move))
            return self._decide_swap(move)
        return self._place(move)

    def _describe(self, move: Placement | SwapChoice) -> str:
        try:
            return format_genial_move(move, self.area)
        except (KeyError, AttributeError, TypeError):
            return repr(move)

    def check(self, move: Placement) -> tuple[int, int, int, int]:
        """Check a placement for the player to move; returns ``(cell1, cell2, c1, c2)`` as
        indexes.

        Raises:
            IllegalMove: with the first broken rule as ``reason``.
        """
        i, j, x, y, _, _ = self._check(move)
        return i, j, x, y

    def _check(self, move: Placement) -> tuple[int, int, int, int, Tile, str]:
        """:meth:`check`, plus the tile and the move's text."""
        if self.awaiting == "swap":
            raise IllegalMove("swap_pending", self._describe(move))
        known = self._layout.where.get(move)
        if known is not None:
            _, i, j, x, y, _ = known
            tile = TILE_KINDS[_KIND_BY_COLOURS[x][y]]
            labels = self.area.labels
            text = f"{COLOUR_LETTERS[x]}{COLOUR_LETTERS[y]} {labels[i]} {labels[j]}"
        else:
            text = self._describe(move)
            i, j = self.area.pair(move.cell1, move.cell2, text)
            x, y = move.first.index, move.second.index
            tile = Tile.of(move.first, move.second)
        if self.board[i] != EMPTY or self.board[j] != EMPTY:
            raise IllegalMove("occupied", text)
        if tile not in self.racks[self.to_move]:
            raise IllegalMove("tile_not_on_rack", text)
        if not self.has_placed[self.to_move]:
            allowed = self._first_round_cells()
            if i not in allowed and j not in allowed:
                raise IllegalMove("first_round", text)
        return i, j, x, y, tile, text

    def _place(self, move: Placement) -> list[Event]:
        i, j, x, y, tile, text = self._check(move)
        seat = self.to_move
        setup = self.setup
        side = setup.side_of(seat)
        events: list[Event] = [Placed(seat, move, bonus=bool(self._turn_placements))]
        # Score on the board as it was, then put the tile down.
        pts = [0] * 6
        pts[x] += self._points[x][i]
        pts[y] += self._points[y][j]
        self.racks[seat].remove(tile)
        self._fill(i, x)
        self._fill(j, y)
        self.has_placed[seat] = True
        self._turn_placements.append(move)
        self.moves.append(text)

        track = self.scores[side]
        gained = {}
        bonuses: list[Event] = []
        for k in (x, y) if x != y else (x,):
            if not pts[k]:
                continue
            old = track[k]
            new = old + pts[k]
            for mark in setup.marks:
                if old < mark <= new:
                    new = mark  # the track stops at the mark; the rest is lost
                    if setup.bonus_placements:
                        bonuses.append(BonusEarned(seat, _COLOUR_OF[k], mark))
                    break
            new = min(new, setup.cap)
            track[k] = new
            gained[_COLOUR_OF[k]] = new - old
        if any(pts):
            points = {_COLOUR_OF[k]: p for k, p in enumerate(pts) if p}
            events.append(Scored(seat, side, points, gained, self.score(side)))
        events += bonuses

        if min(track) == setup.cap:
            self.winner = side
            return events + self._end("immediate_win")
        if not self.empty_edges:
            return events + self._end("board_full")
        self.bonus_owed += len(bonuses)
        if self.bonus_owed:
            if self.racks[seat]:
                self.bonus_owed -= 1
                return events
            events.append(BonusLost(seat, self.bonus_owed))
            self.bonus_owed = 0
        return events + self._after_placements()

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
        board = self.board
        board[cell] = colour
        self.cell_order.append(cell)
        self._drop_edges(cell)
        for s in self._layout.near_start[cell]:
            self.start_touched.add(s)
        raise_points(board, self._points[colour], self._rays[cell], colour)

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

    def _after_placements(self) -> list[Event]:
        seat = self.to_move
        rack = self.racks[seat]
        if self.setup.swaps and rack:
            lowest = self.lowest_colours(self.setup.side_of(seat))
            shown = {c for t in rack for c in t}
            if shown.isdisjoint(lowest):
                self.awaiting = "swap"
                return [SwapOffered(seat, lowest)]
        return self._refill_and_pass([])

    def _decide_swap(self, choice: SwapChoice) -> list[Event]:
        seat = self.to_move
        self.moves.append("swap" if choice.swap else "keep")
        self.awaiting = "place"
        events: list[Event]
        if choice.swap:
            rack = self.racks[seat]
            self.bag.put_back(rack)
            events = [Swapped(seat, len(rack))]
            self.racks[seat] = []
        else:
            events = [Kept(seat)]
        return self._refill_and_pass(events)

    def _refill_and_pass(self, events: list[Event]) -> list[Event]:
        seat = self.to_move
        rack = self.racks[seat]
        drawn = self.bag.draw(self.setup.rack_size - len(rack))
        rack.extend(drawn)
        events.append(Refilled(seat, len(drawn), len(self.bag)))
        self.awaiting = "place"
        self.last_placements = self._turn_placements
        self._turn_placements = []
        nxt = (seat + 1) % self.players
        self.to_move = nxt
        if not self.racks[nxt] and not len(self.bag):
            return events + self._end("out_of_tiles")
        events.append(TurnStarted(nxt))
        return events

    # --- play-outs ------------------------------------------------------------------------

    def play_spot(self, spot: PlacementSpot) -> None:
        """Play a placement listed by :meth:`placement_groups` for the player to move, as
        :meth:`play` would, but without its checks, events and record: for the play-outs
        of computer players, which make thousands of placements a move and read only the
        position. ``moves``, ``last_placements`` and ``end_reason`` are left as they were;
        everything else (board, points, racks, bag, scores, bonus placements owed, the swap
        offer, the turn, the end) ends as after :meth:`play`."""
        _, i, j, x, y, _ = spot
        seat = self.to_move
        setup = self.setup
        track = self.scores[setup.side_of(seat)]
        points = self._points
        a = points[x][i]
        b = points[y][j]
        self.racks[seat].remove(TILE_KINDS[_KIND_BY_COLOURS[x][y]])
        self._fill(i, x)
        self._fill(j, y)
        self.has_placed[seat] = True
        earned = self._score(track, x, y, a, b)
        if min(track) == setup.cap:
            self.winner = setup.side_of(seat)
            self._end_quietly()
            return
        if not self.empty_edges:
            self._end_quietly()
            return
        self.bonus_owed += earned
        if self.bonus_owed:
            if self.racks[seat]:
                self.bonus_owed -= 1
                return
            self.bonus_owed = 0
        rack = self.racks[seat]
        if setup.swaps and rack:
            low = min(track)
            shown = {c for t in rack for c in _KIND_COLOURS[KIND_OF[t]]}
            if all(track[c] != low for c in shown):
                self.awaiting = "swap"
                return
        self._refill_quietly()

    def _score(self, track: list[int], x: int, y: int, a: int, b: int) -> int:
        """Add to ``track`` what a tile scores with ``a`` points in colour ``x`` and ``b`` in
        ``y`` (a double: ``a + b`` in its colour), each colour stopping at the next mark
        and at the cap (RULES.md 2.5, 2.7); returns the bonus placements it earns."""
        setup = self.setup
        earned = 0
        for k, p in ((x, a + b),) if x == y else ((x, a), (y, b)):
            if not p:
                continue
            old = track[k]
            new = old + p
            for mark in setup.marks:
                if old < mark <= new:
                    new = mark
                    if setup.bonus_placements:
                        earned += 1
                    break
            track[k] = min(new, setup.cap)
        return earned

    def scores_after(self, spot: PlacementSpot) -> list[int]:
        """The scores of the mover's side after a placement listed by
        :meth:`placement_groups` (as :meth:`play` would leave them), without playing it."""
        _, i, j, x, y, _ = spot
        track = self.scores[self.setup.side_of(self.to_move)].copy()
        points = self._points
        self._score(track, x, y, points[x][i], points[y][j])
        return track

    def swap_quietly(self, swap: bool) -> None:
        """Decide an offered swap as :meth:`play` would, without events or record."""
        self.awaiting = "place"
        if swap:
            rack = self.racks[self.to_move]
            self.bag.put_back(rack)
            self.racks[self.to_move] = []
        self._refill_quietly()

    def _refill_quietly(self) -> None:
        seat = self.to_move
        rack = self.racks[seat]
        rack.extend(self.bag.draw(self.setup.rack_size - len(rack)))
        self.awaiting = "place"
        nxt = (seat + 1) % self.setup.players
        self.to_move = nxt
        if not self.racks[nxt] and not len(self.bag):
            self._end_quietly()

    def _end_quietly(self) -> None:
        self.over = True
        self.awaiting = None
        self.bonus_owed = 0

    def _end(self, reason: str) -> list[Event]:
        self.over = True
        self.awaiting = None
        self.bonus_owed = 0
        if self._turn_placements:
            self.last_placements = self._turn_placements
            self._turn_placements = []
        ranking = self.ranking()
        assert ranking is not None
        self.end_reason = reason
        return [GameEnded(reason, ranking, self.winner)]

    # --- records ------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        mode: str,
        players: int,
        moves: Sequence[str],
        bag: Sequence[Tile] | None = None,
        seed: int | None = None,
    ) -> GenialGame:
        """The game that a setup and its moves (in record notation) reach.

        Raises:
            ValueError: for a bad setup.
            NotationError, IllegalMove: from the first bad move; its 0-based number is in
                the exception's ``move_number``.
        """
        game = cls(players, mode, bag, seed)
        for n, text in enumerate(moves):
            with at_move(n):
                game.play_text(text)
        return game

    def record(self, with_bag: bool = True) -> dict[str, object]:
        """The game record (RECORD.md); ``with_bag=False`` leaves out the draw order."""
        rec: dict[str, object] = {"game": "genial", "mode": self.mode, "players": self.players}
        if with_bag:
            rec["bag"] = [t.name for t in self.initial_bag]
        rec["moves"] = list(self.moves)
        return rec
