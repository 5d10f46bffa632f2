"""Matches between computer players: levels against each other, seats alternated.

Used by ``python -m engine match`` to measure the players (win rates, results, time per
move). Every game and every move is seeded from the match seed, so a match replays exactly.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from engine.ai import Move, View, check_level, choose_move
from engine.genial import GenialGame
from engine.tiles import Colour

#: A player: the view of the seat to move and a seed in, a move out.
Player = Callable[[View, int], Move]


class MatchGame(Protocol):
    """What a match needs of either game."""

    over: bool
    to_move: int

    @property
    def sides(self) -> int: ...

    def side_of(self, seat: int) -> int: ...

    def view(self, seat: int | None = None) -> Any: ...

    def play(self, move: Any, seat: int | None = None) -> Any: ...

    def ranking(self) -> list[list[int]] | None: ...

    def score(self, side: int) -> dict[Colour, int]: ...


def lowest_score(game: MatchGame, side: int) -> int:
    """A side's result: its lowest colour (RULES.md 2.9, 3.4)."""
    return min(game.score(side).values())


def level_player(level: str) -> Player:
    """The player of a level, as :func:`engine.ai.choose_move`.

    Raises:
        ValueError: for an unknown level.
    """
    check_level(level)
    return partial(_level_move, level)


def _level_move(level: str, view: View, seed: int) -> Move:
    """A level's move: a module-level function, so a player can go to a worker process."""
    return choose_move(view, level, seed)


def new_game(game: str, players: int, mode: str | None, seed: int) -> MatchGame:
    """A new game of either kind, its hidden order shuffled with ``seed``.

    Raises:
        ValueError: for an unknown game, or a mode impossible with that many players.
    """
    if game == "genial":
        return GenialGame(players, mode, seed=seed)
    if game == "spezial":
        if mode is not None:
            raise ValueError("Genial Spezial has no modes")
        from engine.spezial import SpezialGame

        spezial: MatchGame = SpezialGame(players, seed=seed)
        return spezial
    raise ValueError(f"unknown game {game!r}: choose genial or spezial")


@dataclass
class Tally:
    """What one side of the match (a level) did."""

    label: str
    wins: int = 0
    results: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def play_game(
    game: MatchGame, seat_tallies: list[Tally], players: dict[str, Player], rng: random.Random
) -> None:
    """Play one game to its end, each seat by its tally's player, timing every move."""
    while not game.over:
        seat = game.to_move
        tally = seat_tallies[seat]
        view = game.view(seat)
        started = time.perf_counter()
        move = players[tally.label](view, rng.getrandbits(32))
        tally.seconds.append(time.perf_counter() - started)
        game.play(move, seat)


@dataclass
class GameOutcome:
    """What one game of a match gave: each label's results and move times, and its winner."""

    results: dict[str, list[int]]
    seconds: dict[str, list[float]]
    #: The label that alone won, or None for a draw.
    winner: str | None


def one_game(
    a: str,
    b: str,
    players: dict[str, Player],
    game: str,
    seats: int,
    mode: str | None,
    lone: bool,
    n: int,
    seeds: tuple[int, int],
) -> GameOutcome:
    """Play game ``n`` of a match (seats as :func:`run_match` says) from its two seeds."""
    game_seed, move_seed = seeds
    rng = random.Random(move_seed)
    tallies = {a: Tally(a), b: Tally(b)}
    first, second = (tallies[a], tallies[b]) if n % 2 == 0 else (tallies[b], tallies[a])
    winner: str | None = None
    if seats == 1:
        outcomes = []
        for tally in (first, second):
            g = new_game(game, 1, mode, game_seed)
            play_game(g, [tally], players, rng)
            outcomes.append(lowest_score(g, 0))
            tally.results.append(outcomes[-1])
        if outcomes[0] != outcomes[1]:
            winner = (first if outcomes[0] > outcomes[1] else second).label
    else:
        g = new_game(game, seats, mode, game_seed)
        if lone:
            seat_tallies = [tallies[a] if s == n % seats else tallies[b] for s in range(seats)]
        else:
            seat_tallies = [first if s % 2 == 0 else second for s in range(seats)]
        side_tally = {g.side_of(s): t for s, t in enumerate(seat_tallies)}
        play_game(g, seat_tallies, players, rng)
        for side, tally in side_tally.items():
            tally.results.append(lowest_score(g, side))
        ranking = g.ranking()
        assert ranking is not None
        best = {side_tally[side].label for side in ranking[0]}
        if lone and len(ranking[0]) > 1:
            best = {a, b}  # shared at the top: a draw, even among b's seats
        if len(best) == 1:
            winner = best.pop()
    return GameOutcome(
        {t.label: t.results for t in tallies.values()},
        {t.label: t.seconds for t in tallies.values()},
        winner,
    )


def run_match(
    a: str,
    b: str,
    players: dict[str, Player],
    game: str = "genial",
    seats: int = 2,
    mode: str | None = None,
    games: int = 100,
    seed: int = 0,
    progress: bool = False,
    lone: bool = False,
    workers: int = 1,
) -> dict[str, Any]:
    """Play ``games`` games between the players labelled ``a`` and ``b`` and sum them up.

    Seats alternate: in even games ``a`` sits in seats 0, 2, … and ``b`` in 1, 3, …; in odd
    games the other way round (in the team game each level is one team). With ``lone`` (3
    or 4 seats, each its own side) ``a`` sits in one seat only, seat ``n % seats`` in game
    ``n``, and ``b`` in all the others; ``a`` wins a game when it alone is first, ``b`` when
    one of its seats alone is, and a game shared at the top is a draw (fair share for ``a``:
    one in ``seats``). In the solo game both play the same tile order, one after the other,
    and the higher result wins.

    Each game's seeds are drawn from ``seed`` before it is played, so with ``workers`` > 1
    (games played side by side in that many processes; the players must then be picklable,
    as :func:`level_player`'s are) the match gives the same figures but the move times.

    Raises:
        ValueError: for a bad game, mode or player count, or fewer than one game or worker.
    """
    if games < 1:
        raise ValueError("a match needs at least one game")
    if workers < 1:
        raise ValueError("a match needs at least one worker")
    if lone and (seats < 3 or mode == "team"):
        raise ValueError("one seat against the rest needs 3 or 4 seats, each its own side")
    new_game(game, seats, mode, 0)  # a bad game, mode or count fails here, not in a worker
    tallies = {a: Tally(a), b: Tally(b)}
    draws = 0
    master = random.Random(seed)
    seeds = [(master.getrandbits(32), master.getrandbits(32)) for _ in range(games)]
    play = partial(one_game, a, b, players, game, seats, mode, lone)
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        outcomes: Iterator[GameOutcome] = (
            pool.map(play, range(games), seeds) if pool else map(play, range(games), seeds)
        )
        for n, outcome in enumerate(outcomes):
            for label, tally in tallies.items():
                tally.results += outcome.results[label]
                tally.seconds += outcome.seconds[label]
            if outcome.winner is None:
                draws += 1
            else:
                tallies[outcome.winner].wins += 1
            if progress:
                wins = ", ".join(f"{t.label} {t.wins}" for t in tallies.values())
                print(f"game {n + 1}/{games}: {wins}, draws {draws}", file=sys.stderr, flush=True)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return {
        "game": game,
        "mode": getattr(new_game(game, seats, mode, 0), "mode", None),
        "players": seats,
        "games": games,
        "seed": seed,
        "levels": {"a": a, "b": b},
        "lone": lone,
        "wins": {t.label: t.wins for t in tallies.values()},
        "draws": draws,
        "win_rate": {t.label: round(t.wins / games, 4) for t in tallies.values()},
        "mean_score": {
            t.label: round(sum(t.results) / len(t.results), 3) for t in tallies.values()
        },
        "seconds_per_move": {
            t.label: {
                "mean": round(sum(t.seconds) / max(1, len(t.seconds)), 5),
                "p95": round(percentile(t.seconds, 0.95), 5),
                "moves": len(t.seconds),
            }
            for t in tallies.values()
        },
    }


def match(
    a: str,
    b: str,
    game: str = "genial",
    players: int = 2,
    mode: str | None = None,
    games: int = 100,
    seed: int = 0,
    progress: bool = False,
    lone: bool = False,
    workers: int = 1,
) -> dict[str, Any]:
    """:func:`run_match` between two levels; the same level twice is labelled ``L/a``, ``L/b``.

    Raises:
        ValueError: for an unknown level, or as :func:`run_match`.
    """
    la, lb = (f"{a}/a", f"{b}/b") if a == b else (a, b)
    table = {la: level_player(a), lb: level_player(b)}
    return run_match(la, lb, table, game, players, mode, games, seed, progress, lone, workers)
