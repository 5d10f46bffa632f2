"""What both boards share: an empty board with its cell labels and row letters."""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from engine.hexgrid import Area, Hex
from render.fonts import draw_text, font
from render.geometry import Lattice
from render.sprites import SS, Face, Sprite, cell_sprite
from render.theme import EMPTY, LABEL, PAPER, ROW_LABEL

EMPTY_FACE = Face(EMPTY)
LABEL_SCALE = 0.27  # label size, as a fraction of the cell width


def label_size(lat: Lattice) -> int:
    return round(LABEL_SCALE * lat.w)


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
    face = font(label_size(lat))
    for h, label in zip(area.cells, area.labels, strict=True):
        cx, cy = lat.centre(h)
        sprite = special(h)
        if sprite is not None:
            sprite.paste(img, cx, cy)
            continue
        cell_sprite(lat, label_face(h), ss=ss).paste(img, cx, cy)
        draw_text(img, (cx, cy), label, face, LABEL, "mm")
    row_letters(img, area, lat)
    return img


def row_letters(img: Image.Image, area: Area, lat: Lattice) -> None:
    """Each row's letter beside its first and its last cell, to find a row at a glance."""
    rows: dict[int, list[Hex]] = {}
    for h in area.cells:
        rows.setdefault(h.r, []).append(h)
    face = font(label_size(lat))
    gap = lat.w // 2 + 4
    for k, r in enumerate(sorted(rows)):
        letter = chr(ord("A") + k)
        lx, ly = lat.centre(rows[r][0])
        rx, ry = lat.centre(rows[r][-1])
        draw_text(img, (lx - gap, ly), letter, face, ROW_LABEL, "rm")
        draw_text(img, (rx + gap, ry), letter, face, ROW_LABEL, "lm")
