"""A full garbage collection in a started bot, before and after it settles (issue 50).

    .venv/bin/python benchmarks/bench_settle.py [--runs 5]

Each run is a new process that imports what a started bot has imported (both platforms'
adapters, the service, the renderer, the computer players), then times full collections
(``gc.collect()``, CPU time, the fastest of five) before and after
``bot.operator.memory.settle`` (the launcher calls it once the bot has started, before its
first message). Before, each full collection walks every object the start made; after, only
what was made since. The medians of the runs are printed, CPU time beside the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import gc, json, time
import bot.discord, bot.service, bot.telegram, engine.ai.master, render
from bot.operator import memory

def full():
    cpu, wall = time.process_time(), time.perf_counter()
    gc.collect()
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000

gc.collect()
walked = len(gc.get_objects())
before = min(full() for _ in range(5))
frozen = memory.settle()
after = min(full() for _ in range(5))
print(json.dumps({"walked": walked, "frozen": frozen, "before": before, "after": after}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="new processes")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", CHILD], check=True, capture_output=True, text=True, env=env
        )
        runs.append(json.loads(out.stdout))

    def median(key: str, k: int) -> float:
        return statistics.median(r[key][k] for r in runs)

    print(f"{args.runs} new processes, load {os.getloadavg()[0]:.1f}")
    print(
        f"a full collection in a started bot ({runs[0]['walked']:,} objects): CPU median"
        f" {median('before', 0):.2f} ms (wall {median('before', 1):.2f}) before it settles;"
        f" {median('after', 0):.3f} ms (wall {median('after', 1):.3f}) after"
        f" ({runs[0]['frozen']:,} objects frozen)"
    )


if __name__ == "__main__":
    main()
