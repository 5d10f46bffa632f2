"""The Genial heuristic shared by the computer players: what points in a colour are worth.

The result of a game is a side's lowest colour, ties going to the next lowest (RULES.md 2.9),
so a point is worth more the lower its colour stands. The value of a track is
``sum(g(score))`` with ``g`` concave (``g(x) = -tau * exp(-x / tau)``, so a point at 0 is
worth 1 and a point ``tau`` higher about a third of that); a placement that takes a colour
to a mark (18, or 36 on the long tracks) also gets the value of the bonus placement it earns.

Everything here works on cell indexes of the playing area and colour indexes, for speed:
a placement's value is two table look-ups, and the best value each of the 21 kinds of tile
can make anywhere on the board costs a few thousand of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.genial import EMPTY, Setup
from engine.hexgrid import Area
from engine.tiles import TILE_KINDS, Tile

#: The kinds of tile by index, and each kind's colour indexes.
KIND_INDEX: dict[Tile, int] = {t: k for k, t in enumerate(TILE_KINDS)}
KIND_COLOURS: tuple[tuple[int, int], ...] = tuple(
    (t.first.index, t.second.index) for t in TILE_KINDS
)
NO_ROOM = -1.0e9  # the value of a tile that cannot be placed at all


@dataclass(frozen=True, slots=True)
class Weights:
    """Tunable numbers of the heuristic (defaults chosen by playing matches)."""

    #: ``tau`` of ``g`` as a share of the first mark (18): 1/3 makes tau 6 on a standard track.
    tau_share: float = 1 / 3
    #: A bonus placement is worth this many points scored in the side's lowest colour.
    bonus_points: float = 5.0


DEFAULT_WEIGHTS = Weights()


def track_value(track: Sequence[int], setup: Setup, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The value of a side's six scores (higher is better)."""
    tau = setup.marks[0] * weights.tau_share
    return sum(-tau * math.exp(-s / tau) for s in track)


def gain_tables(
    track: Sequence[int], setup: Setup, weights: Weights = DEFAULT_WEIGHTS
) -> list[list[float]]:
    """``tables[c][p]``: the value of scoring ``p`` points in colour ``c`` now, for
    ``p`` from 0 to the cap (more points than the cap are worth no more than the cap)."""
    return [list(row) for row in gain_rows(tuple(track), setup, weights)]


@lru_cache(maxsize=512)
def gain_rows(
    track: tuple[int, ...], setup: Setup, weights: Weights = DEFAULT_WEIGHTS
) -> tuple[tuple[float, ...], ...]:
    """:func:`gain_tables` as tuples, remembered: a side's scores change a few times a
    game, and the players ask for the same tables move after move."""
    tau = setup.marks[0] * weights.tau_share

    def g(x: float) -> float:
        return -tau * math.exp(-x / tau)

    low = min(track)
    bonus = (g(low + weights.bonus_points) - g(low)) if setup.bonus_placements else 0.0
    tables = []
    for old in track:
        base = g(old)
        row = []
        for p in range(setup.cap + 1):
            new = old + p
            value = 0.0
            for mark in setup.marks:
                if old < mark <= new:
                    new = mark  # the track stops at the mark (RULES.md 2.5, 2.7)
                    value = bonus
                    break
            new = min(new, setup.cap)
            row.append(value + g(new) - base)
        tables.append(tuple(row))
    return tuple(tables)


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
    total = sum(counts)
    draws = min(draws, total)
    if draws <= 0:
        return []
    ways = math.comb(total, draws)
    order = sorted(range(len(values)), key=lambda k: -values[k])
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
