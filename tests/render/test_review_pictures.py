"""The review's pictures (issue 47): the chances chart in the seats' colours, and the
compared board where only the two placements are outlined and no label covers a cell."""

from __future__ import annotations

import dataclasses
import io

from PIL import Image

from engine.ai import choose_move
from engine.genial import GenialGame
from engine.moves import Placement
from render import genial_board
from render.review import LABEL_ROW, chances_chart_png, compared_board_png
from render.theme import SEAT_MARK


def colours(png: bytes) -> set[tuple[int, int, int]]:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return {c for _, c in img.getcolors(1 << 20) or []}


def test_each_side_is_drawn_in_its_seats_colour() -> None:
    lines = [[25.0, 40.0, 10.0], [25.0, 20.0, 30.0], [25.0, 30.0, 50.0], [25.0, 10.0, 10.0]]
    shown = colours(chances_chart_png(lines, ["A", "B", "C", "D"], "Chance to win"))
    assert set(SEAT_MARK) <= shown
    # A team game: two lines, in the colours of each team's first seat (seats 1 and 2).
    team = colours(chances_chart_png(lines[:2], ["A+C", "B+D"], "", team=True))
    assert {SEAT_MARK[0], SEAT_MARK[1]} <= team
    assert SEAT_MARK[3] not in team


def position() -> tuple[GenialGame, Placement, Placement]:
    game = GenialGame(2, seed=4)
    for n in range(12):
        game.play(choose_move(game.view(game.to_move), "greedy", n))  # type: ignore[arg-type]
    legal = [m for m in game.legal_moves() if isinstance(m, Placement)]
    return game, legal[0], legal[-1]


def test_only_the_two_compared_placements_are_marked_and_labels_cover_no_cell() -> None:
    game, played, best = position()
    view = game.view(None)
    png = compared_board_png(view, played, best, ("played X", "best Y"), ["Ada", "Bob"])
    img = Image.open(io.BytesIO(png)).convert("RGB")
    # The plain board (the placement before not highlighted) under the labels' strip.
    plain = genial_board.draw_board(dataclasses.replace(view, last_placements=()), ["Ada", "Bob"])
    plain = plain.convert("RGB")
    band = img.height - plain.height
    assert band >= 2 * LABEL_ROW  # the labels have a strip of their own above the board
    lat = genial_board.layout(view.mode, view.players).lattice
    boxes = []
    for cell in (played.cell1, played.cell2, best.cell1, best.cell2):
        cx, cy = lat.centre(cell)
        boxes.append((cx - lat.rx - 4, cy - lat.ry - 4, cx + lat.rx + 4, cy + lat.ry + 4))
    below = img.crop((0, band, img.width, img.height))
    differ = Image.new("L", plain.size, 0)
    a, b = plain.load(), below.load()
    d = differ.load()
    for y in range(plain.height):
        for x in range(plain.width):
            if a[x, y] != b[x, y]:
                d[x, y] = 255
    # Every pixel that changed is on one of the four outlined cells.
    for x0, y0, x1, y1 in boxes:
        differ.paste(0, (int(x0), int(y0), int(x1) + 1, int(y1) + 1))
    assert differ.getbbox() is None


def test_the_strip_holds_both_labels_above_the_board() -> None:
    game, played, best = position()
    png = compared_board_png(game.view(None), played, best, ("played", "best"), ["Ada", "Bob"])
    img = Image.open(io.BytesIO(png)).convert("RGB")
    strip = img.crop((0, 0, img.width, 2 * LABEL_ROW))
    assert len(strip.getcolors(1 << 16) or []) > 2  # swatches and words drawn there
