"""The computer players with their C loops and with the pure-Python ones, side by side.

Every position (of the same greedy games as ``bench_ai.py``) is decided twice in one
process, once each way, the order alternating from one position to the next, so that
whatever else the machine does falls on both alike. Prints, per setup and level, the CPU
milliseconds per move (``time.process_time``) of each way, median and p95, their ratio,
and whether every move was the same (it must be: the C loops compute the same doubles).

    python benchmarks/bench_kernel.py [--games 3] [--every 2] [--levels strong,expert]

``--levels master`` compares master as each machine runs it: its full budget with the C
loops, a quarter from 40 empty cells on without them (so its moves differ). ``--playouts``
times the greedy play-outs themselves instead (expert's and master's, from each position's
best greedy placement over the same deals, each way in turns): CPU per play-out and ratio.
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
from engine.ai.evaluation import DEFAULT_WEIGHTS
from engine.ai.genial_players import determinise, play_out, rank_placements, redeal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per setup (default 3)")
    parser.add_argument("--every", type=int, default=2, help="time every n-th position")
    parser.add_argument("--levels", default="strong,expert", help="comma-separated")
    parser.add_argument("--setups", default="", help="e.g. genial-2-standard,genial-4-team")
    parser.add_argument("--playouts", type=int, default=0, help="time n play-outs a position")
    args = parser.parse_args()
    fast = kernel.kernel
    if fast is None:
        sys.exit("the C loops are not built here (pip install -e . compiles them)")
    if args.playouts:
        time_playouts(fast, args)
        return
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


def time_playouts(fast: object, args: argparse.Namespace) -> None:
    """CPU per greedy play-out (to the end, or 60 placements), C loop against Python."""
    wanted = set(args.setups.split(",")) if args.setups else None
    print(f"{'setup':<20} {'play-outs':>9}   {'C ms':>7}   {'Py ms':>7}   {'ratio':>5}  same")
    for game_name, players, mode in SETUPS:
        name = f"{game_name}-{players}-{mode}"
        if game_name != "genial" or (wanted is not None and name not in wanted):
            continue
        cpu = {"c": 0.0, "python": 0.0}
        count = 0
        same = True
        for n, view in enumerate(views(game_name, players, mode, args.games, args.every)):
            if view.awaiting != "place":
                continue
            base = determinise(view, random.Random(n))
            seat = view.seat
            spot = base._layout.where[rank_placements(base, DEFAULT_WEIGHTS)[0][0]]
            for k in range(args.playouts):
                world = redeal(base, seat, random.Random(k))
                ends = {}
                for way in ("c", "python") if k % 2 else ("python", "c"):
                    kernel.kernel = fast if way == "c" else None
                    start = time.process_time()
                    end = play_out(world, spot, 60, random.Random(k), DEFAULT_WEIGHTS)
                    cpu[way] += time.process_time() - start
                    ends[way] = (end.scores, end.over)
                same = same and ends["c"] == ends["python"]
                count += 1
        kernel.kernel = fast
        c_ms, py_ms = cpu["c"] * 1000 / count, cpu["python"] * 1000 / count
        print(
            f"{name:<20} {count:>9}   {c_ms:7.3f}   {py_ms:7.3f}   {py_ms / c_ms:5.1f}"
            f"  {'yes' if same else 'NO'}",
            flush=True,
        )


if __name__ == "__main__":
    main()
