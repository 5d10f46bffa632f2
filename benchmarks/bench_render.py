"""Renderer speed and size: median time of a render (drawn and PNG-encoded), the PNG's
size and width, for the images the bot sends every turn, against the goals.

Run: ``.venv/bin/python benchmarks/bench_render.py [--repeat N]``. Goals (issue 14): a
late-game 4-player Genial board in <= 8 ms median and <= 60 KB, a Genial Spezial board
in <= 10 ms and <= 60 KB, both 1000-1400 px wide; the other images are printed beside them.
Goals (issue 31), in CPU time of this process: the Genial board <= 4 ms median, the
Genial Spezial board <= 5 ms, the first board after a restart (cold) <= 10 ms.
The machine is shared, so timings are noisy: the median of many renders is printed, with
the fastest and the median CPU time of this process (what other jobs disturb least) beside
it.

Renders are timed as a table sees them: the positions of a game one after another, each
rendered once (a new position every time, never one seen before). The renderer keeps the
last boards' sprites (render/genial_board.py, render/spezial_board.py) and the deflated
bands of rows it has made (render/encode.py), so at a table it draws and deflates again
mostly what changed since the last turn; the
first position of each game is rendered untimed (the table's previous image). Games come
from several seeds, as many as needed for N positions. "cold" is the same kind of render
with those caches emptied first (the first image after a restart): the whole board drawn
and every band deflated.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from PIL import Image

from engine.genial import GenialGame
from engine.moves import KEEP
from engine.spezial import SpezialGame
from render import board_png, encode, genial_board, rack_png, spezial_board

SEEDS = range(7, 100)
COLD_EVERY = 3  # one position in this many is also timed cold


def genial_games(players: int, placements: int, seat: bool = False) -> Iterator[list[Any]]:
    """Per game (one per seed), the views of its positions from the one after
    ``placements`` tiles on: a spectator's, or (``seat``) the player's to move."""
    for seed in SEEDS:
        game = GenialGame(players, seed=seed)
        rng = random.Random(seed)
        placed = 0
        views = []
        while not game.over:
            if game.awaiting == "swap":
                game.play(KEEP)
                continue
            game.play(game.random_placement(rng))
            placed += 1
            if placed >= placements and not game.over:
                views.append(game.view(game.to_move if seat else None))
        yield views


def spezial_games(players: int, tiles: int) -> Iterator[list[Any]]:
    """Per game (one per seed), spectator views of its positions from the one after
    ``tiles`` placements on."""
    for seed in SEEDS:
        game = SpezialGame(players, seed=seed)
        rng = random.Random(seed)
        placed = 0
        views = []
        while not game.over:
            game.play(game.random_placement(rng))
            placed += 1
            if placed >= tiles:
                views.append(game.view(None))
        yield views


def _timed(render: Callable[[Any], bytes], view: Any) -> tuple[float, float, bytes]:
    """Wall time, this process's CPU time (less disturbed by other jobs), the bytes."""
    start, cpu = time.perf_counter(), time.process_time()
    data = render(view)
    return time.perf_counter() - start, time.process_time() - cpu, data


def forget() -> None:
    """Empty the renderer's caches of whole boards and deflated bands, as after a restart
    (sprites, backgrounds and fonts stay: they are built once per process)."""
    encode.clear_cache()
    genial_board.clear_cache()
    spezial_board.clear_cache()


def measure(
    name: str,
    render: Callable[[Any], bytes],
    games: Iterator[list[Any]],
    count: int,
    goal_ms: float | None = None,
    goal_kb: float | None = None,
    goal_cpu_ms: float | None = None,
) -> None:
    forget()
    times: list[float] = []
    cpu: list[float] = []
    cold: list[float] = []
    cold_cpu: list[float] = []
    sizes: list[int] = []
    data = b""
    played: list[Any] = []
    for views in games:
        if len(times) >= count:
            break
        render(views[0])  # the table's previous image (and sprites built on first use)
        for view in views[1:]:
            if len(times) >= count:
                break
            elapsed, used, data = _timed(render, view)
            times.append(elapsed)
            cpu.append(used)
            sizes.append(len(data))
            played.append(view)
    for view in played[::COLD_EVERY]:  # after the others: emptying caches would slow them
        forget()
        elapsed, used, _ = _timed(render, view)
        cold.append(elapsed)
        cold_cpu.append(used)
    with Image.open(io.BytesIO(data)) as img:
        width, height = img.size
    median_ms = statistics.median(times) * 1000
    median_kb = statistics.median(sizes) / 1024
    print(
        f"{name:<34} median {median_ms:6.2f} ms  (fastest {min(times) * 1000:5.2f},"
        f" CPU {statistics.median(cpu) * 1000:5.2f}, cold {statistics.median(cold) * 1000:5.2f})"
        f"  PNG {median_kb:5.1f} KB (largest {max(sizes) / 1024:5.1f})"
        f"  {width} x {height} px  [{len(times)} positions]"
    )
    cpu_ms = statistics.median(cpu) * 1000
    cold_cpu_ms = statistics.median(cold_cpu) * 1000
    print(f"{'':<34} CPU: median {cpu_ms:5.2f} ms, cold median {cold_cpu_ms:5.2f} ms")
    if goal_ms is not None and goal_kb is not None:
        verdict = "met" if median_ms <= goal_ms and median_kb <= goal_kb else "NOT met"
        print(f"{'':<34} goal <= {goal_ms:g} ms, <= {goal_kb:g} KB, 1000-1400 px wide: {verdict}")
    if goal_cpu_ms is not None:
        met = cpu_ms <= goal_cpu_ms and cold_cpu_ms <= 10 and median_kb <= 60
        print(
            f"{'':<34} goal (issue 31) CPU <= {goal_cpu_ms:g} ms, cold CPU <= 10 ms,"
            f" <= 60 KB: {'met' if met else 'NOT met'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=40, help="positions timed per image")
    n = parser.parse_args().repeat
    # Other jobs on the machine slow the wall-clock figures down: say how busy it was.
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores,"
        f" deflate: {encode.DEFLATE}"
    )
    names4 = ["Anna", "Bärbel", "Çelik", "Dörte"]
    measure(
        "Genial board, 4 players, late game",
        lambda v: board_png(v, names=names4),
        genial_games(4, 55),
        n,
        goal_ms=8,
        goal_kb=60,
        goal_cpu_ms=4,
    )
    measure(
        "Genial board, 2 players, mid game",
        lambda v: board_png(v, names=names4[:2]),
        genial_games(2, 20),
        n,
    )
    measure(
        "Genial Spezial board, 4 players",
        lambda v: board_png(v, names=names4),
        spezial_games(4, 40),
        n,
        goal_ms=10,
        goal_kb=60,
        goal_cpu_ms=5,
    )
    measure(
        "Genial rack, 4 players",
        lambda v: rack_png(v, names=names4),
        genial_games(4, 30, seat=True),
        n,
    )


if __name__ == "__main__":
    main()
