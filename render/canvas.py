"""Drawing straight onto a palette image: colours by palette index, and text and shapes
from cached pre-drawn pieces (drawn smooth once, in RGB, then mapped onto the palette).

Working in the palette avoids mapping a whole image onto it every turn; the pieces are
cached because the same numbers, names and icons come back turn after turn.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import cast

from PIL import Image, ImageDraw

from render.fonts import font
from render.prebuilt import piece
from render.sprites import SS
from render.theme import (
    PAPER,
    RGB,
    SNAP,
    inked,
    palette_colours,
    palette_image,
    quantize,
)

Box = tuple[float, float, float, float]


@cache
def _indexes(game: str) -> dict[RGB, int]:
    return {rgb: k for k, rgb in enumerate(palette_colours(game))}


def palette_index(game: str, rgb: RGB) -> int:
    """The palette index of a theme colour.

    Raises:
        KeyError: if the colour is not in the game's palette.
    """
    return _indexes(game)[rgb]


#: Texts whose pieces may be in the file of pieces (render/prebuilt.py): the points and
#: counts of the score panels, a few hundred at most (names and clocks are drawn).
FIGURES = re.compile(r"×?[0-9]{1,2}")


@lru_cache(maxsize=4096)
def text_piece(
    text: str, size: int, fill: RGB, backdrop: RGB, anchor: str, bold: bool, game: str
) -> tuple[Image.Image, int, int]:
    """``text`` on ``backdrop`` in the palette, and where its top-left goes relative to
    the anchor point.

    The same pixels as drawing it on an RGB image of ``backdrop`` with
    :func:`render.fonts.draw_text` and mapping that onto the palette (:func:`quantize`),
    with less work: each pixel's coverage is mapped straight to its palette index
    (:func:`_inks`). Names and points are drawn on every first board of a process; the
    points and counts (:data:`FIGURES`) are taken from the file of pieces when it has
    them, so a first board loads no font for them (each size's first text cost ~0.3 ms)."""
    if FIGURES.fullmatch(text):
        return figure_piece(text, size, fill, backdrop, anchor, bold, game)
    return _text_piece(text, size, fill, backdrop, anchor, bold, game)


@piece
def figure_piece(
    text: str, size: int, fill: RGB, backdrop: RGB, anchor: str, bold: bool, game: str
) -> tuple[Image.Image, int, int]:
    """:func:`text_piece` of one of the :data:`FIGURES`."""
    return _text_piece(text, size, fill, backdrop, anchor, bold, game)


def _text_piece(
    text: str, size: int, fill: RGB, backdrop: RGB, anchor: str, bold: bool, game: str
) -> tuple[Image.Image, int, int]:
    face = font(size, bold)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor))
    left, top = left - 1, top - 1
    width, height = right - left + 2, bottom - top + 2
    # The coverage drawn straight at its place: the glyphs fall on the pixels they fall on
    # in draw_text's box round them (the same fraction of a pixel off), none outside.
    whole = Image.new("L", (width, height), 0)
    ImageDraw.Draw(whole).text((-left, -top), text, font=face, fill=255, anchor=anchor)
    # An L image of indexes made P keeps them as they are (a grey palette, replaced next).
    # Not through bytes: Image.tobytes imports Pillow's file machinery (~2 ms, once).
    piece = whole.point(_inks(fill, backdrop, game)).convert("P")
    piece.putpalette(_palette_list(game))
    return piece, left, top


@piece
def _inks(fill: RGB, backdrop: RGB, game: str) -> tuple[int, ...]:
    """The palette index of a pixel of ``fill`` text on ``backdrop`` for each coverage
    0-255: what :func:`render.fonts.draw_text` then :func:`quantize` make of it, worked
    out by doing just that on one pixel of each blend step coverage is snapped to."""
    steps = sorted(set(SNAP))
    cover = Image.new("L", (len(steps), 1))
    cover.putdata(steps)
    probe = Image.new("RGB", cover.size, backdrop)
    probe.paste(fill, (0, 0, *cover.size), cover)
    mapped = quantize(probe, game)
    index = {step: cast(int, mapped.getpixel((x, 0))) for x, step in enumerate(steps)}
    return tuple(index[step] for step in SNAP)


@cache
def _palette_list(game: str) -> bytes:
    return bytes(palette_image(game).getpalette() or [])


@piece
def _shape(kind: str, size: int, fill: RGB, backdrop: RGB, game: str) -> Image.Image:
    cover = Image.new("L", (size * SS, size * SS), 0)
    draw = ImageDraw.Draw(cover)
    s = size * SS
    if kind == "arrow":  # pointing right
        draw.polygon([(0.1 * s, 0.1 * s), (0.95 * s, 0.5 * s), (0.1 * s, 0.9 * s)], fill=255)
    elif kind == "crown":
        draw.polygon(
            [
                (0.02 * s, 0.85 * s),
                (0.02 * s, 0.25 * s),
                (0.28 * s, 0.55 * s),
                (0.5 * s, 0.12 * s),
                (0.72 * s, 0.55 * s),
                (0.98 * s, 0.25 * s),
                (0.98 * s, 0.85 * s),
            ],
            fill=255,
        )
    else:
        raise ValueError(f"unknown shape {kind!r}")
    return quantize(inked(cover.reduce(SS), fill, backdrop), game)


class Canvas:
    """A palette (``P``) image of one game, and ways to draw on it."""

    def __init__(self, img: Image.Image, game: str) -> None:
        if img.mode != "P":
            raise ValueError("a canvas is a palette image")
        self.img = img
        self.game = game
        self.draw = ImageDraw.Draw(img)

    @classmethod
    def new(cls, game: str, size: tuple[int, int], fill: RGB = PAPER) -> Canvas:
        img = Image.new("P", size, palette_index(game, fill))
        img.putpalette(_palette_list(game))  # bytes: a list of 768 ints cost 20 us a canvas
        return cls(img, game)

    def ink(self, rgb: RGB) -> int:
        return palette_index(self.game, rgb)

    def rect(
        self,
        box: Box,
        fill: RGB | None,
        radius: int = 0,
        outline: RGB | None = None,
        width: int = 1,
    ) -> None:
        self.draw.rounded_rectangle(
            box,
            radius,
            fill=None if fill is None else self.ink(fill),
            outline=None if outline is None else self.ink(outline),
            width=width,
        )

    def line(self, points: Box, fill: RGB, width: int = 1) -> None:
        self.draw.line(points, fill=self.ink(fill), width=width)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int,
        fill: RGB,
        backdrop: RGB,
        anchor: str = "lm",
        bold: bool = True,
    ) -> None:
        """Text at ``xy`` (Pillow's anchors) over a plain ``backdrop`` of that colour."""
        piece, dx, dy = text_piece(text, size, fill, backdrop, anchor, bold, self.game)
        self.img.paste(piece, (round(xy[0]) + dx, round(xy[1]) + dy))

    def shape(self, kind: str, xy: tuple[int, int], size: int, fill: RGB, backdrop: RGB) -> None:
        """A smooth ``arrow`` or ``crown``, ``size`` px square, top-left at ``xy``."""
        self.img.paste(_shape(kind, size, fill, backdrop, self.game), xy)

    def paste(self, piece: Image.Image, xy: tuple[int, int]) -> None:
        self.img.paste(piece, xy)
