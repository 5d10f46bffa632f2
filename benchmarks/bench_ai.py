"""Time per move of the computer players, per game setup and level.

Positions come from games played by the greedy player (so they look like real games: bonus
placements, swaps, a board filling up); each level then chooses a move in each position.
Prints one line per setup and level: positions, mean, p95 and max wall milliseconds per move,
and the median, p95 and max of the CPU milliseconds per move (``time.process_time``: what a
goal on one core means, whatever the machine's load). The p95 is the nearest rank, so over
fewer than 20 positions it is the slowest move, and over 20 to 39 the second slowest: the
max beside it says what the slowest cost.

    python benchmarks/bench_ai.py [--games 3] [--every 2] [--levels greedy,strong]

Goals (issue 4): greedy p95 <= 50 ms, strong p95 <= 1 s per move on one core; (issue 14)
expert p95 <= 1 s; (issue 31) expert CPU per move median <= 12 ms, p95 <= 60 ms. Match
win rates are measured with ``python -m engine match`` and summed up by
``benchmarks/ladder_elo.py`` (see benchmarks/AI_RESULTS.md).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine
from engine.ai import LEVELS, choose_move, kernel
from engine.ai.match import new_game

SETUPS: tuple[tuple[str, int, str | None], ...] = (
    ("genial", 2, "standard"),
    ("genial", 3, "standard"),
    ("genial", 4, "standard"),
    ("genial", 4, "team"),
    ("genial", 1, "solo"),
    ("spezial", 2, None),
    ("spezial", 3, None),
    ("spezial", 4, None),
)


def views(game_name: str, players: int, mode: str | None, games: int, every: int) -> Iterator[Any]:
    """Views of the seat to move, every ``every``-th move of greedy games."""
    for n in range(games):
        game = new_game(game_name, players, mode, seed=1000 + n)
        rng = random.Random(n)
        k = 0
        while not game.over:
            view = game.view(game.to_move)
            if k % every == 0:
                yield view
            game.play(choose_move(view, "greedy", rng.getrandbits(32)), game.to_move)
            k += 1


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per setup (default 3)")
    parser.add_argument("--every", type=int, default=2, help="time every n-th position")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated")
    parser.add_argument("--setups", default="", help="e.g. genial-2-standard,spezial-3")
    args = parser.parse_args()
    levels = args.levels.split(",")
    wanted = set(filter(None, args.setups.split(",")))
    # The engine imported may be a checkout without the built C loops (a worktree, or
    # GENIAL_PURE_PYTHON=1): its players then fall back to pure Python, at other costs.
    print(f"engine: {Path(engine.__file__).parent}, C kernel: {kernel.active()}")
    print(
        f"{'setup':22} {'level':7} {'moves':>6} {'mean ms':>9} {'p95 ms':>9} {'max ms':>9}"
        f" {'cpu med':>9} {'cpu p95':>9} {'cpu max':>9}"
    )
    for game_name, players, mode in SETUPS:
        name = "-".join(str(x) for x in (game_name, players, mode) if x)
        if wanted and name not in wanted:
            continue
        try:
            positions = list(views(game_name, players, mode, args.games, args.every))
        except Exception as exc:  # Spezial may not be available in this engine yet
            print(f"{name:22} skipped: {exc}")
            continue
        for level in levels:
            times = []
            cpu = []
            for n, view in enumerate(positions):
                started = time.perf_counter()
                cpu_started = time.process_time()
                choose_move(view, level, n)
                cpu.append((time.process_time() - cpu_started) * 1000)
                times.append((time.perf_counter() - started) * 1000)
            print(
                f"{name:22} {level:7} {len(times):6} {sum(times) / len(times):9.2f} "
                f"{p95(times):9.2f} {max(times):9.2f} {statistics.median(cpu):9.2f} "
                f"{p95(cpu):9.2f} {max(cpu):9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
