"""Matches between computer players: levels against each other, seats alternated.

Used by ``python -m engine match`` to measure the players (win rates, results, time per
move). Every game and every move is seeded from the match seed, so a match replays exactly.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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

    def play(view: View, seed: int) -> Move:
        return choose_move(view, level, seed)

    return play


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
) -> dict[str, Any]:
    """Play ``games`` games between the players labelled ``a`` and ``b`` and sum them up.

    Seats alternate: in even games ``a`` sits in seats 0, 2, … and ``b`` in 1, 3, …; in odd
    games the other way round (in the team game each level is one team). With ``lone`` (3
    or 4 seats, each its own side) ``a`` sits in one seat only, seat ``n % seats`` in game
    ``n``, and ``b`` in all the others; ``a`` wins a game when it alone is first, ``b`` when
    one of its seats alone is, and a game shared at the top is a draw (fair share for ``a``:
    one in ``seats``). In the solo game both play the same tile order, one after the other,
    and the higher result wins.

    Raises:
        ValueError: for a bad game, mode or player count, or fewer than one game.
    """
    if games < 1:
        raise ValueError("a match needs at least one game")
    if lone and (seats < 3 or mode == "team"):
        raise ValueError("one seat against the rest needs 3 or 4 seats, each its own side")
    tallies = {a: Tally(a), b: Tally(b)}
    draws = 0
    master = random.Random(seed)
    for n in range(games):
        game_seed = master.getrandbits(32)
        rng = random.Random(master.getrandbits(32))
        first, second = (tallies[a], tallies[b]) if n % 2 == 0 else (tallies[b], tallies[a])
        if seats == 1:
            outcomes = []
            for tally in (first, second):
                g = new_game(game, 1, mode, game_seed)
                play_game(g, [tally], players, rng)
                outcomes.append(lowest_score(g, 0))
                tally.results.append(outcomes[-1])
            if outcomes[0] == outcomes[1]:
                draws += 1
            else:
                (first if outcomes[0] > outcomes[1] else second).wins += 1
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
                tallies[best.pop()].wins += 1
            else:
                draws += 1
        if progress:
            wins = ", ".join(f"{t.label} {t.wins}" for t in tallies.values())
            print(f"game {n + 1}/{games}: {wins}, draws {draws}", file=sys.stderr, flush=True)
    return {
        "game": game,
        "mode": getattr(g, "mode", None),
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
) -> dict[str, Any]:
    """:func:`run_match` between two levels; the same level twice is labelled ``L/a``, ``L/b``.

    Raises:
        ValueError: for an unknown level, or as :func:`run_match`.
    """
    la, lb = (f"{a}/a", f"{b}/b") if a == b else (a, b)
    table = {la: level_player(a), lb: level_player(b)}
    return run_match(la, lb, table, game, players, mode, games, seed, progress, lone)
