"""How long a tournament round takes to pair (issue 30), in CPU seconds: Swiss rounds of
two-player games and of tables of four for fields of 8 to 256 players, each round's
results drawn at random (seeded), and a field that has played more rounds than it has
opponents (repeats cannot be avoided: the search's step budget is what bounds it).

    python benchmarks/bench_pairing.py [--seed N]

Prints, per case, the slowest round's pairing time and the repeat pairings made."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.tournaments.pairing import Result, met, order, swiss_pairs, swiss_tables


def run(players: int, rounds: int, size: int, rng: random.Random) -> tuple[float, int]:
    field = [f"p{i:03d}" for i in range(players)]
    rating = {p: rng.randrange(800, 2000) for p in field}
    results: list[Result] = []
    byes: list[str] = []
    slowest = 0.0
    for _ in range(rounds):
        ranked = order(field, results, byes, rating)
        start = time.process_time()
        if size == 2:
            pairs, bye = swiss_pairs(ranked, results, byes)
            tables = [tuple(p) for p in pairs]
            round_byes = [bye] if bye else []
        else:
            tables, round_byes = swiss_tables(ranked, results, byes, size)
        slowest = max(slowest, time.process_time() - start)
        byes += round_byes
        for t in tables:
            places = list(range(1, len(t) + 1))
            rng.shuffle(places)
            results.append(Result(tuple(t), tuple(places)))
    repeats = sum(n - 1 for n in met(results).values() if n > 1)
    return slowest, repeats


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cases = [
        (8, 5, 2),
        (9, 5, 2),
        (64, 7, 2),
        (101, 9, 2),
        (256, 9, 2),
        (12, 15, 2),
        (11, 15, 2),
        (64, 7, 4),
        (101, 9, 3),
    ]
    print("players rounds table  slowest round (CPU s)  repeat pairings")
    for players, rounds, size in cases:
        slowest, repeats = run(players, rounds, size, random.Random(args.seed))
        print(f"{players:7d} {rounds:6d} {size:5d}  {slowest:21.4f}  {repeats:15d}")


if __name__ == "__main__":
    main()
