"""Genial Spezial engine speed: random games per second, games that list every legal
placement each turn, and the cost of listing moves.

Run: ``.venv/bin/python benchmarks/bench_spezial.py [--games N]``. The goal is a random
2-player game well under 10 ms. Times are this process's CPU time (``time.process_time``,
since issue 31: other jobs on a shared machine disturb it least), the best of a few repeats.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

from engine.spezial import SpezialGame


def random_games(players: int, games: int) -> float:
    """Seconds per random game, setup included."""
    rng = random.Random(players)
    start = time.process_time()
    for seed in range(games):
        game = SpezialGame(players, seed=seed)
        while not game.over:
            game.play(game.random_placement(rng))
    return (time.process_time() - start) / games


def list_every_move_games(players: int, games: int) -> float:
    """Seconds per game where every turn lists every legal placement and plays a random
    one (what the computer players and hints do: they look at every placement)."""
    rng = random.Random(players)
    start = time.process_time()
    for seed in range(games):
        game = SpezialGame(players, seed=seed)
        while not game.over:
            moves = game.legal_moves()
            game.play(moves[rng.randrange(len(moves))])
    return (time.process_time() - start) / games


def midgame(players: int) -> SpezialGame:
    """A position after half the tiles were placed at random."""
    game = SpezialGame(players, seed=1)
    rng = random.Random(1)
    for _ in range(10 * players):
        game.play(game.random_placement(rng))
    return game


def per_call(fn: Callable[[], object], repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"Genial Spezial engine (CPU time; load average {os.getloadavg()[0]:.1f})")
    for players in (2, 3, 4):
        best = min(random_games(players, args.games) for _ in range(args.repeats))
        print(
            f"  random {players}-player game: {best * 1e3:6.2f} ms"
            f"  ({1 / best:7.0f} games/s, best of {args.repeats} x {args.games})"
        )
    for players in (2, 4):
        best = min(list_every_move_games(players, args.games) for _ in range(args.repeats))
        print(
            f"  list-every-move {players}-player game: {best * 1e3:6.2f} ms"
            f"  ({1 / best:7.0f} games/s, best of {args.repeats} x {args.games})"
        )
    for players in (2, 4):
        game = midgame(players)
        n = len(game.legal_moves())
        lm = min(per_call(game.legal_moves, 200) for _ in range(args.repeats))
        pw = min(per_call(game.placements_with_points, 50) for _ in range(args.repeats))
        cp = min(per_call(game.copy, 2000) for _ in range(args.repeats))
        print(
            f"  {players}-player mid-game, {n} legal moves: legal_moves {lm * 1e6:7.0f} us,"
            f" placements_with_points {pw * 1e6:7.0f} us, copy {cp * 1e6:5.1f} us"
        )


if __name__ == "__main__":
    main()
