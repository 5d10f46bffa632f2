"""The Genial heuristic shared by the computer players: what points in a colour are worth
(the value of a score track and its tables, in :mod:`engine.ai.tracks`), the best value each
kind of tile can make on a board, and the expected best of the tiles a rack will draw.

Everything here works on cell indexes of the playing area and colour indexes, for speed:
a placement's value is two table look-ups, and the best value each of the 21 kinds of tile
can make anywhere on the board costs a few thousand of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import add, itemgetter

from engine.ai import kernel as _kernel
from engine.ai.tracks import DEFAULT_WEIGHTS as DEFAULT_WEIGHTS
from engine.ai.tracks import Weights as Weights
from engine.ai.tracks import gain_rows as gain_rows
from engine.ai.tracks import gain_tables as gain_tables
from engine.ai.tracks import monotone_rows as monotone_rows
from engine.ai.tracks import padded_rows as padded_rows
from engine.ai.tracks import track_value as track_value
from engine.genial import EMPTY
from engine.hexgrid import Area
from engine.tiles import TILE_KINDS, Tile

#: The kinds of tile by index, and each kind's colour indexes.
KIND_INDEX: dict[Tile, int] = {t: k for k, t in enumerate(TILE_KINDS)}
KIND_COLOURS: tuple[tuple[int, int], ...] = tuple(
    (t.first.index, t.second.index) for t in TILE_KINDS
)
NO_ROOM = -1.0e9  # the value of a tile that cannot be placed at all


def placement_value(
    tables: Sequence[Sequence[float]], cap: int, x: int, y: int, a: int, b: int
) -> float:
    """The value of a placement scoring ``a`` in colour ``x`` and ``b`` in colour ``y``."""
    if x == y:
        return tables[x][min(a + b, cap)]
    return tables[x][min(a, cap)] + tables[y][min(b, cap)]


def first_round_cells(board: Sequence[int], area: Area, start_cells: Iterable[int]) -> set[int]:
    """Empty cells next to a start symbol that no tile touches yet (RULES.md 2.3)."""
    nbrs = area.neighbours
    allowed: set[int] = set()
    for s in start_cells:
        around = [j for j in nbrs[s] if j >= 0]
        if all(board[j] == EMPTY for j in around):
            allowed.update(around)
    return allowed


def tile_values(
    board: Sequence[int],
    area: Area,
    points: Sequence[Sequence[int] | None],
    tables: Sequence[Sequence[float]],
    cap: int,
    allowed: set[int] | None = None,
) -> list[float]:
    """For each kind of tile (by index into ``TILE_KINDS``), the best value a placement of it
    can make on this board; ``NO_ROOM`` where it fits nowhere.

    Args:
        board: colour index per cell, ``EMPTY`` for empty cells.
        points: ``GenialGame.cell_points()`` of that board.
        tables: ``gain_tables()`` of the side that would place.
        allowed: for a first placement, the cells one of its hexes must cover.
    """
    nbrs = area.neighbours
    if allowed is not None:
        return _tile_values_restricted(board, area, points, tables, cap, allowed)
    # values[i][c]: the value of a hex of colour c on empty cell i.
    values: dict[int, list[float]] = {}
    for i, pts in enumerate(points):
        if pts is not None:
            values[i] = [tables[c][min(p, cap)] for c, p in enumerate(pts)]
    # best_next[i][c]: the best value of a hex of colour c on an empty neighbour of i.
    best_next: dict[int, list[float]] = {}
    doubles = [NO_ROOM] * 6
    for i in values:
        around = [j for j in nbrs[i] if j >= 0 and board[j] == EMPTY]
        if not around:
            continue
        best_next[i] = [max(col) for col in zip(*(values[j] for j in around), strict=True)]
        pi = points[i]
        assert pi is not None
        for j in around:
            if j > i:
                pj = points[j]
                assert pj is not None
                for c in range(6):
                    v = tables[c][min(pi[c] + pj[c], cap)]
                    if v > doubles[c]:
                        doubles[c] = v
    out = []
    for x, y in KIND_COLOURS:
        if x == y:
            out.append(doubles[x])
        else:
            out.append(max((values[i][x] + bn[y] for i, bn in best_next.items()), default=NO_ROOM))
    return out


def best_spot(
    board: Sequence[int],
    area: Area,
    points: Sequence[Sequence[int] | None],
    tables: Sequence[Sequence[float]],
    cap: int,
    kind: int,
    allowed: set[int] | None = None,
) -> tuple[int, int] | None:
    """Where a tile of ``kind`` makes its best value: ``(cell of its first colour, cell of
    its second)``, the first such pair in cell order; None if it fits nowhere."""
    x, y = KIND_COLOURS[kind]
    nbrs = area.neighbours
    best = NO_ROOM
    spot = None
    for i, pi in enumerate(points):
        if pi is None:
            continue
        for j in nbrs[i]:
            if j < 0 or board[j] != EMPTY:
                continue
            if allowed is not None and i not in allowed and j not in allowed:
                continue
            pj = points[j]
            assert pj is not None
            v = placement_value(tables, cap, x, y, pi[x], pj[y])
            if v > best:
                best, spot = v, (i, j)
    return spot


def _none(seq: Sequence[int]) -> tuple[int, ...]:
    return ()


def _getter(idx: Sequence[int]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """What picks ``(seq[k] for k in idx)`` out of a sequence as a tuple, in one C-level
    call."""
    if len(idx) > 1:
        return itemgetter(*idx)
    if idx:
        only = idx[0]
        return lambda seq: (seq[only],)
    return _none


def _look(row: Sequence[float], idx: Sequence[int]) -> Sequence[float]:
    """``[row[k] for k in idx]`` in one C-level call."""
    if len(idx) > 1:
        return itemgetter(*idx)(row)  # type: ignore[no-any-return]
    if idx:
        return (row[idx[0]],)
    return ()


class EdgePoints:
    """The points of every placement on the empty adjacent pairs of a board, by colour:
    what the best value of each kind of tile depends on, whatever the side's tables.

    Placement number ``k`` (of ``2 * count``) puts its first colour on the lower cell of
    pair ``k`` and its second on the higher one (``k < count``), or the other way round on
    pair ``k - count``. Its value is ``table[x][first[x][k]] + table[y][second[y][k]]``
    (doubles: ``table[x][low[x][k] + high[x][k]]`` on pair ``k``).

    With tables that are 0 for no points and never fall as points grow (checked by
    :func:`monotone_rows`), a placement scoring nothing in either colour is worth exactly
    0 and nothing is worth less, so the best of a kind is the best over the few placements
    that score in its first colour or in its second (``hot``), or 0, and the best double is
    the table at the most points any pair gives. That is exactly the value
    :func:`tile_values` finds over every cell and neighbour (the sum of floats is monotone,
    so the order of work does not change a maximum), at a fraction of the look-ups.
    """

    __slots__ = (
        "board",
        "built",
        "count",
        "double_best",
        "first",
        "first_hot",
        "high",
        "high_cells",
        "hot",
        "low",
        "low_cells",
        "points",
        "second",
        "second_hot",
    )

    def __init__(
        self,
        board: Sequence[int],
        points: Sequence[Sequence[int]],
        low_cells: Sequence[int],
        high_cells: Sequence[int],
    ) -> None:
        self.board = board
        #: Each colour's points by cell (what the C loops read directly).
        self.points = points
        #: The pairs' lower and higher cells.
        self.low_cells = low_cells
        self.high_cells = high_cells
        self.count = len(low_cells)
        #: Whether the per-colour lists below were made (only the pure-Python loops need
        #: them: :meth:`build`).
        self.built = False

    def build(self) -> EdgePoints:
        """Make the per-colour lists the pure-Python loops read (once); returns itself."""
        if self.built:
            return self
        self.built = True
        points = self.points
        low_cells, high_cells = self.low_cells, self.high_cells
        n = self.count
        at_low = _getter(low_cells)
        at_high = _getter(high_cells)
        #: low[c][k], high[c][k]: the points colour ``c`` scores on pair ``k``'s cells.
        self.low = low = [at_low(column) for column in points]
        self.high = high = [at_high(column) for column in points]
        #: first[c][k], second[c][k]: the points of colour ``c`` as placement ``k``'s first
        #: colour, and as its second.
        self.first = first = [a + b for a, b in zip(low, high, strict=True)]
        self.second = second = [b + a for a, b in zip(low, high, strict=True)]
        # The pairs where each colour scores on the lower cell and on the higher one (one
        # pass over the pairs each); as placements, a pair ``k`` is placement ``k`` one way
        # round and ``k + n`` the other.
        pairs = range(n)
        on_low = [list(compress(pairs, column)) for column in low]
        on_high = [list(compress(pairs, column)) for column in high]
        shift = n.__add__
        hot_first = [a + list(map(shift, b)) for a, b in zip(on_low, on_high, strict=True)]
        hot_second = [b + list(map(shift, a)) for a, b in zip(on_low, on_high, strict=True)]
        # One getter per colour and side, called for every kind it is in.
        at_first = [_getter(h) for h in hot_first]
        at_second = [_getter(h) for h in hot_second]
        #: first_hot[x]: the points of colour ``x`` on the placements scoring in it as their
        #: first colour; second_hot[y]: of ``y`` on those scoring in it as their second
        #: (shared by every kind with that colour there).
        self.first_hot = [g(column) for g, column in zip(at_first, first, strict=True)]
        self.second_hot = [g(column) for g, column in zip(at_second, second, strict=True)]
        #: hot[kind]: (placements scoring in the first colour, and in the second), each as
        #: (those placements, their points in the first colour, in the second).
        self.hot: dict[int, tuple[tuple[Sequence[int], Sequence[int], Sequence[int]], ...]] = {}
        for k, (x, y) in enumerate(KIND_COLOURS):
            if x != y:
                self.hot[k] = (
                    (hot_first[x], self.first_hot[x], at_first[x](second[y])),
                    (hot_second[y], at_second[y](first[x]), self.second_hot[y]),
                )
        #: The most points a double of each colour scores anywhere.
        #: (Over the pairs scoring in it: any other scores 0.)
        self.double_best = [
            max(map(add, hot, g(column)), default=0)
            for hot, g, column in zip(self.first_hot, at_first, second, strict=True)
        ]
        return self

    def cells(self, k: int) -> tuple[int, int]:
        """Placement ``k``'s cells: (its first colour's, its second's)."""
        n = self.count
        if k < n:
            return self.low_cells[k], self.high_cells[k]
        return self.high_cells[k - n], self.low_cells[k - n]


class EdgeValues:
    """:class:`EdgePoints` through one side's padded tables (:func:`padded_rows`)."""

    __slots__ = ("edges", "monotone", "padded", "values")

    def __init__(
        self, edges: EdgePoints, padded: Sequence[Sequence[float]], monotone: bool
    ) -> None:
        self.edges = edges
        self.padded = padded
        self.monotone = monotone
        self.values: list[float] | None = None

    def tile_values(self) -> list[float]:
        """:func:`tile_values` of this board and tables (without a first-round limit)."""
        if self.values is None:
            fast = _kernel.kernel
            if fast is not None:
                e = self.edges
                found = fast.tile_values(
                    e.points, e.low_cells, e.high_cells, self.padded, KIND_COLOURS
                )
                self.values = [NO_ROOM] * len(KIND_COLOURS) if found is None else found
            else:
                self.values = self._sparse() if self.monotone else self._dense()
        return self.values

    def _sparse(self) -> list[float]:
        edges = self.edges.build()
        if not edges.count:
            return [NO_ROOM] * len(KIND_COLOURS)
        padded = self.padded
        hot = edges.hot
        double_best = edges.double_best
        # The values of each colour on the placements scoring in it first, and second.
        first = [_look(row, pts) for row, pts in zip(padded, edges.first_hot, strict=True)]
        second = [_look(row, pts) for row, pts in zip(padded, edges.second_hot, strict=True)]
        out = []
        for k, (x, y) in enumerate(KIND_COLOURS):
            if x == y:
                out.append(padded[x][double_best[x]])
                continue
            (_, _, b1), (_, a2, _) = hot[k]
            v1 = max(map(add, first[x], _look(padded[y], b1)), default=0.0)
            v2 = max(map(add, _look(padded[x], a2), second[y]), default=0.0)
            out.append(v1 if v1 >= v2 else v2)
        return out

    def _dense(self) -> list[float]:
        edges = self.edges.build()
        if not edges.count:
            return [NO_ROOM] * len(KIND_COLOURS)
        padded = self.padded
        first = [
            list(map(row.__getitem__, pts)) for row, pts in zip(padded, edges.first, strict=True)
        ]
        second = [
            list(map(row.__getitem__, pts)) for row, pts in zip(padded, edges.second, strict=True)
        ]
        out = []
        for x, y in KIND_COLOURS:
            if x == y:
                out.append(max(map(padded[x].__getitem__, map(add, edges.low[x], edges.high[x]))))
            else:
                out.append(max(map(add, first[x], second[y])))
        return out

    def best_spot(self, kind: int, neighbours: Sequence[Sequence[int]]) -> tuple[int, int] | None:
        """:func:`best_spot` of this board and tables (without a first-round limit): the
        first pair in cell order (by the first colour's cell, then the direction of the
        second's) among those of the best value."""
        x, y = KIND_COLOURS[kind]
        fast = _kernel.kernel
        if fast is not None:
            e = self.edges
            spot: tuple[int, int] | None = fast.best_spot(
                e.points, e.low_cells, e.high_cells, self.padded, x, y, neighbours
            )
            return spot
        edges = self.edges.build()
        n = edges.count
        if not n:
            return None
        best = self.tile_values()[kind]
        if self.monotone and best == 0.0:
            # Every placement is worth 0: the first pair in cell order (the lowest cell's
            # pairs, by direction: not every empty neighbour when the pairs are a subset).
            i = min(min(edges.low_cells), min(edges.high_cells))
            others = [b for a, b in zip(edges.low_cells, edges.high_cells, strict=True) if a == i]
            others += [a for a, b in zip(edges.low_cells, edges.high_cells, strict=True) if b == i]
            return i, min(others, key=neighbours[i].index)
        tx = self.padded[x].__getitem__
        if x == y:
            values = list(map(tx, map(add, edges.low[x], edges.high[x])))
            places = list(compress(range(n), map(best.__eq__, values)))
            places += [k + n for k in places]
        elif self.monotone:
            ty = self.padded[y].__getitem__
            places = []
            for h, a, b in edges.hot[kind]:
                values = list(map(add, map(tx, a), map(ty, b)))
                places += compress(h, map(best.__eq__, values))
        else:
            ty = self.padded[y].__getitem__
            values = list(map(add, map(tx, edges.first[x]), map(ty, edges.second[y])))
            places = list(compress(range(2 * n), map(best.__eq__, values)))
        tied = [edges.cells(k) for k in places]
        return min(tied, key=lambda ij: (ij[0], neighbours[ij[0]].index(ij[1])))


def _tile_values_restricted(
    board: Sequence[int],
    area: Area,
    points: Sequence[Sequence[int] | None],
    tables: Sequence[Sequence[float]],
    cap: int,
    allowed: set[int],
) -> list[float]:
    out = [NO_ROOM] * len(KIND_COLOURS)
    nbrs = area.neighbours
    for i in allowed:
        pi = points[i]
        if pi is None:
            continue
        for j in nbrs[i]:
            if j < 0 or board[j] != EMPTY:
                continue
            pj = points[j]
            assert pj is not None
            for k, (x, y) in enumerate(KIND_COLOURS):
                v = max(
                    placement_value(tables, cap, x, y, pi[x], pj[y]),
                    placement_value(tables, cap, x, y, pj[x], pi[y]),
                )
                if v > out[k]:
                    out[k] = v
    return out


def best_distribution(
    values: Sequence[float], counts: Sequence[int], draws: int
) -> list[tuple[int, float]]:
    """The chance that each kind is the best of ``draws`` tiles drawn at random without
    replacement from a pool holding ``counts[k]`` tiles of kind ``k``: ``(kind, chance)``
    pairs, best kind first, kinds that cannot be best left out.

    Exact (hypergeometric): the chance that the ``i``-th best kind is the best drawn is the
    chance of missing all better kinds minus that of missing them and it too.
    """
    fast = _kernel.kernel
    if fast is not None:
        found: list[tuple[int, float]] | None = fast.best_distribution(values, counts, draws)
        if found is not None:
            return found
    total = sum(counts)
    draws = min(draws, total)
    if draws <= 0:
        return []
    ways = math.comb(total, draws)
    # Best first, equal values in kind order (a reversed sort keeps equal keys in order).
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    out = []
    p_missed = 1.0  # the chance that every kind considered so far was missed
    removed = 0
    for k in order:
        if not counts[k]:
            continue
        removed += counts[k]
        p_next = math.comb(total - removed, draws) / ways
        out.append((k, p_missed - p_next))
        p_missed = p_next
        if p_missed <= 0.0:
            break
    return out


def expected_best(
    values: Sequence[float], counts: Sequence[int], draws: int, known: float = NO_ROOM
) -> float:
    """The expected best of ``known`` and the values of ``draws`` tiles drawn at random
    without replacement from a pool holding ``counts[k]`` tiles of kind ``k`` (exact)."""
    fast = _kernel.kernel
    if fast is not None:
        best: float | None = fast.expected_best(values, counts, draws, known, NO_ROOM)
        if best is not None:
            return best
    expected = 0.0
    p_left = 1.0
    for k, p in best_distribution(values, counts, draws):
        v = values[k]
        if v <= known:
            break
        expected += v * p
        p_left -= p
    if known > NO_ROOM:
        expected += known * p_left
    elif p_left >= 1.0:
        return 0.0
    return expected
