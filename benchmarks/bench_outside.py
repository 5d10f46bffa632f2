"""This engine side by side with an outside one: random 2-player Genial games against the
Farama MOMAland ``ingenious`` environment (a multi-objective reinforcement-learning
environment of the same game, in Python with NumPy), in CPU time per game.

The outside engine is never vendored or committed: the benchmark makes a virtual
environment of its own in a temporary folder and installs it there from the package index
(``momaland`` without its dependencies, which pull in rendering and experiment-tracking
packages its ``ingenious`` environment does not use, and then ``numpy``, ``gymnasium``,
``pettingzoo`` with theirs); ``--env PATH`` reuses such an environment. Each side plays its
games in a process of its own, and the rounds are interleaved (ours, theirs, ours, ...), so
that the machine's load falls on both alike; the medians of the rounds and their ratio are
printed, with the load.

Both sides play alike: each turn the seat to move picks uniformly among its legal moves
(ours: ``legal_moves()``, swap offers included; theirs: the environment's action mask),
on the same board (side 6, radius 5), to the end of the game.

    .venv/bin/python benchmarks/bench_outside.py [--rounds 5] [--games 20] [--env PATH]
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

ROOT = Path(__file__).resolve().parents[1]

OURS = """
import json, random, sys, time
from engine.genial import GenialGame
games = int(sys.argv[1])
rng = random.Random(1)
start = time.process_time()
for seed in range(games):
    game = GenialGame(2, seed=seed)
    while not game.over:
        game.play(rng.choice(game.legal_moves()))
print(json.dumps({"cpu_per_game": (time.process_time() - start) / games}))
"""

THEIRS = """
import json, random, sys, time
import numpy as np
from momaland.envs.ingenious import ingenious
games = int(sys.argv[1])
rng = random.Random(1)
start = time.process_time()
for seed in range(games):
    env = ingenious.raw_env(num_agents=2)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        env.step(action)
print(json.dumps({"cpu_per_game": (time.process_time() - start) / games}))
"""


def make_env(folder: Path) -> Path:
    """A virtual environment with MOMaland in ``folder``; its Python."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--no-deps", "momaland"], check=True)
    subprocess.run([*pip, "numpy", "gymnasium", "pettingzoo", "typing_extensions"], check=True)
    return python


def run(python: Path | str, script: str, games: int, cwd: Path) -> float:
    out = subprocess.run(
        [str(python), "-c", script, str(games)], check=True, capture_output=True, text=True, cwd=cwd
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["cpu_per_game"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20, help="games per side and round")
    parser.add_argument("--env", default="", help="a virtual environment with momaland")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="genial-outside-") as tmp:
        if args.env:
            theirs_python = Path(args.env) / "bin" / "python"
        else:
            print("installing momaland into a temporary environment ...", flush=True)
            theirs_python = make_env(Path(tmp) / "env")
        ours: list[float] = []
        theirs: list[float] = []
        loads = []
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            ours.append(run(sys.executable, OURS, args.games, ROOT))
            theirs.append(run(theirs_python, THEIRS, max(1, args.games // 4), Path(tmp)))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(
            f"random 2-player games, CPU per game, medians of {args.rounds} interleaved rounds"
            f" (load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores):"
        )
        print(f"  this engine (legal_moves each turn): {a * 1000:8.2f} ms")
        print(f"  MOMaland ingenious (action mask):     {b * 1000:8.2f} ms")
        print(f"  ratio: this engine is {b / a:.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
