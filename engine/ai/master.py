"""The master level for Genial (issue 31): the expert's play-outs, spent where they decide.

``expert`` plays out strong's best five candidates over the same deals of the unseen tiles,
each the same number of times, from 40 empty cells on, and keeps the best mean. ``master``
differs in five ways:

- **Play-outs from the first move** (:attr:`MasterConfig.endgame`, in every setup): in the
  middle game expert plays strong's one-turn value alone, and a master that did the same
  there (play-outs from 60 empty cells on) was no stronger than expert; on the boards of 3
  and 4 players, which start with 127 and 163 empty cells, it played strong's value until 85
  were left, half of a 4-player game.
- **Successive halving**: a wider shortlist of strong's candidates (:attr:`MasterConfig.
  shortlist`) is played out over a few deals each, the worse half dropped, the rest played
  out over more deals, and so on, so most of the budget goes to the candidates still in
  doubt. Every candidate is played out over the same deals (common random numbers: the
  same :func:`~engine.ai.genial_players.redeal` seeds and the same play-out seeds), so the
  comparison is not swamped by the luck of the deal.
- **Strong's value as a prior**: each candidate's mean play-out value is added to a share
  (:attr:`MasterConfig.prior`) of strong's own value of it, relative to the best, which
  steadies the choice when the play-outs are few or short.
- **Leaves by the real ranking rule** (RULES.md 2.9: the lowest colour, then the next
  lowest): a finished game counts as won, drawn or lost by :meth:`GenialGame.ranking`; a
  play-out stopped before the end also counts who leads by that rule (each side's scores
  sorted from the lowest, compared in order), beside the concave track value.
- **Play-outs that look a placement ahead** (:attr:`MasterConfig.lookahead`, 2-player
  games with the C kernel): each seat in a play-out takes, of greedy's best eight
  placements the one whose value less half the next seat's best reply is highest, not
  greedy's best: plain greedy play-outs judge a candidate by futures in which both sides
  ignore what they open up for the other.

Each deal is handed to the C loop once and played out from every candidate
(:class:`~engine.ai.genial_expert.Deal`).

Like every level it sees only its seat's view: the base game is :func:`determinise`\\ d from
the view, and each play-out is one deal of the tiles the seat has not seen. The budget is
counted in simulated placements, not seconds, so a view and a seed always give the same move.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.ai import kernel
from engine.ai.evaluation import track_value
from engine.ai.genial_players import (
    Deal,
    Ending,
    GenialMove,
    Lookahead,
    StrongConfig,
    StrongSearch,
    _standing,
    redeal,
    strong_search,
    unseen,
)
from engine.genial import EMPTY, GenialGame, GenialView

#: The strong search under the master's play-outs: more candidates, blocks and replies.
MASTER_STRONG = StrongConfig(candidates=24, blocks=6, replies=6)
#: The play-outs' policy in 2-player games: of greedy's best 8 placements, the best value
#: less half the next seat's best reply. With it master beat expert in 671 of 800 untuned
#: games where greedy play-outs won 620 of the same (docs/measurements.md).
MASTER_LOOKAHEAD = Lookahead(candidates=8, reply=0.5)


@dataclass(frozen=True, slots=True)
class MasterConfig:
    """The budget and weights of the master player (counted in simulated placements)."""

    #: How many of the strong player's best candidates enter the successive halving. 24
    #: (issue 50) won 34 of 40 against expert on the screening seed 50301 where 16 won 30,
    #: but 141 of 200 fresh games where 16 won 157 of the same (docs/measurements.md).
    shortlist: int = 16
    #: Simulated placements per move, shared among the halving rounds. Since the play-outs
    #: run in C (about 13x cheaper), 50,000 with 16 candidates and up to 640 deals: on the
    #: tuning seed 7301 master won 34 of 40 against expert so, 31 of 40 with 10 candidates,
    #: where 7,000 with 10 and up to 160 had won 56 % of 240 (benchmarks/AI_RESULTS.md).
    budget: int = 50000
    #: Each play-out stops after this many placements (or at the end of the game).
    depth: int = 60
    #: Deals per candidate in the first round, and at most in the last.
    min_samples: int = 4
    max_samples: int = 640
    #: What a finished game won is worth over a draw (lost: minus this), in track value.
    win: float = 4.0
    #: What leading by the ranking rule is worth when a play-out stops before the end.
    lead: float = 1.0
    #: Weight of strong's value of a candidate (relative to the best) beside the play-outs.
    prior: float = 0.25
    #: Play out only when at most this many cells are empty (else strong's best is played);
    #: None: from the first move. In 2 players from the first move (85 empty cells) master
    #: won 45 of 80 untuned games against expert (seeds 9401-9402), from 60 on 41 of 80; one
    #: master against three experts, from 85 of 163 on, won 21 of 40 on the tuning seed 7801,
    #: from the first move 22 (benchmarks/AI_RESULTS.md; none of them shown apart).
    endgame: int | None = None
    #: The share of the budget spent while some seat has still to make its first placement.
    #: When the play-outs played the first round in Python the first move cost about twice
    #: any other, and a quarter took the p95 under 0.25 s, but master then won 64 of the 100
    #: games where it moves first against 83 at the whole budget, the same games (issue 50,
    #: docs/measurements.md): the whole. The C loop now plays the first round as cheaply.
    first_round_share: float = 1.0
    strong: StrongConfig = MASTER_STRONG
    #: The play-outs' policy in 2-player games: greedy (None) or one that looks a placement
    #: ahead. In 3 and 4 seats the play-outs stay greedy: there the lookahead's cost (a
    #: play-out about 2.6 times a greedy one) would take master's p95 past 0.5 s, and its
    #: strength there was not measured (issue 50).
    lookahead: Lookahead | None = MASTER_LOOKAHEAD


DEFAULT_MASTER_SEARCH = MasterConfig()

#: Without the C kernel (a machine that built none, or ``GENIAL_PURE_PYTHON=1``) a play-out
#: runs in Python, 22 (2 players) to 31 (4 players) times slower (``bench_kernel.py
#: --playouts``, 2026-12-07; 12 to 17 before the C loop kept its values), and master's
#: full budget took a p95 of 4 s a move at 2 players (issue 50).
#: There it plays out fewer times, with greedy play-outs (the kernel's master looks a
#: placement ahead in 2 players, at 2.6 times the cost): a quarter of the budget, and only
#: from :data:`PURE_PYTHON_ENDGAME` empty cells on (as expert; before, the strong search's
#: best): a quarter spread from the first move over 16 candidates gave each a few deals,
#: and master won 4 of 18 games against expert so. Its cost and strength are in
#: docs/measurements.md.
PURE_PYTHON_BUDGET = 12500
PURE_PYTHON_ENDGAME = 40


def default_search() -> MasterConfig:
    """The master's search on this machine: :data:`DEFAULT_MASTER_SEARCH`, or without the C
    kernel its budget cut to :data:`PURE_PYTHON_BUDGET`, spent from
    :data:`PURE_PYTHON_ENDGAME` empty cells on, over greedy play-outs."""
    config = DEFAULT_MASTER_SEARCH
    if kernel.active() or config.budget <= PURE_PYTHON_BUDGET:
        return config
    return replace(config, budget=PURE_PYTHON_BUDGET, endgame=PURE_PYTHON_ENDGAME, lookahead=None)


def _by_rule(game: GenialGame | Ending, side: int) -> int:
    """+1 if ``side`` is ahead of every other side by the ranking rule (scores sorted from
    the lowest, compared in order), -1 if some side is ahead of it, 0 if level."""
    own = sorted(game.scores[side])
    best_other = max(sorted(game.scores[s]) for s in range(game.sides) if s != side)
    return (own > best_other) - (own < best_other)


def leaf_value(game: GenialGame | Ending, side: int, config: MasterConfig) -> float:
    """What a play-out's last position is worth to ``side``."""
    if game.sides == 2:
        return _two_sides(game.scores[side], game.scores[1 - side], game, side, config)
    value = _standing(game, side, config.strong.weights)
    if game.sides == 1:
        return value
    if game.over:
        ranking = game.ranking()
        assert ranking is not None
        if side in ranking[0]:
            return value + (config.win if len(ranking[0]) == 1 else 0.0)
        return value - config.win
    return value + config.lead * _by_rule(game, side)


def _two_sides(
    own: Sequence[int],
    other: Sequence[int],
    game: GenialGame | Ending,
    side: int,
    config: MasterConfig,
) -> float:
    """:func:`leaf_value` of a game of two sides, the same value worked out with less: each
    side's scores sorted once, no ranking built (one a play-out, some 2,000 a move)."""
    setup = game.setup
    weights = config.strong.weights
    value = track_value(own, setup, weights) - track_value(other, setup, weights)
    mine, theirs = sorted(own), sorted(other)
    ahead = (mine > theirs) - (mine < theirs)  # by the ranking rule (RULES.md 2.9)
    if game.over:
        winner = game.winner
        if winner is not None:  # every colour at the cap: first whatever the rest
            ahead = 1 if winner == side else -1
        if ahead == 0:  # sharing the first place
            return value + 0.0
        return value + config.win if ahead > 0 else value - config.win
    return value + config.lead * ahead


def master_move(
    view: GenialView, rng: random.Random, config: MasterConfig = DEFAULT_MASTER_SEARCH
) -> GenialMove:
    """The master player's move (see the module docstring)."""
    strong = config.strong
    found = strong_search(view, strong, rng)
    if not isinstance(found, StrongSearch):
        return found  # the swap decision
    base, seat, scored, start = found.base, found.seat, found.scored, found.start

    def late() -> bool:
        return strong.deadline is not None and time.perf_counter() - start > strong.deadline

    alive = scored[: config.shortlist]
    empty = base.board.count(EMPTY)
    if len(alive) == 1 or (config.endgame is not None and empty > config.endgame):
        return alive[0][1]
    top_prior = alive[0][0]
    side = base.side_of(seat)
    left = max(1, min(config.depth, empty // 2))  # about the placements a play-out makes
    rounds = max(1, math.ceil(math.log2(len(alive))))
    first_round = not all(placed or s == seat for s, placed in enumerate(base.has_placed))
    budget = config.budget * config.first_round_share if first_round else config.budget
    per_round = budget / rounds
    look = config.lookahead if base.players == 2 else None
    # A lookahead play-out draws nothing from its generator (Lookahead): then no
    # generator is set to each deal's state, which cost 2-3 % of a move.
    draws = look is None or look.candidates <= 1
    seeds: list[int] = []
    deals: list[Deal] = []
    states: list[tuple[object, ...]] = []  # each play-out's generator at its start
    play_rng = random.Random()
    pool = unseen(base, seat)  # what every deal shuffles
    totals = {p: 0.0 for _, p in alive}
    done = 0  # deals every candidate still alive has been played out over
    for _ in range(rounds):
        want = int(per_round // (left * len(alive))) + done
        want = max(config.min_samples, min(config.max_samples, want))
        while len(seeds) < want:
            s = rng.getrandbits(32)
            seeds.append(s)
            deal_rng = random.Random(s)
            states.append(deal_rng.getstate() if draws else ())
            deals.append(Deal(redeal(base, seat, deal_rng, pool), strong.weights))
        for _, p in alive:
            spot = base._layout.where[p]
            total = 0.0
            for state, deal in zip(states[done:want], deals[done:want], strict=True):
                if draws:
                    play_rng.setstate(state)  # random.Random(seed): the same draws, cheaper
                ending = deal.play_out(spot, config.depth, play_rng, look)
                total += leaf_value(ending, side, config)
            totals[p] += total
        done = max(done, want)
        value = {p: totals[p] / done + config.prior * (v - top_prior) for v, p in alive}
        alive.sort(key=lambda vp: -value[vp[1]])  # stable: strong's order breaks ties
        if len(alive) <= 2 or late() or done >= config.max_samples:
            break
        alive = alive[: (len(alive) + 1) // 2]
    best_value = value[alive[0][1]]
    best = [p for _, p in alive if value[p] >= best_value - 1e-9]
    return best[0] if len(best) == 1 else rng.choice(best)


__all__ = [
    "DEFAULT_MASTER_SEARCH",
    "PURE_PYTHON_BUDGET",
    "PURE_PYTHON_ENDGAME",
    "MasterConfig",
    "default_search",
    "leaf_value",
    "master_move",
]
