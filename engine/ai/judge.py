"""The one judge of a Genial placement (issue 47): what ``/hint`` ranks, what the review calls
best, what a puzzle's answer must be, all read from :func:`judge`.

A placement is valued in its position with everything it brings, as the strong search (the
expert's search in the middle game) values the start of a turn
(:func:`~engine.ai.genial_strong.evaluate_turn`: what the turn gains, the swap it opens and
its decision, what the next player can expect to score in reply, what the mover can expect
next turn, all through the track value that counts a colour by how far it is from the lowest,
so the lowest-colour race is in it). One thing is added: a placement that earns a bonus
placement is valued with the bonus placement the judge itself would choose (the best of its
candidates, each valued the same way, bonus after bonus), not with greedy's, so a placement
that reaches 18 and opens a bonus placement is never judged below the bonus placement it
opens (issue 47's newcomer: ``/hint``'s ``RR E8 F8`` earned the bonus placement
``RO H11 I10``, and the old review called the bonus placement better than the placement
that earned it).

Only the seat's view goes in: the position is :func:`determinise`\\ d from it with a fixed
seed and every candidate is valued with its own fixed seed, so the same view always gets the
same values, whichever other candidates are asked about beside it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.ai.evaluation import track_value
from engine.ai.genial_greedy import determinise, placement_key, rank_placements, unseen_counts
from engine.ai.genial_strong import (
    DEFAULT_STRONG,
    StrongConfig,
    blocking_placements,
    evaluate_turn,
)
from engine.genial import GenialGame, GenialView
from engine.moves import Placement

#: A bonus placement is chosen among this many of greedy's best (and the blocking ones).
BONUS_CANDIDATES = 8
#: Bonus placements chosen by the judge, one after another, before greedy's take over.
BONUS_DEPTH = 3


@dataclass(frozen=True, slots=True)
class Judged:
    """A placement and the judge's value of it (values compare within one position)."""

    placement: Placement
    value: float


def judge(
    view: GenialView, extra: Iterable[Placement] = (), config: StrongConfig = DEFAULT_STRONG
) -> list[Judged]:
    """The strong search's candidates of the view's position (greedy's best and the blocking
    placements) and ``extra`` placements (legal ones of the seat to move), each valued with
    everything it brings, best first; equal values in a fixed order.

    Raises:
        ValueError: for a spectator's view, a game that is over, a seat not to move or a
            swap decision due (there is no placement to judge).
    """
    if view.awaiting != "place" or view.over:
        raise ValueError("no placement is due")
    if view.seat is None or view.to_move != view.seat:
        raise ValueError("the judge needs the view of the seat to move")
    base = determinise(view, random.Random(0))
    counts = unseen_counts(view)
    found = _candidates(base, counts, config)
    for p in extra:
        if p.canonical() not in {q.canonical() for q in found}:
            found.append(p)
    judged = [Judged(p, turn_value(base, p, counts, config)) for p in found]
    judged.sort(key=lambda j: (-round(j.value, 9), placement_key(j.placement.canonical())))
    return judged


def _candidates(
    game: GenialGame, counts: Sequence[int], config: StrongConfig, limit: int | None = None
) -> list[Placement]:
    ranked = rank_placements(game, config.weights)
    candidates = [p for p, _ in ranked[: limit or config.candidates]]
    if config.blocks:
        candidates += blocking_placements(game, ranked, counts, config)
    return list(dict.fromkeys(candidates))


def turn_value(
    game: GenialGame,
    placement: Placement,
    counts: Sequence[int],
    config: StrongConfig = DEFAULT_STRONG,
    depth: int = 0,
) -> float:
    """The judge's value of the mover starting (or going on with) its turn in ``game`` with
    ``placement``: strong's value of the turn, with each bonus placement it earns chosen
    by the judge (up to :data:`BONUS_DEPTH` deep)."""
    seat = game.to_move
    g = game.copy()
    g.play(placement)
    bonus = not g.over and g.to_move == seat and g.awaiting == "place" and g.players > 1
    if not bonus or depth >= BONUS_DEPTH:
        return evaluate_turn(game, seat, placement, counts, config, random.Random(0))
    setup = game.setup
    side = game.side_of(seat)
    gain = track_value(g.scores[side], setup, config.weights) - track_value(
        game.scores[side], setup, config.weights
    )
    follow = _candidates(g, counts, config, BONUS_CANDIDATES)
    if not follow:  # no legal placement left: the game is blocked, strong's value stands
        return evaluate_turn(game, seat, placement, counts, config, random.Random(0))
    return gain + max(turn_value(g, q, counts, config, depth + 1) for q in follow)


__all__ = ["BONUS_CANDIDATES", "BONUS_DEPTH", "Judged", "judge", "turn_value"]
