"""The computer players with their C loops and with the pure-Python ones, side by side.

Every position (of the same greedy games as ``bench_ai.py``) is decided twice in one
process, once each way, the order alternating from one position to the next, so that
whatever else the machine does falls on both alike. Prints, per setup and level, the CPU
milliseconds per move (``time.process_time``) of each way, median and p95, their ratio,
and whether every move was the same (it must be: the C loops compute the same doubles).

    python benchmarks/bench_kernel.py [--games 3] [--every 2] [--levels strong,expert]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ai import SETUPS, p95, views

from engine.ai import choose_move, kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per setup (default 3)")
    parser.add_argument("--every", type=int, default=2, help="time every n-th position")
    parser.add_argument("--levels", default="strong,expert", help="comma-separated")
    parser.add_argument("--setups", default="", help="e.g. genial-2-standard,genial-4-team")
    args = parser.parse_args()
    fast = kernel.kernel
    if fast is None:
        sys.exit("the C loops are not built here (pip install -e . compiles them)")
    levels = args.levels.split(",")
    wanted = set(args.setups.split(",")) if args.setups else None
    print(
        f"{'setup':<20} {'level':<7} {'moves':>5}   {'C med':>7} {'C p95':>7}"
        f"   {'Py med':>7} {'Py p95':>7}   {'ratio':>5}  same moves"
    )
    for game_name, players, mode in SETUPS:
        if game_name != "genial":
            continue  # Genial Spezial's players have no C loops
        name = f"{game_name}-{players}-{mode}"
        if wanted is not None and name not in wanted:
            continue
        positions = list(views(game_name, players, mode, args.games, args.every))
        for level in levels:
            cpu: dict[str, list[float]] = {"c": [], "python": []}
            same = True
            for n, view in enumerate(positions):
                chosen = {}
                for way in ("c", "python") if n % 2 else ("python", "c"):
                    kernel.kernel = fast if way == "c" else None
                    start = time.process_time()
                    chosen[way] = choose_move(view, level, random.Random(n).getrandbits(32))
                    cpu[way].append((time.process_time() - start) * 1000)
                same = same and chosen["c"] == chosen["python"]
            kernel.kernel = fast
            c_med, py_med = statistics.median(cpu["c"]), statistics.median(cpu["python"])
            print(
                f"{name:<20} {level:<7} {len(positions):>5}   {c_med:7.2f} {p95(cpu['c']):7.2f}"
                f"   {py_med:7.2f} {p95(cpu['python']):7.2f}   {py_med / c_med:5.2f}"
                f"  {'yes' if same else 'NO'}",
                flush=True,
            )


if __name__ == "__main__":
    main()
