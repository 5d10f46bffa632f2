"""Replay GIF size and build time: whole games, from the record to the GIF bytes.

Run: ``.venv/bin/python benchmarks/bench_replay.py [--repeat N]``. Goals (issue 13): a
4-player game <= 5 MB and built in <= 3 s on one core; a 2-player game <= 2 MB. The build
is single-threaded, so CPU time (``process_time``) is the one-core figure; wall time is
printed beside it, noisy on a shared machine. The first build of a process also draws the
empty boards and sprites the renderer caches, so it is printed apart from the median of the
later ones (a running bot has them cached).

Games: random full games (every legal tile placed at random, swaps declined, so the board
fills up and the game runs long), and the shared example records when they are found.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time
from pathlib import Path

from engine.genial import GenialGame
from engine.moves import KEEP
from engine.record import Record, read_record
from engine.spezial import SpezialGame
from render.replay import replay_gif

EXAMPLES = [
    Path(__file__).resolve().parents[2] / "shared" / "examples",
    Path("/work/shared/examples"),
]
GOALS_MB = {2: 2.0, 3: 5.0, 4: 5.0}
GOAL_SECONDS = 3.0


def random_genial(players: int, seed: int) -> Record:
    game = GenialGame(players, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        if game.awaiting == "swap":
            game.play(KEEP)
        else:
            game.play(game.random_placement(rng))
    return Record.from_dict(game.record())


def random_spezial(players: int, seed: int) -> Record:
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        game.play(game.random_placement(rng))
    return Record.from_dict(game.record())


def measure(name: str, record: Record, repeat: int) -> None:
    placements = sum(m not in ("swap", "keep") for m in record.moves)
    cpu: list[float] = []
    wall: list[float] = []
    size = 0
    for _ in range(repeat + 1):
        c, w = time.process_time(), time.perf_counter()
        size = len(replay_gif(record))
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    mb = size / 1e6
    goal_mb = GOALS_MB[record.players]
    later = statistics.median(cpu[1:])
    verdict = "ok" if mb <= goal_mb and later <= GOAL_SECONDS else "MISSED"
    print(
        f"{name:<34} {placements:3d} placements  GIF {mb:5.2f} MB (goal {goal_mb:.0f})"
        f"  CPU {later:5.2f} s median, first {cpu[0]:5.2f} s (goal {GOAL_SECONDS:.0f})"
        f"  wall {statistics.median(wall[1:]):5.2f} s  {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed builds per game")
    n = parser.parse_args().repeat
    measure("Genial, 4 players, random game", random_genial(4, seed=7), n)
    measure("Genial, 2 players, random game", random_genial(2, seed=7), n)
    measure("Genial Spezial, 4 players, random", random_spezial(4, seed=7), n)
    measure("Genial Spezial, 2 players, random", random_spezial(2, seed=7), n)
    folder = next((p for p in EXAMPLES if p.is_dir()), None)
    if folder is not None:
        for name in ("04-genial-standard-4p", "05-genial-team-4p", "01-genial-standard-2p"):
            measure(f"example {name}", read_record(str(folder / f"{name}.json")), n)
    # Frames are encoded as they are drawn: the peak stays near two frames' worth.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
