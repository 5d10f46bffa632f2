"""Renderer speed and size: median time of a render (drawn and PNG-encoded, after warm-up),
the PNG's size and width, for the images the bot sends every turn.

Run: ``.venv/bin/python benchmarks/bench_render.py [--repeat N]``. Goals (issue 5): a
late-game 4-player Genial board in <= 15 ms median, <= 80 KB, 1000-1400 px wide; the same
figures are printed for a Genial Spezial board and a rack. The machine is shared, so
timings are noisy: the median of many renders is printed, with the fastest beside it.

Each timed render draws a different position (the game one move further each time, as
in play), so no cache of whole images could flatter the figures.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from collections.abc import Callable

from PIL import Image

from engine.genial import GenialGame, GenialView
from engine.moves import KEEP
from engine.spezial import SpezialGame, SpezialView
from render import board_png, rack_png


def genial_views(players: int, placements: int, count: int) -> list[GenialView]:
    """Spectator views of up to ``count`` consecutive positions of a random game, from
    the one after ``placements`` tiles onwards (late game: the board mostly covered)."""
    game = GenialGame(players, seed=7)
    rng = random.Random(7)
    placed = 0
    views: list[GenialView] = []
    while not game.over and len(views) < count:
        if game.awaiting == "swap":
            game.play(KEEP)
            continue
        game.play(game.random_placement(rng))
        placed += 1
        if placed >= placements:
            views.append(game.view(None))
    return views


def seat_views(players: int, placements: int, count: int) -> list[GenialView]:
    game = GenialGame(players, seed=7)
    rng = random.Random(7)
    views: list[GenialView] = []
    while not game.over and len(views) < count:
        if game.awaiting == "swap":
            game.play(KEEP)
            continue
        game.play(game.random_placement(rng))
        placements -= 1
        if placements <= 0:
            views.append(game.view(game.to_move))
    return views


def spezial_views(players: int, tiles: int, count: int) -> list[SpezialView]:
    """Spectator views of up to ``count`` consecutive positions of a random game, from the
    one after ``tiles`` placements onwards."""
    game = SpezialGame(players, seed=7)
    rng = random.Random(7)
    views: list[SpezialView] = []
    placed = 0
    while not game.over and len(views) < count:
        game.play(game.random_placement(rng))
        placed += 1
        if placed >= tiles:
            views.append(game.view(None))
    return views


def measure(name: str, render: Callable[[object], bytes], views: list[object], count: int) -> None:
    for v in views[:3]:  # warm-up: backgrounds and sprites are built on first use
        render(v)
    times = []
    sizes = []
    for k in range(count):  # the positions in turn, again from the first if too few
        v = views[k % len(views)]
        start = time.perf_counter()
        data = render(v)
        times.append(time.perf_counter() - start)
        sizes.append(len(data))
    with Image.open(io.BytesIO(data)) as img:
        width, height = img.size
    print(
        f"{name:<34} median {statistics.median(times) * 1000:6.2f} ms"
        f"  (fastest {min(times) * 1000:5.2f})"
        f"  PNG {statistics.median(sizes) / 1024:5.1f} KB (largest {max(sizes) / 1024:5.1f})"
        f"  {width} x {height} px  [{count} renders of {len(views)} positions]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=40, help="positions timed per image")
    n = parser.parse_args().repeat
    names4 = ["Anna", "Bärbel", "Çelik", "Dörte"]
    measure(
        "Genial board, 4 players, late game",
        lambda v: board_png(v, names=names4),  # type: ignore[arg-type]
        genial_views(4, 55, n),  # type: ignore[arg-type]
        n,
    )
    measure(
        "Genial board, 2 players, mid game",
        lambda v: board_png(v, names=names4[:2]),  # type: ignore[arg-type]
        genial_views(2, 20, n),  # type: ignore[arg-type]
        n,
    )
    measure(
        "Genial Spezial board, 4 players",
        lambda v: board_png(v, names=names4),  # type: ignore[arg-type]
        spezial_views(4, 40, n),  # type: ignore[arg-type]
        n,
    )
    measure(
        "Genial rack, 4 players",
        lambda v: rack_png(v, names=names4),  # type: ignore[arg-type]
        seat_views(4, 30, n),  # type: ignore[arg-type]
        n,
    )


if __name__ == "__main__":
    main()
