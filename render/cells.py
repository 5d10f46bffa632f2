"""What both boards share: an empty board with its cell labels and row letters."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cache

from PIL import Image, ImageDraw

from engine.hexgrid import Area, Hex
from render.fonts import Font, label_font
from render.geometry import Lattice
from render.sprites import SS, Face, Sprite, cell_sprite
from render.theme import EMPTY, LABEL, PAPER, RGB, ROW_LABEL

EMPTY_FACE = Face(EMPTY)
LABEL_SCALE = 0.27  # label size, as a fraction of the cell width (the web board's SVG)
#: How much of a cell's width its label may take: the widest label of a board is drawn as
#: large as this allows, so labels stay legible on a phone (a 4-player board 390 px wide
#: has cells of 24 px; labels of 0.27 of that were 6 px letters, 4.6 px high).
LABEL_FILL = 0.84
#: The size at which :func:`cell_label_size` measures a label to guess from.
GUESS_SIZE = 20


def label_size(lat: Lattice) -> int:
    return round(LABEL_SCALE * lat.w)


@cache
def cell_label_size(w: int, labels: tuple[str, ...]) -> int:
    """The largest size of :func:`render.fonts.label_font` at which every one of ``labels``
    fits :data:`LABEL_FILL` of a cell ``w`` px wide (8 at the least).

    Widths grow with the size, so the answer is the size below the first that does not
    fit. It is looked for from a guess in proportion to the widest label at size
    :data:`GUESS_SIZE`, not size by size from 8 (19 sizes for a 4-player board): each size
    tried is a font loaded and every label measured, in the first board of a new process
    (issue 50)."""
    limit = LABEL_FILL * w

    def fits(size: int) -> bool:
        face = label_font(size)
        return face.getlength(widest) <= limit and all(face.getlength(t) <= limit for t in labels)

    # A guess from the widest of the longest labels at a middling size (a guess only: the
    # checks below decide; widths of small sizes are rounded up too much to scale from).
    longest = max(map(len, labels))
    guess = label_font(GUESS_SIZE)
    widest = max((t for t in labels if len(t) == longest), key=guess.getlength)
    size = max(8, round(GUESS_SIZE * limit / guess.getlength(widest)))
    while size > 8 and not fits(size):
        size -= 1
    while fits(size + 1):
        size += 1
    return size


def empty_board(
    size: tuple[int, int],
    area: Area,
    lat: Lattice,
    special: Callable[[Hex], Sprite | None],
    label_face: Callable[[Hex], Face] = lambda h: EMPTY_FACE,
    ss: int = SS,
) -> Image.Image:
    """An RGB image of ``size``: every cell of ``area`` empty and labelled, except the
    cells for which ``special`` gives a sprite (start symbols, towers), which get that;
    cells drawn ``ss`` times over-size (1: crisp edges)."""
    img = Image.new("RGB", size, PAPER)
    face = label_font(cell_label_size(lat.w, area.labels))
    for h, label in zip(area.cells, area.labels, strict=True):
        cx, cy = lat.centre(h)
        sprite = special(h)
        if sprite is not None:
            sprite.paste(img, cx, cy)
            continue
        cell_sprite(lat, label_face(h), ss=ss).paste(img, cx, cy)
        crisp_text(img, (cx, cy), label, face, LABEL)
    row_letters(img, area, lat)
    return img


def crisp_text(
    img: Image.Image, xy: tuple[int, int], text: str, face: Font, fill: RGB, anchor: str = "mm"
) -> None:
    """A cell's label, without smoothing: a board has hundreds, and their smooth edges
    cost a tenth of a Genial Spezial board's PNG (bench_render.py: 61.8 KB smooth, 56.7
    KB crisp, at the sizes a phone needs). Read 390 px wide, a phone's scaling smooths
    them anyway."""
    draw = ImageDraw.Draw(img)
    draw.fontmode = "1"
    draw.text(xy, text, font=face, fill=fill, anchor=anchor)


def row_letters(img: Image.Image, area: Area, lat: Lattice) -> None:
    """Each row's letter beside its first and its last cell, to find a row at a glance."""
    rows: dict[int, list[Hex]] = {}
    for h in area.cells:
        rows.setdefault(h.r, []).append(h)
    face = label_font(cell_label_size(lat.w, area.labels))
    gap = lat.w // 2 + 4
    for k, r in enumerate(sorted(rows)):
        letter = chr(ord("A") + k)
        lx, ly = lat.centre(rows[r][0])
        rx, ry = lat.centre(rows[r][-1])
        crisp_text(img, (lx - gap, ly), letter, face, ROW_LABEL, "rm")
        crisp_text(img, (rx + gap, ry), letter, face, ROW_LABEL, "lm")


def dead_cells(area: Area, filled: Collection[Hex]) -> list[Hex]:
    """The empty cells no tile can cover any more (every neighbour filled): their labels
    are left off, so a board shows labels only where a tile can still go."""
    index = area.index
    taken = {index[h] for h in filled if h in index}
    around = _neighbours(area)
    return [
        area.cells[i] for i in range(len(around)) if i not in taken and taken.issuperset(around[i])
    ]


@cache
def _neighbours(area: Area) -> tuple[tuple[int, ...], ...]:
    """Each cell's neighbours on the area, by index (worked out once per area: a board
    asks every turn)."""
    return tuple(tuple(j for j in row if j >= 0) for row in area.neighbours)
