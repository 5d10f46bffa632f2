"""The standings picture of a tournament (render/standings.py)."""

from __future__ import annotations

import io

from PIL import Image

from render.standings import HEAD, LINE, MARGIN, MAX_ROWS, ROW, WIDTH, height_of, standings_png
from render.theme import GOLDEN

HEADINGS = ("#", "Player", "Points", "Buchholz", "S-B")


def rows(n: int) -> list[tuple[str, str, str, str, str]]:
    return [(str(i + 1), f"Player {i + 1}", str(n - i), "3", "2") for i in range(n)]


def test_the_height_grows_by_a_row_per_player_and_a_line_per_line_below() -> None:
    # Six players and three lines: the head, seven rows (headings too), three lines.
    assert height_of(6, 3) == HEAD + 7 * ROW + 3 * LINE + MARGIN + MARGIN
    assert height_of(6, 0) == HEAD + 7 * ROW + MARGIN
    # Past the most rows: the rest is one line saying how many.
    assert height_of(MAX_ROWS + 5, 0) == HEAD + (MAX_ROWS + 1) * ROW + LINE + 2 * MARGIN


def test_the_picture_is_a_png_of_that_size_with_the_winner_marked() -> None:
    png = standings_png("Cup", "Swiss, 4 rounds", HEADINGS, rows(6), ["Team A: 4 points"])
    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert img.size == (WIDTH, height_of(6, 1))
    # The golden disc before the first row (the winner's), at its centre.
    y = HEAD + ROW + ROW // 2
    assert img.getpixel((MARGIN + 14, y)) == GOLDEN
    # The second row has none.
    assert img.getpixel((MARGIN + 14, y + ROW)) != GOLDEN


def test_a_field_of_one_hundred_draws_the_most_rows() -> None:
    png = standings_png("Cup", "", HEADINGS, rows(100))
    assert Image.open(io.BytesIO(png)).size == (WIDTH, height_of(100, 0))
