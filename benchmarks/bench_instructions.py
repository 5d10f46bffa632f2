"""CPU work in instructions, not time: what the renderer and the master player cost in
CPU instructions counted by Valgrind's callgrind. The boards: a new process's first board
(``bench_cold_board.py``'s late 4-player Genial and Genial Spezial boards, the file of
pieces opened first as a bot's start opens it) and a whole game's boards (one a
placement, in the order of play, as a table draws them), for 2- and 4-player games. The
master player (``--master``): its moves at four positions of a 2-player game, with the C
kernel if it is built.

    .venv/bin/python benchmarks/bench_instructions.py [--games 2,4] [--master]

CPU time on a shared machine moves by a third from one run to the next (the same first
board took 21.6 to 36.4 ms in five new processes on 2026-12-07, load 0.5), so a change of a
few per cent cannot be seen in it; counted instructions do not move. Each figure is the
instructions of a process that sets up the positions and then renders them or moves,
less those of the same process that only sets them up (the engine, the imports and
Python's start-up are in both). Instructions are not time: memory touched for the first
time (page faults) and cache misses are not in them; ``bench_cold_board.py``,
``bench_render.py`` and ``bench_ai.py`` give the time.

Needs ``valgrind`` (Debian's package); the file of pieces is built first into a temporary
folder, as ``bench_cold_board.py`` does, and every run points at it. Under callgrind a
process runs some 50 times slower: the boards take about two minutes, the master's four
moves about as long.
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
from render import prebuilt
from benchmarks.first_boards import genial_late, spezial_late
kind, players, draw = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "render"
views = []
if kind == "first":  # bench_cold_board.py's late boards
    views.append(genial_late().view(None))
elif kind == "spezial":
    views.append(spezial_late().view(None))
else:
    game = GenialGame(players, seed=11)
    rng = random.Random(11)
    while not game.over:
        if game.awaiting == "swap":
            game.play(KEEP)
            continue
        game.play(game.random_placement(rng))
        views.append(game.view(None))
prebuilt.ready()  # the file of pieces opened, as a bot's start opens it (bot/core/images.py)
if draw:
    for view in views:
        render.board_png(view)
print(len(views))
"""

# The master's moves: four positions of a 2-player game (after 4, 13, 22 and 31 random
# placements), each seat's own view, the same seed for each move.
MASTER = """
import random, sys
from engine.genial import GenialGame
from engine.moves import KEEP
from engine.ai.master import master_move
game = GenialGame(2, seed=5)
rng = random.Random(5)
views, placed = [], 0
while not game.over and placed < 36:
    if game.awaiting == "swap":
        game.play(KEEP)
        continue
    if placed % 9 == 4:
        views.append(game.view(game.to_move))
    game.play(game.random_placement(rng))
    placed += 1
if sys.argv[1] == "render":
    for view in views:
        master_move(view, random.Random(1))
print(len(views))
"""


def instructions(kind: str, players: int, draw: bool, pieces: Path) -> tuple[int, int]:
    """The instructions callgrind counted in one process, and the boards it drew (or the
    moves it chose: ``kind`` "master")."""
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
                *(
                    (MASTER, "render" if draw else "setup")
                    if kind == "master"
                    else (CHILD, kind, str(players), "render" if draw else "setup")
                ),
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
    parser.add_argument("--master", action="store_true", help="the master's moves too")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as folder:
        pieces = Path(folder) / "pieces.bin"
        subprocess.run(
            [sys.executable, "-m", "render", "pieces", str(pieces)], check=True, cwd=ROOT
        )
        print(f"pieces drawn ahead of time into {pieces} first (untimed)")
        runs = [
            ("first", 4, "first board of a new process, Genial 4p late"),
            ("spezial", 4, "first board of a new process, Spezial 4p late"),
        ]
        runs += [
            ("game", int(p), f"every board of a {p}-player game") for p in args.games.split(",")
        ]
        if args.master:
            runs.append(("master", 2, "master's moves at 4 positions of a 2-player game"))
        for kind, players, said in runs:
            setup, _ = instructions(kind, players, False, pieces)
            total, boards = instructions(kind, players, True, pieces)
            spent = total - setup
            what = "move" if kind == "master" else "board"
            each = (
                f"1 {what}"
                if boards == 1
                else f"{boards} {what}s, {spent / boards / 1e6:.2f} M a {what}"
            )
            print(f"{said:48}: {spent / 1e6:8.2f} M instructions ({each})")


if __name__ == "__main__":
    main()
