"""What the Genial computer players share, and the greedy player's search: the full game
a seat's view deals (:func:`determinise`), and every legal placement valued one placement
ahead with the heuristic of :mod:`engine.ai.evaluation`, the best found without listing
them all (:func:`greedy_spot`)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from itertools import compress
from operator import add, itemgetter, neg

from engine.ai import kernel as _kernel
from engine.ai.evaluation import (
    DEFAULT_WEIGHTS,
    KIND_COLOURS,
    KIND_INDEX,
    EdgePoints,
    Weights,
    padded_rows,
)
from engine.genial import KIND_OF, GenialGame, GenialView, PlacementGroup, PlacementSpot
from engine.moves import Placement, SwapChoice
from engine.tiles import TILE_KINDS, Tile

GenialMove = Placement | SwapChoice
#: The value of a finished game won (lost: minus this), far above any heuristic value.
WIN = 1000.0
_ORDER = itemgetter(5)  # PlacementSpot.order


def tile_order(tile: Tile) -> int:
    return KIND_INDEX[tile]


def placement_key(p: Placement) -> tuple[int, int, int, int, int, int]:
    """A fixed order of placements, so that ties are broken the same way for every record."""
    return (p.cell1.r, p.cell1.q, p.cell2.r, p.cell2.q, p.first.index, p.second.index)


def determinise(view: GenialView, rng: random.Random) -> GenialGame:
    """A full game consistent with ``view``: the unseen tiles dealt at random to the other
    racks and the bag. Depends on the view only (the unseen tiles are put in a fixed order
    before shuffling, and the own rack is sorted), so where the unseen tiles really lie
    cannot change it.

    Raises:
        ValueError: for a spectator's view (it has no rack to play from).
    """
    if view.rack is None or view.seat is None:
        raise ValueError("a computer player needs the view of a seat, not a spectator's")
    own = tuple(sorted(view.rack, key=tile_order))
    return GenialGame.from_view(dataclasses.replace(view, rack=own), rng)


def check_turn(view: GenialView) -> None:
    """Raises ValueError unless the view's seat must act now."""
    if view.over:
        raise ValueError("the game is over: there is no move to choose")
    if view.seat is None or view.rack is None:
        raise ValueError("a computer player needs the view of a seat, not a spectator's")
    if view.to_move != view.seat:
        raise ValueError(f"seat {view.seat} is not to move (seat {view.to_move} is)")


def unseen_counts(view: GenialView) -> list[int]:
    """How many of each kind of tile the seat has not seen, by kind index."""
    return [view.unseen.get(t, 0) for t in TILE_KINDS]


def _group_values(game: GenialGame, weights: Weights) -> list[tuple[PlacementGroup, list[float]]]:
    """Every legal placement's heuristic value, by group of :meth:`GenialGame.placement_groups`
    (looked up with ``map``: a few C-level passes per group, no Python step per placement)."""
    padded = padded_rows(tuple(game.scores[game.side_of(game.to_move)]), game.setup, weights)
    points = game.colour_points()
    by_cell: dict[int, list[float]] = {}
    out = []
    for group in game.placement_groups():
        x, y, cells1, cells2, _ = group
        if x == y:
            px = points[x]
            sums = map(add, map(px.__getitem__, cells1), map(px.__getitem__, cells2))
            values = list(map(padded[x].__getitem__, sums))
        else:
            for c in (x, y):
                if c not in by_cell:
                    by_cell[c] = list(map(padded[c].__getitem__, points[c]))
            vx = by_cell[x]
            vy = by_cell[y]
            values = list(map(add, map(vx.__getitem__, cells1), map(vy.__getitem__, cells2)))
        out.append((group, values))
    return out


def _ranked(spots: list[PlacementSpot], values: list[float]) -> list[tuple[Placement, float]]:
    """``spots`` with their values, best first, equal values in the fixed order of
    :func:`placement_key` (two sorts on plain numbers, which are fast: the fixed order
    first, then stably by value)."""
    orders = list(map(_ORDER, spots))
    negated = list(map(neg, values))
    ranked = sorted(range(len(spots)), key=orders.__getitem__)
    ranked.sort(key=negated.__getitem__)
    return [(spots[n].placement, values[n]) for n in ranked]


def rank_placements(
    game: GenialGame, weights: Weights = DEFAULT_WEIGHTS
) -> list[tuple[Placement, float]]:
    """Every legal placement of the player to move with its heuristic value, best first
    (equal values in the fixed order of :func:`placement_key`)."""
    spots: list[PlacementSpot] = []
    values: list[float] = []
    for group, group_values in _group_values(game, weights):
        spots += group.spots
        values += group_values
    return _ranked(spots, values)


def top_placements(
    game: GenialGame, weights: Weights = DEFAULT_WEIGHTS
) -> list[tuple[Placement, float]]:
    """The placements of :func:`rank_placements` tied for best, in its order (without
    ranking all the others)."""
    groups = _group_values(game, weights)
    best = max((max(values) for _, values in groups if values), default=None)
    if best is None:
        return []
    cut = best - 1e-9
    spots: list[PlacementSpot] = []
    values: list[float] = []
    for group, group_values in groups:
        tied = list(map(cut.__le__, group_values))
        spots += compress(group.spots, tied)
        values += compress(group_values, tied)
    return _ranked(spots, values)


def pick_best(ranked: Sequence[tuple[Placement, float]], rng: random.Random) -> Placement:
    """The best placement; a random one of those tied for best."""
    best = ranked[0][1]
    tied = [p for p, v in ranked if v >= best - 1e-9]
    return tied[0] if len(tied) == 1 else rng.choice(tied)


def _empty_pairs(game: GenialGame) -> EdgePoints:
    """The points on the empty pairs of the game's board (first-round limits aside)."""
    layout = game._layout
    edges = game.empty_edges
    if len(edges) > 1:
        pick = itemgetter(*edges)
        return EdgePoints(game.board, game._points, pick(layout.low_cells), pick(layout.high_cells))
    low = [layout.low_cells[e] for e in edges]
    high = [layout.high_cells[e] for e in edges]
    return EdgePoints(game.board, game._points, low, high)


def _allowed_pairs(game: GenialGame, allowed: set[int]) -> EdgePoints:
    """The points on the empty pairs of the game's board with a cell in ``allowed``."""
    layout = game._layout
    low = layout.low_cells
    high = layout.high_cells
    edges = [e for e in game.empty_edges if low[e] in allowed or high[e] in allowed]
    return EdgePoints(game.board, game._points, [low[e] for e in edges], [high[e] for e in edges])


def greedy_spot(game: GenialGame, weights: Weights, rng: random.Random) -> PlacementSpot:
    """``pick_best(top_placements(game, weights), rng)`` as a spot, found without listing
    every placement: the best value of each kind on the rack over the empty pairs, and the
    placements tied for best listed only for the kinds that reach it (the same placements
    in the same order, so the same random choice).

    Raises:
        IndexError: if there is no legal placement (as :func:`pick_best` does).
    """
    seat = game.to_move
    if not game.has_placed[seat]:  # the first-round limit: the general way
        return game._layout.where[pick_best(top_placements(game, weights), rng)]
    if not game.empty_edges:
        raise IndexError("no legal placement")
    padded = padded_rows(tuple(game.scores[game.side_of(seat)]), game.setup, weights)
    layout = game._layout
    edges = game.empty_edges
    points = game._points
    spots = layout.spots
    tied: list[PlacementSpot]
    tied_values: list[float]
    if len(edges) > 1:
        pick = itemgetter(*edges)
        low, high = pick(layout.low_cells), pick(layout.high_cells)
    else:
        low, high = (layout.low_cells[edges[0]],), (layout.high_cells[edges[0]],)
    fast = _kernel.kernel
    if fast is not None:  # the same tied placements in the same order, from the C loops
        ways: list[tuple[int, int]] = []
        shapes: list[tuple[int, int, int]] = []
        for t in dict.fromkeys(game.racks[seat]):
            k = KIND_OF[t]
            x, y = KIND_COLOURS[k]
            for w in (0,) if x == y else (0, 1):
                ways.append((k, w))
                shapes.append((x, y, w))
        best, found = fast.greedy_tied(points, low, high, padded, shapes)
        tied = [spots[ways[g][0]][ways[g][1]][edges[e]] for g, e, _ in found]
        tied_values = [v for _, _, v in found]
        return _pick_tied(tied, tied_values, best, rng)
    # Only the colours on the rack, each looked up once per pair: the pair's cells' points
    # picked out with one C-level call, and their values with another.
    vlow: dict[int, Sequence[float]] = {}
    vhigh: dict[int, Sequence[float]] = {}
    if len(edges) > 1:
        at_low = itemgetter(*low)
        at_high = itemgetter(*high)

        def look(c: int) -> None:
            row = padded[c]
            vlow[c] = itemgetter(*at_low(points[c]))(row)
            vhigh[c] = itemgetter(*at_high(points[c]))(row)

    else:

        def look(c: int) -> None:
            row = padded[c]
            vlow[c] = (row[points[c][low[0]]],)
            vhigh[c] = (row[points[c][high[0]]],)

    # (kind, way, values) of the doubles; (kind, way, first values, second values) of others.
    groups: list[tuple[int, int, Sequence[float], Sequence[float] | None]] = []
    for t in dict.fromkeys(game.racks[seat]):
        k = KIND_OF[t]
        x, y = KIND_COLOURS[k]
        if x == y:
            px = points[x].__getitem__
            way = list(map(padded[x].__getitem__, map(add, map(px, low), map(px, high))))
            groups.append((k, 0, way, None))
            continue
        if x not in vlow:
            look(x)
        if y not in vlow:
            look(y)
        groups.append((k, 0, vlow[x], vhigh[y]))
        groups.append((k, 1, vhigh[x], vlow[y]))
    # The best of each way first (no list), the values listed only for the ways at the top.
    tops = [max(a) if b is None else max(map(add, a, b)) for _, _, a, b in groups]
    best = max(tops)
    cut = best - 1e-9
    tied = []
    tied_values = []
    for (k, w, a, b), top in zip(groups, tops, strict=True):
        if top >= cut:
            values = a if b is None else list(map(add, a, b))
            high_enough = list(map(cut.__le__, values))
            tied += map(spots[k][w].__getitem__, compress(edges, high_enough))
            tied_values += compress(values, high_enough)
    return _pick_tied(tied, tied_values, best, rng)


def _pick_tied(
    tied: list[PlacementSpot], tied_values: list[float], best: float, rng: random.Random
) -> PlacementSpot:
    """:func:`pick_best`'s choice among the placements within 1e-9 of the best value."""
    if len(tied) == 1:
        return tied[0]
    if min(tied_values) == best:  # all equal (the usual tie): in the fixed order alone
        tied.sort(key=_ORDER)
    else:  # best first, equal values in the fixed order
        ranked = sorted(zip(map(neg, tied_values), map(_ORDER, tied), tied, strict=True))
        tied = [spot for _, _, spot in ranked]
    return rng.choice(tied)
