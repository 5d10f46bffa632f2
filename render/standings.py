"""A tournament's standings as a picture (issue 30): its title and what it is, one row per
player (rank, name, points and the two tie-breaks), the winner's row marked with a crown
shape, the teams' scores in a team battle and the tables of the round being played.

Every word comes from the caller (names, headings, lines in the chat's language), so the
picture needs no language of its own; long names are cut short to their column.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from render.encode import png_bytes
from render.fonts import fit, font
from render.theme import GOLDEN, INK, PANEL, PAPER, SOFT_INK, quantize

WIDTH = 880
MARGIN = 24
HEAD = 92  # the title and the description
ROW = 40
LINE = 30  # a line of a team's score or a table of the round
#: Where each column begins, and its side: rank, name, points, Buchholz, Sonneborn-Berger.
COLUMNS = (
    (MARGIN + 56, "rm"),
    (MARGIN + 76, "lm"),
    (600, "rm"),
    (720, "rm"),
    (WIDTH - MARGIN - 12, "rm"),
)
NAME_ROOM = 600 - 90 - (MARGIN + 76)
#: Rows drawn at most; a longer field says how many more there are.
MAX_ROWS = 40
GAME = "genial"  # the palette the picture is drawn in


def height_of(rows: int, below: int) -> int:
    """The picture's height in pixels for ``rows`` players and ``below`` lines under them
    (rows past :data:`MAX_ROWS` are one line saying how many)."""
    shown = min(rows, MAX_ROWS)
    lines = below + (1 if rows > MAX_ROWS else 0)
    return HEAD + ROW * (shown + 1) + (LINE * lines + MARGIN if lines else 0) + MARGIN


def standings_image(
    title: str,
    what: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    below: Sequence[str] = (),
) -> Image.Image:
    """The picture: ``head`` names the five columns, each of ``rows`` gives their values
    (rank first, best first); ``below`` are lines under the table (the teams' scores,
    the round's tables)."""
    shown = list(rows[:MAX_ROWS])
    more = len(rows) - len(shown)
    lines = list(below)
    if more > 0:
        lines.insert(0, f"+{more}")
    height = height_of(len(rows), len(below))
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    big, small, bold = font(32), font(20, bold=False), font(20)
    room = WIDTH - 2 * MARGIN
    draw.text((MARGIN, 36), fit(title, big, room), font=big, fill=INK, anchor="lm")
    draw.text((MARGIN, 74), fit(what, small, room), font=small, fill=SOFT_INK, anchor="lm")
    y = HEAD
    for (x, anchor), text in zip(COLUMNS, head, strict=True):
        draw.text(
            (x, y + ROW // 2), fit(text, bold, NAME_ROOM), font=bold, fill=SOFT_INK, anchor=anchor
        )
    for n, row in enumerate(shown):
        y = HEAD + ROW * (n + 1)
        if n % 2 == 0:
            draw.rectangle((MARGIN, y + 2, WIDTH - MARGIN, y + ROW - 2), fill=PANEL)
        winner = row[0] == "1"
        for i, ((x, anchor), text) in enumerate(zip(COLUMNS, row, strict=True)):
            face = bold if winner or i == 2 else small
            value = fit(text, face, NAME_ROOM) if i == 1 else text
            draw.text((x, y + ROW // 2), value, font=face, fill=INK, anchor=anchor)
        if winner:
            # A golden disc before the winner's rank: read without colour by its place.
            r = 9
            cx, cy = MARGIN + 14, y + ROW // 2
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=GOLDEN, outline=INK, width=2)
    y = HEAD + ROW * (len(shown) + 1) + MARGIN // 2
    for text in lines:
        draw.text(
            (MARGIN, y + LINE // 2), fit(text, small, room), font=small, fill=INK, anchor="lm"
        )
        y += LINE
    return quantize(img, GAME)


def standings_png(
    title: str,
    what: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    below: Sequence[str] = (),
) -> bytes:
    """:func:`standings_image` as PNG bytes."""
    return png_bytes(standings_image(title, what, head, rows, below))
