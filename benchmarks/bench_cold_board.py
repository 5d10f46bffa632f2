"""The first board of a fresh process: CPU time of a new Python process's first board image
(drawn and PNG-encoded), for a late 4-player Genial game and a late 4-player Genial
Spezial game, each run in a process of its own (issue 50).

    .venv/bin/python benchmarks/bench_cold_board.py [--runs 7] [--no-pieces]

Each run starts a new interpreter, which imports Pillow, the engine and the renderer, sets
up the position (untimed), starts as a bot starts (it opens the file of pieces,
``prebuilt.ready``, as bot/core/images.py's ``prepare_pieces`` does, and settles:
``memory.settle``, the start's objects frozen out of the garbage collector's walks,
bot/operator/memory.py) and renders it once: the CPU time of that ``board_png`` call
(``time.process_time``) is the figure, with everything a first board builds or loads in it
(fonts, the palette, the empty board and the sprites from the file of pieces drawn ahead
of time, render/prebuilt.py, every band deflated). The imports are not in it: a bot
imports the renderer when it starts, before its first command (bot/service.py imports
bot/pages/looks.py, which imports render), so a restarted bot's first board pays for
none. They are printed apart, Pillow's alone too (what ``import PIL.Image`` with the
modules the renderer uses costs a new process), as is the first board with the imports.
Runs of the two games take turns; the medians of the runs are printed, the fastest and
slowest beside them, and how many garbage collections fell in the timed boards (a full one
walked every object the imports made before the bot settled: 1-2 ms of such a board).
Also printed: the pages of memory the first board touched for the first time (minor page
faults, ``getrusage``) and what one such page costs this machine's CPU (each run touches
4 MB of new memory after its boards, once): that price is the host's, not the code's
(3.8-5.1 us on 2026-12-07's virtual machine, where a first board touched 700-1,100 pages).

The file of pieces is built, never committed (the Dockerfile builds it at image build, the
bot on its first start on a machine): this script builds it first, untimed, into a
temporary folder with ``python -m render pieces`` and points every run at it
(``GENIAL_RENDER_PIECES``), and says so in its output; ``--no-pieces`` points them at no
file instead (every piece drawn: a machine where none was built yet).
``bench_render.py``'s "cold" column is another thing: a board in a warm process with its
caches of boards and bands emptied. Goal (issue 50): <= 20 ms CPU for each, imports not
counted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

GOAL_MS = 20.0
ROOT = Path(__file__).resolve().parent.parent

# What runs in each new process: the position first, then one timed render.
CHILD = """
import json, mmap, resource, sys, time
started = time.process_time()
import PIL.Image, PIL.ImageDraw, PIL.ImageFont, PIL.ImagePalette
pillow = time.process_time()
import engine.genial, engine.spezial
import render
imported = time.process_time()
from benchmarks.first_boards import genial_late, spezial_late
game = genial_late() if sys.argv[1] == "genial" else spezial_late()
view = game.view(None)
import gc
from bot.operator import memory
from render import prebuilt
prebuilt.ready()  # as the bot's start does (bot/core/images.py: prepare_pieces)
memory.settle()  # as the bot does once it has started (bot/__main__.py), before any board
full = []
gc.callbacks.append(lambda phase, info: phase == "start" and full.append(info["generation"]))
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
before = time.process_time()
data = render.board_png(view)
first = time.process_time() - before
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
gc.callbacks.clear()
before = time.process_time()
render.board_png(view)
again = time.process_time() - before
fresh = mmap.mmap(-1, 4 << 20)  # anonymous: no page of it touched yet
touched = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
before = time.process_time()
for at in range(0, len(fresh), mmap.PAGESIZE):
    fresh[at] = 1
page = time.process_time() - before
page /= max(1, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - touched)
print(json.dumps({"imports": imported - started, "pillow": pillow - started, "first": first,
                  "again": again, "bytes": len(data), "faults": faults, "page": page,
                  "collections": len(full), "full": full.count(2)}))
"""

KINDS = (("genial", "Genial 4p late"), ("spezial", "Genial Spezial 4p late"))


def run(kind: str, pieces: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env["GENIAL_RENDER_PIECES"] = str(pieces)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="new processes per board")
    parser.add_argument(
        "--no-pieces", action="store_true", help="no file of pieces: every piece drawn"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as folder:
        pieces = Path(folder) / "pieces.bin"
        if args.no_pieces:
            said = "no file of pieces drawn ahead of time (every piece drawn in each process)"
        else:
            subprocess.run(
                [sys.executable, "-m", "render", "pieces", str(pieces)], check=True, cwd=ROOT
            )
            said = f"pieces drawn ahead of time into {pieces} first (untimed)"
        runs: dict[str, list[dict[str, float]]] = {kind: [] for kind, _ in KINDS}
        for _ in range(args.runs):
            for kind, _ in KINDS:
                runs[kind].append(run(kind, pieces))
    print(f"each figure from {args.runs} new processes per board, load {os.getloadavg()[0]:.1f}")
    print(said)
    for kind, label in KINDS:
        first = [r["first"] * 1000 for r in runs[kind]]
        again = [r["again"] * 1000 for r in runs[kind]]
        imports = [r["imports"] * 1000 for r in runs[kind]]
        pillow = [r["pillow"] * 1000 for r in runs[kind]]
        with_imports = [r["imports"] * 1000 + r["first"] * 1000 for r in runs[kind]]
        faults = statistics.median(r["faults"] for r in runs[kind])
        page_us = statistics.median(r["page"] * 1e6 for r in runs[kind])
        med = statistics.median(first)
        verdict = "met" if med <= GOAL_MS else "NOT met"
        print(
            f"{label:<24} first board CPU median {med:6.1f} ms (fastest {min(first):.1f},"
            f" slowest {max(first):.1f}; goal <= {GOAL_MS:.0f}: {verdict});"
            f" the same board again {statistics.median(again):.1f} ms;"
            f" imports apart {statistics.median(imports):.0f} ms (Pillow alone"
            f" {statistics.median(pillow):.0f}), first board with them"
            f" {statistics.median(with_imports):.0f} ms; {runs[kind][0]['bytes'] / 1024:.1f} KB;"
            f" garbage collections in the first board {sum(r['collections'] for r in runs[kind])}"
            f" in {len(first)} runs, {sum(r['full'] for r in runs[kind])} of them full;"
            f" pages touched for the first time in it {faults:.0f} (median), at"
            f" {page_us:.1f} us of CPU a page here (~{faults * page_us / 1000:.1f} ms)"
        )


if __name__ == "__main__":
    main()
