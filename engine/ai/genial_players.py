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

This module holds each level's move; their searches are in :mod:`engine.ai.genial_greedy`
(with what every level shares), :mod:`engine.ai.genial_strong` and
:mod:`engine.ai.genial_expert`.
"""

from __future__ import annotations

import random
import time

from engine.ai.evaluation import DEFAULT_WEIGHTS, Weights
from engine.ai.genial_expert import _LAYOUT_TABLES as _LAYOUT_TABLES
from engine.ai.genial_expert import _ROW_TABLES as _ROW_TABLES
from engine.ai.genial_expert import DEFAULT_EXPERT as DEFAULT_EXPERT
from engine.ai.genial_expert import Deal as Deal
from engine.ai.genial_expert import Ending as Ending
from engine.ai.genial_expert import ExpertConfig as ExpertConfig
from engine.ai.genial_expert import Lookahead as Lookahead
from engine.ai.genial_expert import _leaf
from engine.ai.genial_expert import _play_out_fast as _play_out_fast
from engine.ai.genial_expert import _standing as _standing
from engine.ai.genial_expert import lookahead_spot as lookahead_spot
from engine.ai.genial_expert import play_out as play_out
from engine.ai.genial_expert import redeal as redeal
from engine.ai.genial_expert import unseen as unseen
from engine.ai.genial_greedy import WIN as WIN
from engine.ai.genial_greedy import GenialMove as GenialMove
from engine.ai.genial_greedy import _allowed_pairs as _allowed_pairs
from engine.ai.genial_greedy import _empty_pairs as _empty_pairs
from engine.ai.genial_greedy import check_turn as check_turn
from engine.ai.genial_greedy import determinise as determinise
from engine.ai.genial_greedy import greedy_spot as greedy_spot
from engine.ai.genial_greedy import pick_best as pick_best
from engine.ai.genial_greedy import placement_key as placement_key
from engine.ai.genial_greedy import rank_placements as rank_placements
from engine.ai.genial_greedy import tile_order as tile_order
from engine.ai.genial_greedy import top_placements as top_placements
from engine.ai.genial_greedy import unseen_counts as unseen_counts
from engine.ai.genial_strong import DEFAULT_STRONG as DEFAULT_STRONG
from engine.ai.genial_strong import StrongConfig as StrongConfig
from engine.ai.genial_strong import StrongSearch as StrongSearch
from engine.ai.genial_strong import blocking_placements as blocking_placements
from engine.ai.genial_strong import evaluate_turn as evaluate_turn
from engine.ai.genial_strong import strong_search as strong_search
from engine.ai.genial_strong import swap_values as swap_values
from engine.ai.judge import judge
from engine.genial import EMPTY, GenialView
from engine.moves import KEEP, SWAP, Placement, SwapChoice

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
    """The top ``n`` moves by :func:`engine.ai.judge.judge` (the placements) or the strong
    player's swap values, best first (for hints)."""
    check_turn(view)
    game = determinise(view, random.Random(0))
    if view.awaiting == "swap":
        keep, swap = swap_values(game, view.seat or 0, unseen_counts(view), DEFAULT_WEIGHTS)
        options: list[tuple[GenialMove, float]] = [(SWAP, swap), (KEEP, keep)]
        options.sort(key=lambda mv: -mv[1])
        return options[:n]
    return [(j.placement, j.value) for j in judge(view)[:n]]


# --- strong ---------------------------------------------------------------------------------


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


# --- expert ---------------------------------------------------------------------------------


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
    pool = unseen(base, seat)
    worlds = [redeal(base, seat, random.Random(s), pool) for s in seeds]
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
