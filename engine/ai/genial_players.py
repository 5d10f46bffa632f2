"""Computer players for Genial: ``random``, ``greedy``, ``strong`` and ``expert``.

Each takes a :class:`~engine.genial.GenialView` (what the seat to move may know) and builds
a full game from it only by dealing the tiles it has not seen at random
(:func:`determinise`), so nothing hidden can leak into its choice.

- ``greedy`` looks one placement ahead with the heuristic of :mod:`engine.ai.evaluation`
  and swaps whenever a swap is offered (the rack then shows none of its lowest colours).
- ``strong`` searches greedy's best placements plus its best placements on the cells
  where the next player could score most (blocking moves). It plays each candidate out to
  the end of its turn (bonus placements and the swap decision included) and scores it by
  what the turn gained, minus what the next player can expect to score in reply, plus what
  it can expect to score itself next turn, after each of the next player's likeliest best
  replies. The expectations are over the racks the unseen tiles can form, computed exactly
  (hypergeometric: the chance that each kind of tile is the best one a rack drawn from the
  unseen tiles holds), which is what averaging over every deal of the unseen tiles would
  give, without sampling noise. Its swap decision compares the expected best placement
  next turn with the rack kept and swapped.
- ``expert`` plays as ``strong`` until the board is nearly full (:attr:`ExpertConfig.endgame`
  empty cells). From then on it takes strong's best few candidates and plays each out to
  the end of the game over the same deals of the unseen tiles (:func:`redeal`, greedy play
  for every seat), keeping the one whose games end best on average: the end of the game is
  where strong's one-turn heuristic misjudges most (which colours can still be scored at
  all, who gets the last placements), and where play-outs are short enough to run many.
  The budget is a fixed number of simulated placements, not seconds, so a view and a seed
  always give the same move.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import add, itemgetter, neg
from typing import Any, NamedTuple

from engine.ai import kernel as _kernel
from engine.ai.evaluation import (
    DEFAULT_WEIGHTS,
    KIND_COLOURS,
    KIND_INDEX,
    NO_ROOM,
    EdgePoints,
    EdgeValues,
    Weights,
    _padded_row,
    best_distribution,
    expected_best,
    first_round_cells,
    gain_tables,
    monotone_rows,
    padded_rows,
    track_value,
)
from engine.events import Refilled
from engine.genial import (
    EMPTY,
    KIND_OF,
    GenialGame,
    GenialView,
    PlacementGroup,
    PlacementSpot,
    Setup,
    raise_points,
)
from engine.moves import KEEP, SWAP, Placement, SwapChoice
from engine.ranking import rank
from engine.tiles import TILE_KINDS, Bag, Tile

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


# --- random ---------------------------------------------------------------------------------


def random_move(view: GenialView, rng: random.Random) -> GenialMove:
    """A uniformly random legal move."""
    check_turn(view)
    game = determinise(view, random.Random(0))
    moves = game.legal_moves()
    placements = sorted((m for m in moves if isinstance(m, Placement)), key=placement_key)
    swaps: list[GenialMove] = [m for m in moves if isinstance(m, SwapChoice)]
    return rng.choice(swaps or list(placements))


# --- greedy ---------------------------------------------------------------------------------


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


def greedy_move(
    view: GenialView, rng: random.Random, weights: Weights = DEFAULT_WEIGHTS
) -> GenialMove:
    """The placement worth most now; always swap when a swap is offered."""
    check_turn(view)
    if view.awaiting == "swap":
        return SWAP
    game = determinise(view, random.Random(0))
    return pick_best(top_placements(game, weights), rng)


def best_moves(view: GenialView, n: int = 3) -> list[tuple[GenialMove, float]]:
    """The top ``n`` moves by the greedy evaluation, best first (for hints)."""
    check_turn(view)
    game = determinise(view, random.Random(0))
    if view.awaiting == "swap":
        keep, swap = swap_values(game, view.seat or 0, unseen_counts(view), DEFAULT_WEIGHTS)
        options: list[tuple[GenialMove, float]] = [(SWAP, swap), (KEEP, keep)]
        options.sort(key=lambda mv: -mv[1])
        return options[:n]
    return list(rank_placements(game)[:n])


# --- strong ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StrongConfig:
    """The budget and weights of the strong player."""

    #: How many of greedy's best placements are searched.
    candidates: int = 16
    #: Also search the own best placements on each of this many cells where the next
    #: player could score most (blocking moves that greedy ranks low).
    blocks: int = 4
    #: For how many of the next player's likeliest best tiles its reply is played out, to
    #: see what it takes away from the own next turn (0: ignore what it takes away).
    replies: int = 4
    #: Weight of the next player's expected best reply (what a move leaves open).
    threat: float = 1.0
    #: Weight of the own expected best placement next turn.
    potential: float = 0.6
    #: What a bonus placement earned next turn counts for in that expectation, in points of
    #: the lowest colour (the turn itself counts the bonus placements it really makes).
    plan_bonus: float = 0.0
    #: Stop searching new candidates after this many seconds (None: search them all, which
    #: keeps the choice reproducible).
    deadline: float | None = None
    weights: Weights = DEFAULT_WEIGHTS


DEFAULT_STRONG = StrongConfig()


def swap_values(
    game: GenialGame, seat: int, counts: Sequence[int], weights: Weights
) -> tuple[float, float]:
    """The expected best placement next turn if the rack is kept and if it is swapped."""
    side = game.side_of(seat)
    setup = game.setup
    values = _values(_empty_pairs(game), game.scores[side], setup, weights).tile_values()
    rack = game.racks[seat]
    known = max((values[KIND_INDEX[t]] for t in rack), default=NO_ROOM)
    keep = expected_best(values, counts, setup.rack_size - len(rack), known)
    back = list(counts)
    for t in rack:
        back[KIND_INDEX[t]] += 1
    swap = expected_best(values, back, setup.rack_size)
    return keep, swap


def strong_move(
    view: GenialView, rng: random.Random, config: StrongConfig = DEFAULT_STRONG
) -> GenialMove:
    """The strong player's move (see the module docstring)."""
    check_turn(view)
    seat = view.seat
    assert seat is not None
    game = determinise(view, rng)
    counts = unseen_counts(view)
    if view.awaiting == "swap":
        keep, swap = swap_values(game, seat, counts, config.weights)
        return SWAP if swap > keep else KEEP
    ranked = rank_placements(game, config.weights)
    candidates = [p for p, _ in ranked[: config.candidates]]
    if config.blocks:
        candidates += blocking_placements(game, ranked, counts, config)
    start = time.perf_counter()
    best: list[Placement] = []
    best_value = -float("inf")
    for n, p in enumerate(dict.fromkeys(candidates)):
        if n and config.deadline is not None and time.perf_counter() - start > config.deadline:
            break
        v = evaluate_turn(game, seat, p, counts, config, rng)
        if v > best_value + 1e-9:
            best, best_value = [p], v
        elif v >= best_value - 1e-9:
            best.append(p)
    return best[0] if len(best) == 1 else rng.choice(best)


def blocking_placements(
    game: GenialGame,
    ranked: Sequence[tuple[Placement, float]],
    counts: Sequence[int],
    config: StrongConfig,
) -> list[Placement]:
    """The own best placement covering each of the cells where the next player could score
    most with one hex (among the tiles it may hold)."""
    setup = game.setup
    seat = game.to_move
    nxt = (seat + 1) % game.players
    if game.side_of(nxt) == game.side_of(seat):
        return []
    tables = gain_tables(game.scores[game.side_of(nxt)], setup, config.weights)
    held = [c for c in range(6) if any(n and c in KIND_COLOURS[k] for k, n in enumerate(counts))]
    worth = []
    for i, pts in enumerate(game.cell_points()):
        if pts is not None:
            worth.append((max(tables[c][min(pts[c], setup.cap)] for c in held), i))
    worth.sort(reverse=True)
    cells = game.area.cells
    targets = {cells[i] for _, i in worth[: config.blocks]}
    out = []
    for p, _ in ranked:
        if not targets:
            break
        hit = targets & {p.cell1, p.cell2}
        if hit:
            out.append(p)
            targets -= hit
    return out


def evaluate_turn(
    game: GenialGame,
    seat: int,
    placement: Placement,
    counts: Sequence[int],
    config: StrongConfig,
    rng: random.Random,
) -> float:
    """The strong player's value of starting its turn with ``placement``: what the turn
    gains, minus what the next player can expect to gain in reply, plus what this seat can
    expect to gain next turn (after the likeliest replies, if ``config.replies``)."""
    setup = game.setup
    side = game.side_of(seat)
    weights = config.weights
    before = track_value(game.scores[side], setup, weights)
    g = game.copy()
    placed = [placement.tile]
    swapped = False
    listed = g._layout.where.get(placement)
    if listed is None:  # a placement written another way: through the checks
        events = g.play(placement)
        ended = any(isinstance(e, Refilled) for e in events)
    else:  # a listed placement: played quietly (the same position, no events or record)
        mover = g.to_move
        g.play_spot(listed)
        # The refill ends the turn and passes it on (to the same seat only in the solo
        # game, which has neither bonus placements nor swaps).
        ended = g.to_move != mover or g.players == 1
    # Finish the turn: bonus placements greedily, then the swap decision (the refill ends it).
    while not g.over and not ended:
        if g.awaiting == "swap":
            keep, swap = swap_values(g, seat, counts, weights)
            swapped = swap > keep
            g.swap_quietly(swapped)
            break
        bonus = greedy_spot(g, weights, rng)
        mover = g.to_move
        g.play_spot(bonus)
        placed.append(bonus.placement.tile)
        ended = g.to_move != mover or g.players == 1
    gain = track_value(g.scores[side], setup, weights) - before
    if g.over:
        ranking = g.ranking()
        assert ranking is not None
        if side in ranking[0]:
            return gain + (WIN if len(ranking[0]) == 1 else 0.0)
        return gain - WIN
    board = g.board
    area = g.area
    value = gain
    # The own rack next turn: what is left of it now, refilled from the unseen tiles.
    rack = list(game.racks[seat])
    for t in placed:
        rack.remove(t)
    pool = list(counts)
    if swapped:
        for t in rack:
            pool[KIND_INDEX[t]] += 1
        rack = []
    draws = setup.rack_size - len(rack)
    plan_weights = dataclasses.replace(weights, bonus_points=config.plan_bonus)
    rack_kinds = [KIND_INDEX[t] for t in rack]

    def own_next(pairs: EdgePoints) -> float:
        values = _values(pairs, g.scores[side], setup, plan_weights).tile_values()
        known = max((values[k] for k in rack_kinds), default=NO_ROOM)
        return expected_best(values, pool, draws, known)

    pairs = _empty_pairs(g)
    nxt = g.to_move
    if g.side_of(nxt) == side:
        return value + config.potential * own_next(pairs)
    if g.has_placed[nxt]:
        threat = _values(pairs, g.scores[g.side_of(nxt)], setup, weights)
    else:  # the first-round limit: the pairs with a cell next to an untouched start symbol
        # (the values and spots :func:`tile_values` and :func:`best_spot` find with
        # ``allowed``, over those pairs only).
        allowed = first_round_cells(board, area, g.start_cells)
        threat = _values(_allowed_pairs(g, allowed), g.scores[g.side_of(nxt)], setup, weights)
    values = threat.tile_values()
    draws_next = len(g.racks[nxt])
    value -= config.threat * expected_best(values, counts, draws_next)
    if not config.potential:
        return value
    own = 0.0
    left = 1.0
    if config.replies:
        for kind, chance in best_distribution(values, counts, draws_next)[: config.replies]:
            spot = threat.best_spot(kind, area.neighbours)
            if spot is None:
                continue
            # Only the board after the reply's two hexes is used.
            x, y = KIND_COLOURS[kind]
            own += chance * own_next(_pairs_after(g, spot, x, y, pairs))
            left -= chance
    if left > 1e-9:
        own += left * own_next(pairs)
    return value + config.potential * own


def _values(pairs: EdgePoints, track: Sequence[int], setup: Setup, weights: Weights) -> EdgeValues:
    """The pairs through the tables of a side scoring ``track``."""
    key = tuple(track)
    return EdgeValues(pairs, padded_rows(key, setup, weights), monotone_rows(key, setup, weights))


def _pairs_after(
    game: GenialGame, spot: tuple[int, int], x: int, y: int, pairs: EdgePoints | None = None
) -> EdgePoints:
    """:class:`EdgePoints` of the game's board with colour ``x`` put on cell ``spot[0]`` and
    ``y`` on ``spot[1]`` (as two :meth:`GenialGame.put` would), without copying the game:
    only the board, the points of those colours and the empty pairs change. ``pairs``, the
    game's own :func:`_empty_pairs` if given, is where the pairs left are picked from (at
    C level: the pairs of the two cells masked out by their places in the game's list)."""
    i, j = spot
    board = game.board.copy()
    points = list(game._points)
    rays = game._rays
    for cell, colour in ((i, x), (j, y)):
        if points[colour] is game._points[colour]:
            points[colour] = points[colour].copy()
        board[cell] = colour
        raise_points(board, points[colour], rays[cell], colour)
    layout = game._layout
    if pairs is not None:
        keep = bytearray(b"\x01") * pairs.count
        place = game._edge_pos
        for e in layout.cell_edges[i] + layout.cell_edges[j]:
            if place[e] >= 0:
                keep[place[e]] = 0
        low_cells = list(compress(pairs.low_cells, keep))
        high_cells = list(compress(pairs.high_cells, keep))
        return EdgePoints(board, points, low_cells, high_cells)
    gone = set(layout.cell_edges[i] + layout.cell_edges[j])
    edges = [e for e in game.empty_edges if e not in gone]
    low = layout.low_cells
    high = layout.high_cells
    return EdgePoints(board, points, [low[e] for e in edges], [high[e] for e in edges])


# --- expert ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExpertConfig:
    """The budget and weights of the expert player. The budget is counted in simulated
    placements, not seconds, so that a view and a seed always give the same move."""

    #: How many of the strong player's best candidates are played out.
    candidates: int = 5
    #: Simulated placements per move, shared among the candidates and their play-outs.
    budget: int = 1200
    #: Each play-out stops after this many placements (or at the end of the game).
    depth: int = 60
    #: Play-outs per candidate, at least and at most.
    min_samples: int = 4
    max_samples: int = 64
    #: What a finished game won is worth over one lost, in units of the track value.
    win: float = 4.0
    #: Weight of the strong player's own value of each candidate beside the play-outs.
    prior: float = 0.0
    #: Play out only when at most this many cells are empty (else the strong player's
    #: best candidate is played).
    endgame: int = 40
    strong: StrongConfig = DEFAULT_STRONG


DEFAULT_EXPERT = ExpertConfig()


def redeal(base: GenialGame, seat: int, rng: random.Random) -> GenialGame:
    """A copy of ``base`` with every tile ``seat`` has not seen (the other racks and the
    bag) dealt anew at random: one determinisation. The tiles are put in a fixed order
    before shuffling, so where they lay in ``base`` does not matter."""
    g = base.copy()
    pool = [t for s, r in enumerate(g.racks) if s != seat for t in r] + g.bag.order()
    pool.sort(key=tile_order)
    rng.shuffle(pool)
    for s, r in enumerate(g.racks):
        if s != seat:
            k = len(r)
            g.racks[s] = pool[:k]
            del pool[:k]
    g.bag = Bag(pool)
    return g


@dataclass(frozen=True, slots=True)
class Ending:
    """Where a play-out stopped, as far as its leaf value reads it (what :func:`play_out`
    returns, from the C loop or from a game played out in Python)."""

    setup: Setup
    #: By side, each colour's points.
    scores: list[list[int]]
    over: bool
    #: The side that reached the cap in every colour, if one did.
    winner: int | None

    @property
    def sides(self) -> int:
        return self.setup.sides

    def ranking(self) -> list[list[int]] | None:
        """As :meth:`GenialGame.ranking`: places, best first; None if not over."""
        return rank(self.scores, self.winner) if self.over else None


def play_out(
    world: GenialGame, spot: PlacementSpot, steps: int, rng: random.Random, weights: Weights
) -> Ending:
    """``world`` (left as it is) after ``spot`` and then greedy play (swapping whenever offered) for
    up to ``steps`` placements. The C loop plays the part after every seat has placed (the
    first-round limit stays in Python); it makes the same placements and the same draws of
    ``rng`` as the Python loop, which is used where the C loops are not built."""
    fast = _kernel.kernel
    if fast is not None and all(world.has_placed) and world.awaiting != "swap":
        first = (spot.cell1, spot.cell2, spot.first, spot.second)
        return _play_out_fast(fast, world, first, steps, rng, weights)[1]
    g = world.copy()
    g.play_spot(spot)
    made = 0
    while not g.over and made < steps and (fast is None or not all(g.has_placed)):
        if g.awaiting == "swap":
            g.swap_quietly(True)
            continue
        g.play_spot(greedy_spot(g, weights, rng))
        made += 1
    if fast is not None and not g.over and made < steps:
        return _play_out_fast(fast, g, None, steps - made, rng, weights)[1]
    return Ending(g.setup, g.scores, g.over, g.winner)


#: The C loop's tables of each playing area (by radius), and of each setup's and weights'
#: padded rows (fetched from :mod:`engine.ai.evaluation` as the loop first needs each).
_LAYOUT_TABLES: dict[int, object] = {}
_ROW_TABLES: dict[tuple[Setup, Weights], object] = {}


def _play_out_fast(
    fast: object,
    g: GenialGame,
    first: tuple[int, int, int, int] | None,
    steps: int,
    rng: random.Random,
    weights: Weights,
    trace: list[tuple[int, int, int, int]] | None = None,
) -> tuple[int, Ending]:
    """The C loop from ``g`` (left as it is): the placements it made after ``first`` and
    where it stopped; with a list as ``trace``, every placement (cell, cell, colour,
    colour) is appended to it."""
    setup = g.setup
    c: Any = fast
    tables = _LAYOUT_TABLES.get(setup.radius)
    if tables is None:
        layout = g._layout
        tables = _LAYOUT_TABLES[setup.radius] = c.layout(
            layout.low_cells,
            layout.high_cells,
            layout.cell_edges,
            [ray for six in g.area.rays for ray in six],
            KIND_COLOURS,
        )
    rows = _ROW_TABLES.get((setup, weights))
    if rows is None:
        if len(_ROW_TABLES) >= 64:
            _ROW_TABLES.clear()

        def row_of(old: int, low: int) -> tuple[float, ...]:
            return _padded_row(old, low, setup, weights)

        rows = _ROW_TABLES[(setup, weights)] = c.rows(row_of, setup.cap)
    made, scores, over, winner = c.play_out(
        tables,
        rows,
        g.board,
        g._points,
        g.empty_edges,
        [[KIND_OF[t] for t in r] for r in g.racks],
        [KIND_OF[t] for t in g.bag.order()],
        g.scores,
        (
            setup.players,
            setup.mode == "team",
            setup.cap,
            setup.marks,
            setup.bonus_placements,
            setup.swaps,
            setup.rack_size,
        ),
        (g.to_move, g.bonus_owed, g.awaiting == "swap"),
        first,
        steps,
        rng.randrange,
        trace,
    )
    return made, Ending(setup, scores, over, winner)


def _standing(game: GenialGame | Ending, side: int, weights: Weights) -> float:
    """How well ``side`` stands: its track value minus the best other side's (just its own
    in the solo game)."""
    own = track_value(game.scores[side], game.setup, weights)
    others = [
        track_value(game.scores[s], game.setup, weights) for s in range(game.sides) if s != side
    ]
    return own - max(others) if others else own


def _leaf(game: GenialGame | Ending, side: int, config: ExpertConfig) -> float:
    value = _standing(game, side, config.strong.weights)
    if game.over and game.sides > 1:
        ranking = game.ranking()
        assert ranking is not None
        if side in ranking[0]:
            value += config.win if len(ranking[0]) == 1 else 0.0
        else:
            value -= config.win
    return value


class StrongSearch(NamedTuple):
    """The strong search that the expert's and the master's play-outs start from."""

    #: The game as the seat may know it (the unseen tiles dealt in a fixed way).
    base: GenialGame
    seat: int
    #: The tiles the seat has not seen, by kind index.
    counts: list[int]
    #: Strong's value of each candidate searched, best first (ties in search order).
    scored: list[tuple[float, Placement]]
    #: When the search began (``time.perf_counter``), for the config's deadline.
    start: float


def strong_search(
    view: GenialView, strong: StrongConfig, rng: random.Random
) -> StrongSearch | GenialMove:
    """Strong's candidates (greedy's best and the blocking placements) with its value of
    each, from the seat's view; the swap decision itself when a swap is offered."""
    check_turn(view)
    seat = view.seat
    assert seat is not None
    base = determinise(view, random.Random(0))
    counts = unseen_counts(view)
    if view.awaiting == "swap":
        keep, swap = swap_values(base, seat, counts, strong.weights)
        return SWAP if swap > keep else KEEP
    ranked = rank_placements(base, strong.weights)
    candidates = [p for p, _ in ranked[: strong.candidates]]
    if strong.blocks:
        candidates += blocking_placements(base, ranked, counts, strong)
    start = time.perf_counter()
    scored = []
    for n, p in enumerate(dict.fromkeys(candidates)):
        if n and strong.deadline is not None and time.perf_counter() - start > strong.deadline:
            break
        scored.append((evaluate_turn(base, seat, p, counts, strong, rng), p))
    scored.sort(key=lambda vp: -vp[0])
    return StrongSearch(base, seat, counts, scored, start)


def expert_move(
    view: GenialView, rng: random.Random, config: ExpertConfig = DEFAULT_EXPERT
) -> GenialMove:
    """The expert player's move: the strong player's best few candidates, each played out
    over the same determinisations of the unseen tiles (greedy play for every seat, to the
    end of the game or a fixed depth), and the best average kept."""
    found = strong_search(view, config.strong, rng)
    if not isinstance(found, StrongSearch):
        return found  # the swap decision
    base, seat, scored, start = found.base, found.seat, found.scored, found.start
    strong = config.strong
    shortlist = scored[: config.candidates]
    empty = base.board.count(EMPTY)
    if len(shortlist) == 1 or empty > config.endgame:
        return shortlist[0][1]
    # A rough count of the placements left, to share the budget: a placement covers two
    # cells.
    left = max(1, min(config.depth, empty // 2))
    samples = config.budget // (left * len(shortlist))
    samples = max(config.min_samples, min(config.max_samples, samples))
    side = base.side_of(seat)
    seeds = [rng.getrandbits(32) for _ in range(samples)]
    worlds = [redeal(base, seat, random.Random(s)) for s in seeds]
    best: list[Placement] = []
    best_value = -float("inf")
    for n, (prior, p) in enumerate(shortlist):
        if n and strong.deadline is not None and time.perf_counter() - start > strong.deadline:
            break
        total = 0.0
        spot = base._layout.where[p]  # a listed placement: played quietly, as in play-outs
        for s, world in zip(seeds, worlds, strict=True):
            ending = play_out(world, spot, config.depth, random.Random(s), strong.weights)
            total += _leaf(ending, side, config)
        v = total / samples + config.prior * prior
        if v > best_value + 1e-9:
            best, best_value = [p], v
        elif v >= best_value - 1e-9:
            best.append(p)
    return best[0] if len(best) == 1 else rng.choice(best)
