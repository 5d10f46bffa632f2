"""Board images in instructions, not time: what a new process's first board and a whole
game's boards (one a placement, in the order of play, as a table draws them) cost in CPU
instructions counted by Valgrind's callgrind, for a late 4-player Genial board and 2- and
4-player games.

    .venv/bin/python benchmarks/bench_render_instructions.py [--games 2,4]

CPU time on a shared machine moves by a third from one run to the next (the same first
board took 21.6 to 36.4 ms in five new processes on 2026-12-07, load 0.5), so a change of a
few per cent to the renderer cannot be seen in it; counted instructions do not move. Each
figure is the instructions of a process that sets up the positions and renders them, less
those of the same process that only sets them up (the engine, the imports and Python's
start-up are in both). Instructions are not time: memory touched for the first time (page
faults) and cache misses are not in them; ``bench_cold_board.py`` and ``bench_render.py``
give the time.

Needs ``valgrind`` (Debian's package); the file of pieces is built first into a temporary
folder, as ``bench_cold_board.py`` does, and every run points at it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One process: the positions first (always), then (``render`` given) their boards.
CHILD = """
import random, sys
from engine.genial import GenialGame
from engine.moves import KEEP
import render
kind, players, draw = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "render"
game = GenialGame(players, seed=7 if kind == "first" else 11)
rng = random.Random(7 if kind == "first" else 11)
views = []
while not game.over and (kind == "game" or len(views) < 60):
    if game.awaiting == "swap":
        game.play(KEEP)
        continue
    game.play(game.random_placement(rng))
    views.append(game.view(None))
if kind == "first":
    views = views[-1:]
if draw:
    for view in views:
        render.board_png(view)
print(len(views))
"""


def instructions(kind: str, players: int, draw: bool, pieces: Path) -> tuple[int, int]:
    """The instructions callgrind counted in one process, and the boards it drew."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env["GENIAL_RENDER_PIECES"] = str(pieces)
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as folder:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={Path(folder) / 'out'}",
                sys.executable,
                "-c",
                CHILD,
                kind,
                str(players),
                "render" if draw else "setup",
            ],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
        )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count:\n{out.stderr[-2000:]}")
    return int(found.group(1)), int(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="2,4", help="players of the whole games drawn")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as folder:
        pieces = Path(folder) / "pieces.bin"
        subprocess.run(
            [sys.executable, "-m", "render", "pieces", str(pieces)], check=True, cwd=ROOT
        )
        print(f"pieces drawn ahead of time into {pieces} first (untimed)")
        runs = [("first", 4, "first board of a new process, Genial 4p late")]
        runs += [
            ("game", int(p), f"every board of a {p}-player game") for p in args.games.split(",")
        ]
        for kind, players, said in runs:
            setup, _ = instructions(kind, players, False, pieces)
            total, boards = instructions(kind, players, True, pieces)
            spent = total - setup
            each = (
                "1 board"
                if boards == 1
                else f"{boards} boards, {spent / boards / 1e6:.2f} M a board"
            )
            print(f"{said:48}: {spent / 1e6:8.2f} M instructions ({each})")


if __name__ == "__main__":
    main()
