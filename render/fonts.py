"""The bundled DejaVu Sans fonts (``render/assets``), so no image depends on system fonts.

Text is laid out with Pillow's basic layout engine, which needs no extra library and gives
the same pixels wherever it runs; it covers the accented Latin of players' names.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from render.theme import RGB, snap_coverage

Font = ImageFont.FreeTypeFont
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
#: The cell labels' face: a tenth narrower, so a label like ``H15`` fits its cell in larger
#: letters (read on a phone 390 px wide, where a 4-player board's cells are 24 px).
CONDENSED = "DejaVuSansCondensed-Bold.ttf"
ELLIPSIS = "…"


ASSETS = Path(__file__).resolve().parent / "assets"


def _load(name: str, size: int) -> Font:
    # From the file by its path: FreeType reads what it needs of it. From bytes in memory
    # (importlib.resources) each size cost ten times as much, 0.4-0.5 ms, in the first
    # board of a new process (issue 50). The package is installed as files (setuptools'
    # package data), never run from a zip.
    return ImageFont.truetype(str(ASSETS / name), size, layout_engine=ImageFont.Layout.BASIC)


def font(size: int, bold: bool = True) -> Font:
    """The bundled sans-serif face at ``size`` px (cached: fonts are reused every render)."""
    # One cache entry whether ``bold`` is given or not (a cache on this function loaded
    # font(26) and font(26, True) apart: 0.1-0.3 ms more in a new process's first board).
    return _font(size, bold)


@cache
def _font(size: int, bold: bool) -> Font:
    return _load(BOLD if bold else REGULAR, size)


@cache
def label_font(size: int) -> Font:
    """The condensed bold face of the cell labels at ``size`` px."""
    return _load(CONDENSED, size)


def text_width(text: str, face: Font) -> float:
    return face.getlength(text)


def fit(text: str, face: Font, width: float) -> str:
    """``text``, cut short with an ellipsis if it is wider than ``width`` px."""
    if face.getlength(text) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if face.getlength(text[:mid].rstrip() + ELLIPSIS) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS


def draw_text(
    img: Image.Image, xy: tuple[float, float], text: str, face: Font, fill: RGB, anchor: str
) -> None:
    """``text`` on an RGB image at ``xy`` (Pillow's anchors), smooth, but with its edges
    snapped to the palette's blend steps (:func:`render.theme.snap_coverage`)."""
    cover, x0, y0 = text_cover(xy, text, face, anchor)
    img.paste(fill, (x0, y0, x0 + cover.width, y0 + cover.height), snap_coverage(cover))


def text_cover(
    xy: tuple[float, float], text: str, face: Font, anchor: str
) -> tuple[Image.Image, int, int]:
    """How much of each pixel ``text`` at ``xy`` covers (mode ``L``, 255 all), over the
    box round it: the box's image and its top-left corner."""
    left, top, right, bottom = face.getbbox(text, anchor=anchor)
    x0, y0 = math.floor(xy[0] + left) - 1, math.floor(xy[1] + top) - 1
    size = (math.ceil(xy[0] + right) + 1 - x0, math.ceil(xy[1] + bottom) + 1 - y0)
    cover = Image.new("L", size, 0)
    # Whole pixels only are taken off xy, so the glyphs fall exactly where they would have.
    ImageDraw.Draw(cover).text((xy[0] - x0, xy[1] - y0), text, font=face, fill=255, anchor=anchor)
    return cover, x0, y0
