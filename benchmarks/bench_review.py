"""CPU time of the expert's review of a whole game (issues 29 and 47), per game setup.

Games are played by the strong player (real-looking games: bonus placements, swaps, a full
board), then each is reviewed with :func:`engine.review.review_game` (the judge's best
placement and every side's chance to win after every move, from play-outs), its chart of
the chances drawn (:func:`render.review.chances_chart_png`, as ``/review`` and the web
board show it), and searched for puzzle positions, as the bot does after every game, off
the table's path. Prints, per setup, the games, mean, p95 and max CPU seconds of one review
with its chart, and of the review with the chart and the puzzle search
(``time.process_time``: one core, not the machine's load).

    python benchmarks/bench_review.py [--games 20] [--setups genial-4]

Goal (issue 47): <= 20 s for a 4-player game's review with its chart on one core (issue
29's: p95 <= 30 s with the puzzle search).
"""

from __future__ import annotations

import argparse
import math
import time

from engine.ai import choose_move
from engine.genial import GenialGame
from engine.record import Record
from engine.review import find_puzzles, review_game, series
from engine.spezial import SpezialGame
from render.review import chances_chart_png

SETUPS = {
    "genial-2": ("genial", 2, "standard"),
    "genial-3": ("genial", 3, "standard"),
    "genial-4": ("genial", 4, "standard"),
    "team-4": ("genial", 4, "team"),
    "spezial-4": ("spezial", 4, None),
}


def played(game_name: str, players: int, mode: str | None, seed: int) -> Record:
    game: GenialGame | SpezialGame
    game = GenialGame(players, mode, seed=seed) if game_name == "genial" else SpezialGame(players)
    if isinstance(game, SpezialGame):
        game = SpezialGame(players, seed=seed)
    n = 0
    while not game.over:
        move = choose_move(game.view(game.to_move), "strong", seed * 10_000 + n)
        game.play(move)  # type: ignore[arg-type]
        n += 1
    return Record.from_dict(game.record())


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--setups", default="genial-4", help="comma-separated: " + ",".join(SETUPS))
    args = parser.parse_args()
    for name in args.setups.split(","):
        game_name, players, mode = SETUPS[name]
        times: list[float] = []
        whole: list[float] = []
        moves: list[int] = []
        for seed in range(1, args.games + 1):
            record = played(game_name, players, mode, seed)
            start = time.process_time()
            review = review_game(record)
            if review.chances is not None:
                sides = len(review.chances[0])
                lines = [series(review.chances, side) for side in range(sides)]
                chances_chart_png(lines, [f"P{n}" for n in range(sides)], "Chance to win")
            reviewed = time.process_time()
            find_puzzles(record)
            times.append(reviewed - start)
            whole.append(time.process_time() - start)
            moves.append(len(record.moves))
        print(
            f"{name}: {len(times)} games, {sum(moves) / len(moves):.0f} moves a game;"
            f" review with its chart CPU s: mean {sum(times) / len(times):.1f},"
            f" p95 {p95(times):.1f}, max {max(times):.1f}; with the puzzle search: mean"
            f" {sum(whole) / len(whole):.1f}, p95 {p95(whole):.1f}, max {max(whole):.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
