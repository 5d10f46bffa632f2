"""Genial engine speed: random games per second and listing every placement with its points.

Run: ``.venv/bin/python benchmarks/bench_engine.py``. Goals (issue 2, one core):
>= 300 random 2-player games/s; <= 2 ms to list and score all placements mid-game (4 players).
"""

from __future__ import annotations

import random
import statistics
import time

from engine.genial import GenialGame
from engine.moves import KEEP, SWAP


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


def games_per_second(players: int, seconds: float = 3.0, mode: str | None = None) -> float:
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        random_game(players, n, mode)
        n += 1
    return n / (time.perf_counter() - start)


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
            t = time.perf_counter()
            moves = game.placements_with_points()
            times.append(time.perf_counter() - t)
            count = len(moves)
    return statistics.median(times) * 1000, count


def main() -> None:
    for players, mode in ((2, None), (3, None), (4, None), (4, "team"), (1, None)):
        label = f"{players}p {mode or ('solo' if players == 1 else 'standard')}"
        print(f"random games/s, {label:12}: {games_per_second(players, mode=mode):8.1f}")
    ms, count = listing_ms()
    print(f"list + score all placements, mid-game 4p: {ms:.3f} ms median ({count} placements)")


if __name__ == "__main__":
    main()
