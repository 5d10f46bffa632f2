"""Several placements told together on one board (a person's move and the computer players'
replies): each tile gets a numbered badge in its seat's colour, in the order they were
made, and a small legend in the board's top-left corner names the seats.

Both boards share this. The badges sit on the joint between a tile's two cells, where its
symbols are not; the legend goes in the corner the hexagonal boards leave empty, each line
as wide as the paper there allows (measured on the empty board itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.hexgrid import Hex
from render.canvas import Canvas, palette_index
from render.fonts import draw_text, fit, font
from render.geometry import Lattice
from render.theme import INK, PAPER, RGB, quantize

#: The legend's lines: text size, line height, and where the first line starts.
LEGEND_SIZE = 26
LEGEND_LINE = 38
LEGEND_X = 14
LEGEND_Y = 12
LEGEND_DISC = 26


@dataclass(frozen=True, slots=True)
class Told:
    """One placement of the several told together: the seat that made it, its cells."""

    seat: int
    cell1: Hex
    cell2: Hex


@dataclass(frozen=True, slots=True)
class SeatMark:
    """How a seat's badge looks: its fill, the number's ink, the ring round it."""

    fill: RGB
    ink: RGB
    ring: RGB


def numbered(told: Sequence[Told]) -> list[Told]:
    """The placements that get numbers: all of them when there are two or more (one
    placement alone is the last placement, marked as always)."""
    return list(told) if len(told) >= 2 else []


def badge_diameter(lat: Lattice) -> int:
    return max(18, round(0.5 * lat.w))


@lru_cache(maxsize=256)
def badge(game: str, number: int, diameter: int, mark: SeatMark) -> tuple[Image.Image, Image.Image]:
    """A round badge with ``number`` on it, in the palette, and its mask."""
    d = diameter
    img = Image.new("RGB", (d, d), mark.fill)
    size = round((0.6 if number < 10 else 0.48) * d)
    draw_text(img, (d / 2, d / 2), str(number), font(size), mark.ink, "mm")
    piece = quantize(img, game)
    ring = max(2, d // 11)
    ImageDraw.Draw(piece).ellipse(
        (0, 0, d - 1, d - 1), outline=palette_index(game, mark.ring), width=ring
    )
    mask = Image.new("1", (d, d), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, d - 1, d - 1), fill=1)
    return piece, mask


def badge_centre(lat: Lattice, told: Told) -> tuple[int, int]:
    """Where a placement's badge goes: the middle of the joint between its two cells."""
    (ax, ay), (bx, by) = lat.centre(told.cell1), lat.centre(told.cell2)
    return (ax + bx) // 2, (ay + by) // 2


def draw_badges(
    img: Image.Image, game: str, lat: Lattice, told: Sequence[Told], marks: Sequence[SeatMark]
) -> None:
    """Each placement's numbered badge (1 first), in its seat's colour."""
    d = badge_diameter(lat)
    for number, t in enumerate(told, 1):
        piece, mask = badge(game, number, d, marks[t.seat])
        cx, cy = badge_centre(lat, t)
        img.paste(piece, (cx - d // 2, cy - d // 2), mask)


#: Where each seat's legend line goes, in order: the top-left corner's first line, the
#: top-right's, then their second lines (the hexagonal boards' corners narrow fast).
LEGEND_PLACES: tuple[tuple[str, int], ...] = (("left", 0), ("right", 0), ("left", 1), ("right", 1))


def legend_rooms(background: Image.Image, game: str) -> tuple[int, ...]:
    """How wide each legend place may be: the paper from the image's edge to the first
    thing drawn on the empty board at that height (a row letter, a cell). Boards cache
    this per empty board."""
    paper = palette_index(game, PAPER)
    data = background.load()
    assert data is not None
    rooms = []
    for side, line in LEGEND_PLACES:
        top = LEGEND_Y + line * LEGEND_LINE
        xs = range(LEGEND_X, background.width // 2)
        if side == "right":
            xs = range(background.width - 1 - LEGEND_X, background.width // 2, -1)
        room = len(xs)
        for k, x in enumerate(xs):
            if any(data[x, y] != paper for y in range(top, top + LEGEND_LINE)):
                room = k - 10
                break
        rooms.append(room)
    return tuple(rooms)


def draw_legend(
    canvas: Canvas,
    rooms: Sequence[int],
    told: Sequence[Told],
    marks: Sequence[SeatMark],
    names: Sequence[str],
) -> None:
    """One line per seat that placed, in the order they first did: a disc in the seat's
    colour and the seat's name (cut short to the room there)."""
    seats = list(dict.fromkeys(t.seat for t in told))
    width = canvas.img.width
    r = LEGEND_DISC // 2
    for (side, line), room, seat in zip(LEGEND_PLACES, rooms, seats, strict=False):
        mark = marks[seat]
        cy = LEGEND_Y + line * LEGEND_LINE + LEGEND_LINE // 2
        disc_x = LEGEND_X if side == "left" else width - 1 - LEGEND_X - 2 * r
        canvas.draw.ellipse(
            (disc_x, cy - r, disc_x + 2 * r, cy + r),
            fill=canvas.ink(mark.fill),
            outline=canvas.ink(mark.ring),
            width=3,
        )
        room_text = room - LEGEND_DISC - 8
        if room_text < 24:
            continue  # no room for a name beside the disc
        name = fit(names[seat], font(LEGEND_SIZE), room_text)
        if side == "left":
            canvas.text((disc_x + LEGEND_DISC + 8, cy), name, LEGEND_SIZE, INK, PAPER)
        else:
            canvas.text((disc_x - 8, cy), name, LEGEND_SIZE, INK, PAPER, anchor="rm")
