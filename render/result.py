"""The result image at the end of a game: the winner on top, then every side in order of
its place with its scores, the lowest colours (which decided) framed.

Before the end it shows the standings as they are, ranked by the same rule (RULES.md 2.9,
3.4), so the bot can show it on request.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.genial import GenialView
from engine.ranking import rank
from engine.spezial import SCORE_COLOURS, SpezialView
from engine.tiles import COLOURS, Colour
from render import genial_board, spezial_board
from render.fonts import fit, font
from render.panel import SideRow, draw_rows, rows_height
from render.theme import GOLDEN, INK, PAPER, RGB, quantize

WIDTH = 1120
MARGIN = 16
HEADER = 96


def crown(draw: ImageDraw.ImageDraw, x: float, y: float, size: float, fill: RGB) -> None:
    """A crown ``size`` px wide with its top-left at ``(x, y)``."""
    h = size * 0.7
    draw.polygon(
        [
            (x, y + h),
            (x, y + h * 0.2),
            (x + size * 0.27, y + h * 0.55),
            (x + size * 0.5, y),
            (x + size * 0.73, y + h * 0.55),
            (x + size, y + h * 0.2),
            (x + size, y + h),
        ],
        fill=fill,
    )


def places(ranking: Sequence[Sequence[int]]) -> dict[int, int]:
    """Each side's place number: sides that share a place share its number, and the next
    place counts them all (1, 1, 3)."""
    out: dict[int, int] = {}
    done = 0
    for group in ranking:
        for side in group:
            out[side] = done + 1
        done += len(group)
    return out


def _ranking(view: GenialView | SpezialView, colours: Sequence[Colour]) -> list[list[int]]:
    if view.ranking is not None:
        return [list(g) for g in view.ranking]
    winner = view.winner if isinstance(view, GenialView) else None
    return rank([[sc[c] for c in colours] for sc in view.scores], winner)


def result_image(view: GenialView | SpezialView, names: Sequence[str]) -> Image.Image:
    """The result (or the standings so far), in the game's palette."""
    if isinstance(view, GenialView):
        colours: Sequence[Colour] = COLOURS
        cap, game = view.cap, genial_board.GAME
        marks: tuple[int, ...] = (18,) if view.cap > 18 else ()
        rows = genial_board.side_rows(view, names)
    else:
        colours, game, marks = SCORE_COLOURS, spezial_board.GAME, ()
        cap = spezial_board.track_length(view)
        rows = spezial_board.side_rows(view, names)
    ranking = _ranking(view, colours)
    place = places(ranking)
    ordered = [
        SideRow(rows[s].names, rows[s].scores, None, place[s], rows[s].swatch, None)
        for group in ranking
        for s in group
    ]
    height = HEADER + rows_height(len(ordered)) + 2 * MARGIN
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    winners = " · ".join(" & ".join(rows[s].names) for s in ranking[0])
    crown(draw, MARGIN + 12, HEADER / 2 - 20, 56, GOLDEN)
    room = WIDTH - 2 * MARGIN - 90
    draw.text((MARGIN + 86, HEADER / 2 + 2), fit(winners, font(40), room), font=font(40),
              fill=INK, anchor="lm")  # fmt: skip
    draw_rows(img, MARGIN, HEADER + MARGIN, WIDTH - 2 * MARGIN, ordered, colours, cap, marks)
    return quantize(img, game)
