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
on the same board (side 6, radius 5), to the end of the game. Each side plays two games
untimed first (issue 50: our first game built the engine's tables for the area, which
doubled the figure of a round of 8), and MOMaland is timed both ways a program would use
it: one environment made once and reset for each game, and a new environment each game.

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

WARM_UP = 2  # untimed games before the timed ones, on each side

OURS = """
import json, random, sys, time
from engine.genial import GenialGame
games, warm = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)

def play(seed):
    game = GenialGame(2, seed=seed)
    while not game.over:
        game.play(rng.choice(game.legal_moves()))

for seed in range(warm):
    play(10_000 + seed)
start = time.process_time()
for seed in range(games):
    play(seed)
print(json.dumps({"cpu_per_game": (time.process_time() - start) / games}))
"""

THEIRS = """
import json, random, sys, time
import numpy as np
from momaland.envs.ingenious import ingenious
games, warm, reuse = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "reuse"
rng = random.Random(1)
kept = ingenious.raw_env(num_agents=2) if reuse else None

def play(seed):
    env = kept if reuse else ingenious.raw_env(num_agents=2)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        env.step(action)

for seed in range(warm):
    play(10_000 + seed)
start = time.process_time()
for seed in range(games):
    play(seed)
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


def run(python: Path | str, script: str, games: int, cwd: Path, *extra: str) -> float:
    out = subprocess.run(
        [str(python), "-c", script, str(games), str(WARM_UP), *extra],
        check=True,
        capture_output=True,
        text=True,
        cwd=cwd,
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
        reused: list[float] = []
        fresh: list[float] = []
        loads = []
        theirs_games = max(1, args.games // 4)
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            ours.append(run(sys.executable, OURS, args.games, ROOT))
            reused.append(run(theirs_python, THEIRS, theirs_games, Path(tmp), "reuse"))
            fresh.append(run(theirs_python, THEIRS, theirs_games, Path(tmp), "new"))
        a = statistics.median(ours)
        b, c = statistics.median(reused), statistics.median(fresh)
        print(
            f"random 2-player games, CPU per game after {WARM_UP} untimed games on each side,"
            f" medians of {args.rounds} interleaved rounds of {args.games} (MOMaland"
            f" {theirs_games}) (load average {min(loads):.1f}-{max(loads):.1f} on"
            f" {os.cpu_count()} cores):"
        )
        print(f"  this engine (legal_moves each turn):             {a * 1000:8.2f} ms")
        print(f"  MOMaland ingenious, one environment reset a game: {b * 1000:8.2f} ms")
        print(f"  MOMaland ingenious, a new environment each game:  {c * 1000:8.2f} ms")
        print(f"  ratio: this engine is {b / a:.1f}x faster (one environment), {c / a:.1f}x (new)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
