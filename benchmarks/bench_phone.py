"""Board images as a phone shows them, 390 px wide (issue 27, item 5): how high the cell
labels come out there, and what numbering several placements told together costs in PNG
bytes.

Run: ``.venv/bin/python benchmarks/bench_phone.py``. The label height is the height of
the label ink in an empty cell (capitals and digits are one height), the smallest over
every empty cell a tile can still go to, scaled to 390 px; the legibility floor is 6.5 px
(tests/render/test_phone.py). Sizes are medians over positions of several seeded games,
each board drawn once plain and once with its last four placements told together
(numbered badges and a legend), as the bot draws a turn of a person and three computer
players.
"""

from __future__ import annotations

import io
import random
import statistics
from typing import Any

from first_boards import genial_game  # beside this script
from PIL import Image

from engine.genial import START_SYMBOLS, playing_area
from engine.hexgrid import Area, Hex
from engine.spezial import SpezialGame, board_layout
from render import Told, board_png, genial_board, spezial_board
from render.geometry import Lattice
from render.theme import LABEL

PHONE = 390
FLOOR = 6.5
SEEDS = range(3, 9)


def label_height(rgb: Image.Image, lat: Lattice, h: Hex) -> int:
    cx, cy = lat.centre(h)
    half = round(0.4 * lat.w)
    ys = [
        y
        for y in range(cy - half, cy + half)
        for x in range(cx - half, cx + half)
        if rgb.getpixel((x, y)) == LABEL
    ]
    return max(ys) - min(ys) + 1 if ys else 0


def live_cells(area: Area, filled: set[Hex]) -> list[Hex]:
    """Empty cells with an empty neighbour: where a tile can still go."""
    return [
        h
        for h in area.cells
        if h not in filled and any(n in area and n not in filled for n in h.neighbours())
    ]


def spezial(players: int, seed: int, placements: int) -> SpezialGame:
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(placements):
        game.play(game.random_placement(rng))
    return game


def measure(name: str, views: list[Any], lat: Lattice, area: Area) -> None:
    heights, plain, told = [], [], []
    for view in views:
        if hasattr(view, "towers"):
            filled = set(view.board) | set(view.towers)
            last = [Told(s, a, b) for s, a, b in spezial_board.placed_tiles(view)[-4:]]
        else:
            filled = set(view.board) | set(START_SYMBOLS)
            tiles = genial_board.placed_tiles(view)[-4:]
            last = [Told(k % view.players, p.cell1, p.cell2) for k, p in enumerate(tiles)]
        data = board_png(view)
        plain.append(len(data))
        cells = [c for t in last for c in (t.cell1, t.cell2)]  # as the bot passes them
        told.append(len(board_png(view, highlight=cells, told=last)))
        rgb = Image.open(io.BytesIO(data)).convert("RGB")
        heights.append(min(label_height(rgb, lat, h) for h in live_cells(area, filled)))
        width = rgb.width
    low = min(heights)
    at_phone = low * PHONE / width
    verdict = "met" if at_phone >= FLOOR else "NOT met"
    print(
        f"{name:<28} label {low} px at {width} -> {at_phone:.2f} px at {PHONE} (floor {FLOOR}:"
        f" {verdict})  PNG {statistics.median(plain) / 1024:.1f} KB, four told"
        f" {statistics.median(told) / 1024:.1f} KB  [{len(views)} boards]"
    )


def main() -> None:
    for players, placements in ((4, 50), (2, 25)):
        views = [genial_game(players, s, placements).view(None) for s in SEEDS]
        lat = genial_board.layout("standard", players).lattice
        area = playing_area({2: 5, 4: 7}[players])
        measure(f"Genial, {players} players, late", views, lat, area)
    boards = [spezial(4, s, 40).view(None) for s in SEEDS]
    lat = spezial_board.layout(4).lattice
    measure("Genial Spezial, 4 players", boards, lat, board_layout().area)


if __name__ == "__main__":
    main()
