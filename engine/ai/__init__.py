"""Computer players: a view of the seat to move in, a legal move out.

Players never see the full game: they receive the view of the seat to move (its own rack,
the board, all scores, the tiles it has not seen) and decide from it alone, so a computer
player knows exactly what a human in its seat would know.

Levels (:data:`LEVELS`): ``random`` (a uniformly random legal move), ``greedy`` (the best
move one placement ahead), ``strong`` (a search over greedy's best candidates that weighs
the opponents' replies over the tiles they may hold), ``expert`` (in Genial, strong's
search until the end of the game nears, then strong's best few candidates played out to
the end over many deals of the unseen tiles; in Genial Spezial, strong's search over
candidates picked from a wider pool by their points plus the best own placement that
could follow, then the same play-outs near the end) and ``master`` (in Genial,
:mod:`engine.ai.master`: a wider shortlist of strong's candidates played out from earlier
in the game over the same deals of the unseen tiles by successive halving, strong's value
as a prior, leaves scored by the ranking rule; in Genial Spezial, the expert's search with
wider budgets). The same view and seed always give the same move.
"""

from __future__ import annotations

import dataclasses
import random
from typing import TypeVar

from engine.ai import genial_players, master, spezial_players
from engine.genial import GenialView
from engine.moves import Placement, SpezialPlacement, SwapChoice
from engine.spezial import SpezialView

LEVELS: tuple[str, ...] = ("random", "greedy", "strong", "expert", "master")

Move = Placement | SwapChoice | SpezialPlacement
View = GenialView | SpezialView


def check_level(level: str) -> None:
    """Raises ValueError for a level that is not one of :data:`LEVELS`."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")


def choose_move(
    view: View, level: str = "greedy", seed: int | None = None, *, deadline: float | None = None
) -> Move:
    """The move the computer player of ``level`` makes for ``view.seat``.

    Args:
        view: the view of the seat to move (never a spectator's, never the full game).
        level: one of :data:`LEVELS`.
        seed: makes the choice reproducible (None: a fresh random choice where it matters).
        deadline: seconds after which ``strong`` and ``expert`` stop looking at further
            candidates and play the best found so far (None: they search their fixed
            budgets, about 0.1 s for strong and at most about 0.5 s for expert on a
            2-player board, and the choice depends on the view and seed alone).

    Raises:
        ValueError: for an unknown level, a spectator's view, a game that is over, or a
            view whose seat is not to move.
        TypeError: if ``view`` is not a Genial or Genial Spezial view.
    """
    check_level(level)
    rng = random.Random(seed)
    if isinstance(view, GenialView):
        if level == "random":
            return genial_players.random_move(view, rng)
        if level == "greedy":
            return genial_players.greedy_move(view, rng)
        if level == "master":
            search = _with_deadline(master.default_search(), deadline)
            return master.master_move(view, rng, search)
        if level == "expert":
            expert = _with_deadline(genial_players.DEFAULT_EXPERT, deadline)
            return genial_players.expert_move(view, rng, expert)
        config = dataclasses.replace(genial_players.DEFAULT_STRONG, deadline=deadline)
        return genial_players.strong_move(view, rng, config)
    if isinstance(view, SpezialView):
        if level == "random":
            return spezial_players.random_move(view, rng)
        if level == "greedy":
            return spezial_players.greedy_move(view, rng)
        if level in ("expert", "master"):
            deep = (
                spezial_players.DEFAULT_SPEZIAL_EXPERT
                if level == "expert"
                else spezial_players.DEFAULT_SPEZIAL_MASTER
            )
            deep = dataclasses.replace(deep, deadline=deadline)
            return spezial_players.expert_move(view, rng, deep)
        spezial = dataclasses.replace(spezial_players.DEFAULT_SPEZIAL, deadline=deadline)
        return spezial_players.strong_move(view, rng, spezial)
    raise TypeError(f"not a game view: {type(view).__name__}")


_Deep = TypeVar("_Deep", genial_players.ExpertConfig, master.MasterConfig)


def _with_deadline(config: _Deep, deadline: float | None) -> _Deep:
    """A Genial search whose strong part stops at ``deadline`` seconds (None: as it is)."""
    if deadline is None:
        return config
    return dataclasses.replace(config, strong=dataclasses.replace(config.strong, deadline=deadline))


def best_moves(view: View, n: int = 3) -> list[tuple[Move, float]]:
    """The top ``n`` moves by the greedy evaluation, best first, each with its value (for
    hints; values compare only within one call).

    Raises:
        ValueError, TypeError: as :func:`choose_move`.
    """
    if isinstance(view, GenialView):
        return list(genial_players.best_moves(view, n))
    if isinstance(view, SpezialView):
        return list(spezial_players.best_moves(view, n))
    raise TypeError(f"not a game view: {type(view).__name__}")


__all__ = ["LEVELS", "Move", "View", "best_moves", "check_level", "choose_move"]
