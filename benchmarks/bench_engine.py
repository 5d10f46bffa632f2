"""Genial engine speed: random games, games that list every legal move each turn, listing
and scoring every placement, and the greedy player's time per move.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--seconds 3]``. Goals, one core:

- issue 2: >= 300 random 2-player games/s; <= 2 ms to list and score all placements
  mid-game (4 players);
- issue 14: >= 500 list-every-move 2-player games/s; greedy time per move p95 <= 1 ms (2
  players);
- issue 50: list-every-move games >= 1.2x the C++ engine ludamad/ingenious, 2 and 4
  players, side by side (``--listing-only PLAYERS``; docs/measurements.md says how).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable

from engine.ai import choose_move
from engine.genial import GenialGame, GenialView
from engine.moves import KEEP, SWAP

RANDOM_GOAL = 300.0
LISTING_GOAL_MS = 2.0
LIST_EVERY_MOVE_GOAL = 500.0
GREEDY_P95_GOAL_MS = 1.0


def random_game(players: int, seed: int, mode: str | None = None) -> GenialGame:
    """A complete game of random legal placements, every rule applied (swaps at random)."""
    rng = random.Random(seed)
    game = GenialGame(players, mode, seed=seed)
    play = game.play
    while not game.over:
        if game.awaiting == "swap":
            play(SWAP if rng.random() < 0.5 else KEEP)
        else:
            play(game.random_placement(rng))
    return game


def list_every_move_game(players: int, seed: int, mode: str | None = None) -> GenialGame:
    """A complete game where every turn lists every legal move and plays a random one (what
    the computer players and hints do: they look at every move)."""
    rng = random.Random(seed)
    game = GenialGame(players, mode, seed=seed)
    play = game.play
    legal = game.legal_moves
    while not game.over:
        moves = legal()
        play(moves[rng.randrange(len(moves))])
    return game


def games_per_second(
    game: Callable[[int, int, str | None], GenialGame],
    players: int,
    seconds: float,
    mode: str | None = None,
) -> float:
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game(players, n, mode)
        n += 1
    return n / (time.process_time() - start)


def mid_game_position(seed: int) -> GenialGame:
    """A 4-player game after 40 random placements (about half the board covered)."""
    rng = random.Random(seed)
    game = GenialGame(4, seed=seed)
    placed = 0
    while placed < 40 and not game.over:
        if game.awaiting == "swap":
            game.play(KEEP)
        else:
            game.play(game.random_placement(rng))
            placed += 1
    while game.awaiting == "swap":
        game.play(KEEP)
    return game


def listing_ms(repeats: int = 200) -> tuple[float, int]:
    times = []
    count = 0
    for seed in range(5):
        game = mid_game_position(seed)
        game.placements_with_points()  # warm-up
        for _ in range(repeats // 5):
            t = time.process_time()
            moves = game.placements_with_points()
            times.append(time.process_time() - t)
            count = len(moves)
    return statistics.median(times) * 1000, count


def greedy_views(players: int, games: int) -> list[GenialView]:
    """The view of the seat to move at every turn of games the greedy player plays."""
    out = []
    for n in range(games):
        game = GenialGame(players, seed=1000 + n)
        rng = random.Random(n)
        while not game.over:
            view = game.view(game.to_move)
            out.append(view)
            game.play(choose_move(view, "greedy", rng.getrandbits(32)), game.to_move)
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def greedy_ms(players: int, games: int) -> tuple[float, float, int]:
    """Mean and p95 milliseconds of the greedy player's move, and the number of moves."""
    views = greedy_views(players, games)
    times = []
    for n, view in enumerate(views):
        started = time.process_time()
        choose_move(view, "greedy", n)
        times.append((time.process_time() - started) * 1000)
    return statistics.fmean(times), p95(times), len(times)


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per games/s figure")
    parser.add_argument("--games", type=int, default=5, help="greedy games per setup")
    parser.add_argument(
        "--listing-only",
        type=int,
        metavar="PLAYERS",
        help="only list-every-move games of that many players, after 3 untimed ones (for"
        " runs side by side with another engine)",
    )
    args = parser.parse_args()
    if args.listing_only:
        for seed in range(3):
            list_every_move_game(args.listing_only, 10**6 + seed)
        rate = games_per_second(list_every_move_game, args.listing_only, args.seconds)
        print(f"list-every-move games/s, {args.listing_only}p standard : {rate:8.1f}")
        return
    for players, mode in ((2, None), (3, None), (4, None), (4, "team"), (1, None)):
        label = f"{players}p {mode or ('solo' if players == 1 else 'standard')}"
        rate = games_per_second(random_game, players, args.seconds, mode)
        goal = (
            f"  (goal >= {RANDOM_GOAL:.0f}: {verdict(rate >= RANDOM_GOAL)})" if players == 2 else ""
        )
        print(f"random games/s,          {label:12}: {rate:8.1f}{goal}")
    for players in (2, 4):
        rate = games_per_second(list_every_move_game, players, args.seconds)
        goal = (
            f"  (goal >= {LIST_EVERY_MOVE_GOAL:.0f}: {verdict(rate >= LIST_EVERY_MOVE_GOAL)})"
            if players == 2
            else ""
        )
        print(f"list-every-move games/s, {players}p standard : {rate:8.1f}{goal}")
    ms, count = listing_ms()
    print(
        f"list + score all placements, mid-game 4p: {ms:.3f} ms median ({count} placements)"
        f"  (goal <= {LISTING_GOAL_MS:.0f} ms: {verdict(ms <= LISTING_GOAL_MS)})"
    )
    for players in (2, 4):
        mean, high, moves = greedy_ms(players, args.games)
        goal = (
            f"  (goal p95 <= {GREEDY_P95_GOAL_MS:.0f} ms: {verdict(high <= GREEDY_P95_GOAL_MS)})"
            if players == 2
            else ""
        )
        print(
            f"greedy ms per move, {players}p standard: mean {mean:.3f}, p95 {high:.3f}"
            f" ({moves} moves){goal}"
        )


if __name__ == "__main__":
    main()
