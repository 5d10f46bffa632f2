"""Elo-style ladder from match results: win share, its 95% interval and rating gaps.

Reads the JSON objects that ``python -m engine match`` prints (one file per match, level
``a`` the stronger one) and prints for each match the win share of ``a`` (a draw counts
half), its Wilson 95% interval, and the Elo difference

    D = 400 * log10(p / (1 - p))

with ``p`` the win share, and the same formula at both ends of the interval. A share of
100% would give an infinite gap, so every share ``x`` is first pulled in by half a game,
``p = (x * games + 0.5) / (games + 1)``: a finite, cautious estimate (200-0 gives
1041). Ratings are then summed up the ladder from the first match's weaker level, which
is set to 0.

    python benchmarks/ladder_elo.py greedy-random.json strong-greedy.json expert-strong.json

A match may also be given as ``A:B:SCORE:GAMES`` (``A`` scored ``SCORE`` of ``GAMES``, a
draw counting half), for results published earlier.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

Z95 = 1.959964


def elo(p: float) -> float:
    """The Elo difference that makes ``p`` the expected score of the stronger side."""
    return 400 * math.log10(p / (1 - p))


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share ``successes / n``."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def read_match(given: str) -> tuple[str, str, float, int]:
    """``(a, b, score of a, games)`` from a match JSON file or an ``A:B:SCORE:GAMES`` text.

    Raises:
        ValueError: for a text that is neither.
    """
    if given.count(":") == 3 and not Path(given).exists():
        a, b, score, games = given.split(":")
        return a, b, float(score), int(games)
    result = json.loads(Path(given).read_text(encoding="utf-8"))
    a, b = result["levels"]["a"], result["levels"]["b"]
    return a, b, result["wins"][a] + result["draws"] / 2, int(result["games"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="match JSON files or A:B:SCORE:GAMES")
    args = parser.parse_args()
    print(
        f"{'match':26} {'games':>5} {'share':>7} {'95% interval':>16} {'Elo gap':>8} "
        f"{'gap interval':>14} {'rating':>7}"
    )
    rating = 0.0
    for n, given in enumerate(args.results):
        a, b, score, games = read_match(given)
        low, high = wilson(score, games)
        gap, gap_low, gap_high = (
            elo((x * games + 0.5) / (games + 1)) for x in (score / games, low, high)
        )
        if n == 0:
            print(f"{b:26} {'':>5} {'':>7} {'':>16} {'':>8} {'':>14} {rating:7.0f}")
        rating += gap
        label = f"{a} vs {b}"
        print(
            f"{label:26} {games:5} {score / games:7.1%} {f'{low:.1%} to {high:.1%}':>16} "
            f"{gap:8.0f} {f'{gap_low:.0f} to {gap_high:.0f}':>14} {rating:7.0f}"
        )


if __name__ == "__main__":
    main()
