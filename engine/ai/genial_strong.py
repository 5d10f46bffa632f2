"""The strong Genial player's search (the levels are described in
:mod:`engine.ai.genial_players`): greedy's best placements and the blocking ones, each played
to the end of its turn and valued by what the turn gained, what the next player can expect
to score in reply and what this seat can expect to score next turn, and the swap decision
by the expected best placement next turn. The expert's and the master's play-outs start
from it (:func:`strong_search`)."""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from typing import NamedTuple

from engine.ai.evaluation import (
    DEFAULT_WEIGHTS,
    KIND_COLOURS,
    KIND_INDEX,
    NO_ROOM,
    EdgePoints,
    EdgeValues,
    Weights,
    best_distribution,
    expected_best,
    first_round_cells,
    gain_tables,
    monotone_rows,
    padded_rows,
    track_value,
)
from engine.ai.genial_greedy import (
    WIN,
    GenialMove,
    _allowed_pairs,
    _empty_pairs,
    check_turn,
    determinise,
    greedy_spot,
    rank_placements,
    unseen_counts,
)
from engine.events import Refilled
from engine.genial import GenialGame, GenialView, Setup, raise_points
from engine.moves import KEEP, SWAP, Placement


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
