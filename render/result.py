"""The result image at the end of a game: the winner on top, then every side in order of
its place with its scores, the lowest colours (which decided) framed.

Before the end it shows the standings as they are, ranked by the same rule (RULES.md 2.9,
3.4), so the bot can show it on request.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from engine.genial import GenialView
from engine.ranking import places, rank
from engine.spezial import SCORE_COLOURS, SpezialView
from engine.tiles import COLOURS, Colour
from render import genial_board, spezial_board
from render.canvas import Canvas
from render.panel import SideRow, draw_rows, fitted, rows_height
from render.theme import GOLDEN, INK, PAPER

WIDTH = 1120
MARGIN = 16
HEADER = 96


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
    canvas = Canvas.new(game, (WIDTH, height))
    winners = " · ".join(" & ".join(rows[s].names) for s in ranking[0])
    canvas.shape("crown", (MARGIN + 12, HEADER // 2 - 30), 58, GOLDEN, PAPER)
    room = WIDTH - 2 * MARGIN - 90
    canvas.text((MARGIN + 86, HEADER // 2 + 2), fitted(winners, 40, room), 40, INK, PAPER)
    draw_rows(canvas, MARGIN, HEADER + MARGIN, WIDTH - 2 * MARGIN, ordered, colours, cap, marks)
    return canvas.img
