"""The rating chart for /stats: its size, and each rating drawn where the documented
mapping puts it (higher ratings higher up, oldest at the left)."""

from __future__ import annotations

import pytest

from engine.tiles import Colour
from render.chart import rating_chart_png
from render.theme import SYMBOL
from tests.render.helpers import decode

BLUE = SYMBOL[Colour.BLUE]  # the line and its dots
# The chart's frame, as render/chart.py documents it: 640 x 320 px, the plot from x 84 to
# 616 and from y 52 to 280.
X0, X1, Y0, Y1 = 84, 616, 52, 280


def expected_rows(values: list[int]) -> list[float]:
    lo, hi = min(values), max(values)
    pad = max(10, (hi - lo) / 10)
    lo, hi = lo - pad, hi + pad
    return [Y0 + (hi - v) * (Y1 - Y0) / (hi - lo) for v in values]


def test_points_where_the_ratings_put_them() -> None:
    values = [1000, 1086, 1040, 1150, 1120]
    img = decode(rating_chart_png(values, title="Anna"))
    assert img.size == (640, 320)
    # By hand: spread 150, padded by 15 to 985..1165 over 228 px; 1150 sits 15/180 of the
    # way down (y 71), 1000 at 165/180 (y 261).
    rows = expected_rows(values)
    assert rows[3] == pytest.approx(71.0) and rows[0] == pytest.approx(261.0)
    xs = [X0 + k * (X1 - X0) / 4 for k in range(5)]
    for x, y in zip(xs, rows, strict=True):
        for dy in (-3, 0, 3):  # the dot, a few pixels round its centre
            assert img.getpixel((round(x), round(y) + dy)) == BLUE, (x, y)
    # The highest rating is drawn higher than the lowest; nothing is drawn above it or
    # below the lowest in their columns.
    top = [y for y in range(320) if img.getpixel((round(xs[3]), y)) == BLUE]
    low = [y for y in range(320) if img.getpixel((round(xs[0]), y)) == BLUE]
    assert max(top) < min(low)
    assert min(top) >= 71 - 6 and max(low) <= 261 + 6


def test_a_single_rating_is_centred() -> None:
    img = decode(rating_chart_png([1000]))
    # One value: padded by 10 either way, so it sits half way down, across the middle.
    assert img.getpixel(((X0 + X1) // 2, (Y0 + Y1) // 2)) == BLUE
    assert img.getpixel((X0 + 20, (Y0 + Y1) // 2)) != BLUE  # no line without a second point


def test_no_ratings_no_chart() -> None:
    with pytest.raises(ValueError, match="at least one rating"):
        rating_chart_png([])


@pytest.mark.parametrize(("count", "dots"), [(60, True), (61, False)])
def test_dots_up_to_sixty_ratings_then_the_line_alone(count: int, dots: bool) -> None:
    # render/chart.py: more than 60 points are drawn as the line alone. A rating that never
    # moved is padded by 10 either way (990..1010 over 228 px), so every point sits at
    # y = 52 + 10 * 228 / 20 = 166: the 4 px line covers about 165..168, a dot of radius 5
    # 161..171. Four pixels above and below a point are blue only if its dot is drawn.
    img = decode(rating_chart_png([1000] * count))
    for k in (0, 1, count // 2, count - 2, count - 1):
        x = round(X0 + k * (X1 - X0) / (count - 1))
        assert img.getpixel((x, 166)) == BLUE, k  # the line itself, either way
        assert (img.getpixel((x, 162)) == BLUE) is dots, k
        assert (img.getpixel((x, 170)) == BLUE) is dots, k
