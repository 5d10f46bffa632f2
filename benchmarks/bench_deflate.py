"""What deflating a first board costs at other levels, PNG filters and band heights
(issue 50, item 3): size and CPU time of the late 4-player Genial and Genial Spezial boards
of ``bench_cold_board.py``, deflated in bands as render/encode.py deflates them (each band
on its own, one row above as its dictionary, ended on a byte boundary), nothing kept.

    .venv/bin/python benchmarks/bench_deflate.py [--repeat 5] [--seeds 25]

The boards are drawn as the bot draws them, then their rows laid out with each PNG filter
(None, the writer's; Up; Sub: each row less the row above, or less the pixel to its left,
modulo 256) and deflated by zlib-ng at levels 4 to 6 in bands of 32 and 64 rows (the writer:
None, 32 rows; level 5 for Genial, 6 for Genial Spezial's board and 5 for its score rows,
which this script does not single out). Printed: the bytes deflated (KB) and the CPU time
of deflating them all (the fastest of ``--repeat``). The goals beside it: a board <= 60 KB
(issue 31) and a new process's first board <= 20 ms of CPU in all (issue 50). Then the
largest and the median size of late Genial Spezial boards (2-4 players, ``--seeds`` games
each, every fifth placement from the 25th on) as the writer makes them, at its level and at
the level below: whether the cheaper level would keep every board within 60 KB.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import time

from first_boards import genial_late, spezial_late  # beside this script
from PIL import Image, ImageChops
from zlib_ng import zlib_ng

import render
from engine.spezial import SpezialGame
from render import encode
from render import spezial_board as spezial_drawing
from render.encode import deflater

FILTERS = {"None": 0, "Sub": 1, "Up": 2}


def genial_board() -> bytes:
    return render.board_png(genial_late().view(None))


def spezial_board() -> bytes:
    return render.board_png(spezial_late().view(None))


def filtered_rows(png: bytes, kind: str) -> tuple[bytes, int]:
    """The board's rows with filter ``kind``, each after its filter byte; and the stride."""
    indexed = Image.open(io.BytesIO(png))
    width, height = indexed.size
    plain = Image.frombytes("L", (width, height), indexed.tobytes())  # the indexes as they are
    if kind == "None":
        rows = plain
    else:
        # The row above (Up) or the pixel to the left (Sub), 0 beyond the edge.
        dx, dy = (0, 1) if kind == "Up" else (1, 0)
        before = ImageChops.offset(plain, dx, dy)
        before.paste(0, (0, 0, width, 1) if kind == "Up" else (0, 0, 1, height))
        rows = ImageChops.subtract_modulo(plain, before)
    wider = Image.new("L", (width + 1, height), FILTERS[kind])
    wider.paste(rows, (1, 0))
    return wider.tobytes(), width + 1


def deflate_bands(raw: bytes, stride: int, band_rows: int, level: int) -> int:
    """Bytes of ``raw`` deflated in bands of ``band_rows`` rows, as the writer does."""
    height = len(raw) // stride
    total = 0
    for top in range(0, height, band_rows):
        band = raw[top * stride : min(height, top + band_rows) * stride]
        if top:
            c = zlib_ng.compressobj(
                level, zlib_ng.DEFLATED, -15, zdict=raw[(top - 1) * stride : top * stride]
            )
        else:
            c = zlib_ng.compressobj(level, zlib_ng.DEFLATED, -15)
        total += len(c.compress(band)) + len(c.flush(zlib_ng.Z_SYNC_FLUSH))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timings of each (the fastest)")
    parser.add_argument(
        "--seeds",
        type=int,
        default=25,
        help="games a player count for the largest boards (0: none)",
    )
    args = parser.parse_args()
    print(f"zlib-ng, bands deflated on their own, nothing kept; load {os.getloadavg()[0]:.1f}")
    for label, png in (
        ("Genial 4p late", genial_board()),
        ("Genial Spezial 4p late", spezial_board()),
    ):
        image = Image.open(io.BytesIO(png))
        print(
            f"{label}: {image.width} x {image.height} px,"
            f" as the bot writes it {len(png) / 1024:.1f} KB"
        )
        for kind in FILTERS:
            raw, stride = filtered_rows(png, kind)
            for band_rows in (32, 64):
                cells = []
                for level in (4, 5, 6):
                    best = float("inf")
                    for _ in range(args.repeat):
                        started = time.process_time()
                        size = deflate_bands(raw, stride, band_rows, level)
                        best = min(best, time.process_time() - started)
                    cells.append(f"level {level} {size / 1024:5.1f} KB {best * 1000:5.2f} ms")
                print(f"  {kind:<4} bands of {band_rows}: " + "; ".join(cells))
    if args.seeds:
        print(largest_spezial(args.seeds))


def largest_spezial(seeds: int) -> str:
    """The largest and the median of late Genial Spezial boards as the writer makes them (2,
    3 and 4 players, seeds 1 to ``seeds``, every fifth placement from the 25th on, and the
    last), at the writer's level and one below: whether a cheaper level keeps to 60 KB."""
    sizes: dict[int, list[int]] = {}
    writer = spezial_drawing.PNG_LEVEL
    for level in (writer, writer - 1):
        spezial_drawing.PNG_LEVEL = level
        encode.clear_cache()  # no band deflated at the other level taken from the cache
        sizes[level] = []
        for players in (2, 3, 4):
            for seed in range(1, seeds + 1):
                game, rng, placed = SpezialGame(players, seed=seed), random.Random(seed), 0
                while not game.over:
                    game.play(game.random_placement(rng))
                    placed += 1
                    if (placed >= 25 and placed % 5 == 0) or game.over:
                        sizes[level].append(len(render.board_png(game.view(None))))
    spezial_drawing.PNG_LEVEL = writer
    parts = []
    for level, found in sizes.items():
        parts.append(
            f"zlib-ng {deflater(level)[1]} largest {max(found) / 1024:.1f} KB,"
            f" median {statistics.median(found) / 1024:.1f} KB"
        )
    return f"late Genial Spezial boards as the writer makes them ({len(sizes[writer])}): " + (
        "; ".join(parts) + " (goal <= 60 KB)"
    )


if __name__ == "__main__":
    main()
