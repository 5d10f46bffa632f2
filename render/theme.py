"""Colours of every image, and the fixed PNG palette made from them.

Images are drawn in RGB (with smooth edges) and then mapped onto one fixed palette, which
is fast and keeps the PNG small. The palette holds each colour below and the blends
between colours that meet at an edge, so the smooth edges survive the mapping.
"""

from __future__ import annotations

from functools import cache

# Pillow imports ImagePalette (and the palette file readers with it) the first time a palette
# image is made: ~1 ms of a new process's first board, paid here with the other imports.
import PIL.ImagePalette  # noqa: F401
from PIL import Image

from engine.spezial import SCORE_COLOURS as SPEZIAL_COLOURS
from engine.tiles import Colour
from render.prebuilt import piece

RGB = tuple[int, int, int]

# --- the table ---------------------------------------------------------------------------
PAPER: RGB = (226, 216, 194)  # behind the board and the panel; the gaps between cells
EMPTY: RGB = (246, 240, 226)  # an empty cell
EMPTY_EDGE: RGB = (196, 182, 152)
LABEL: RGB = (104, 90, 68)  # cell labels on empty cells
ROW_LABEL: RGB = (120, 104, 80)
INK: RGB = (40, 36, 32)  # names and numbers
SOFT_INK: RGB = (120, 110, 96)
TRACK: RGB = (204, 192, 166)  # an unfilled score track
PANEL: RGB = (238, 231, 214)  # a panel row
TURN: RGB = (214, 40, 120)  # the arrow at the player to move
LOWEST: RGB = (214, 40, 120)  # the frame round a side's lowest colours
WHITE: RGB = (255, 255, 255)

# --- Genial ------------------------------------------------------------------------------
TILE: RGB = (36, 38, 46)  # a placed tile's face
HIGHLIGHT: RGB = (236, 28, 132)  # the rim round the last placement
PRINTED: RGB = (92, 72, 56)  # a start symbol's printed cell
PRINTED_EDGE: RGB = (236, 200, 120)
#: Each seat's colour on a Genial board when several placements are told together (a
#: Genial seat has no colour of its own): the rim of its tiles and its numbered badges.
#: Apart from each other and from the six symbols' colours; the first is the highlight's.
SEAT_MARK: tuple[RGB, ...] = (HIGHLIGHT, (0, 176, 216), WHITE, (150, 222, 40))

SYMBOL: dict[Colour, RGB] = {
    Colour.RED: (226, 44, 48),
    Colour.GREEN: (46, 170, 72),
    Colour.BLUE: (38, 112, 226),
    Colour.ORANGE: (246, 134, 22),
    Colour.YELLOW: (250, 214, 30),
    Colour.PURPLE: (156, 72, 206),
}
# --- Genial Spezial ----------------------------------------------------------------------
SEAT: tuple[RGB, ...] = ((212, 44, 52), (40, 42, 50), (250, 250, 246), (244, 194, 36))
SEAT_EDGE: tuple[RGB, ...] = ((150, 24, 30), (12, 12, 16), (120, 120, 120), (170, 120, 10))
GOLDEN: RGB = (232, 178, 40)
#: The mark of a covered golden space on each seat's tiles (gold does not show on yellow).
GOLDEN_MARK: tuple[RGB, ...] = (GOLDEN, GOLDEN, GOLDEN, (150, 96, 10))
GOLDEN_CELL: RGB = (250, 228, 160)
TALL: RGB = (96, 90, 86)
SHORT: RGB = (160, 154, 146)
STONE_DARK: RGB = (64, 60, 58)
STONE_LIGHT: RGB = (124, 118, 112)
TOKEN_LIGHT: RGB = (255, 255, 255)
TOKEN_DARK: RGB = (20, 20, 24)

_COMMON: tuple[RGB, ...] = (
    PAPER, EMPTY, EMPTY_EDGE, LABEL, ROW_LABEL, INK, SOFT_INK, TRACK, PANEL, TURN, WHITE,
    HIGHLIGHT, GOLDEN, (0, 0, 0),
)  # fmt: skip
_GENIAL: tuple[RGB, ...] = (TILE, PRINTED, PRINTED_EDGE, *SYMBOL.values(), *SEAT_MARK)
_SPEZIAL: tuple[RGB, ...] = (
    *SEAT, *SEAT_EDGE, GOLDEN_MARK[3], GOLDEN_CELL, TALL, SHORT, STONE_DARK,
    STONE_LIGHT, TOKEN_LIGHT, TOKEN_DARK, *(SYMBOL[c] for c in SPEZIAL_COLOURS),
)  # fmt: skip

# Colours that meet at an edge somewhere; blends between them go into the palette.
_COMMON_PAIRS: list[tuple[RGB, RGB]] = [
    (PAPER, EMPTY), (PAPER, EMPTY_EDGE), (EMPTY, EMPTY_EDGE), (EMPTY, LABEL),
    (PAPER, ROW_LABEL), (PAPER, PANEL), (PANEL, INK), (PANEL, SOFT_INK), (PANEL, TURN),
    (PANEL, TRACK), (PAPER, INK), (PAPER, TURN), (PAPER, SOFT_INK), (PANEL, WHITE),
    (PAPER, GOLDEN),
]  # fmt: skip
_GENIAL_PAIRS: list[tuple[RGB, RGB]] = [
    *((bg, c) for bg in (TILE, PRINTED, PANEL) for c in SYMBOL.values()),
    (PAPER, TILE), (TILE, HIGHLIGHT), (PAPER, HIGHLIGHT), (PAPER, PRINTED),
    (PRINTED, PRINTED_EDGE), (PAPER, PRINTED_EDGE), (PANEL, TILE), (TILE, WHITE),
    *((WHITE, c) for c in SYMBOL.values()), (WHITE, INK), (WHITE, LOWEST), (PANEL, LOWEST),
    # The numbered badges' figures (render/marks.py).
    (HIGHLIGHT, WHITE), (SEAT_MARK[1], INK), (SEAT_MARK[3], INK),
]  # fmt: skip
_SPEZIAL_PAIRS: list[tuple[RGB, RGB]] = [
    *((PAPER, s) for s in SEAT), *((s, e) for s, e in zip(SEAT, SEAT_EDGE, strict=True)),
    *((PAPER, e) for e in SEAT_EDGE), *((PANEL, e) for e in SEAT_EDGE),
    *((PANEL, s) for s in SEAT), *((s, m) for s, m in zip(SEAT, GOLDEN_MARK, strict=True)),
    (PAPER, HIGHLIGHT), *((e, HIGHLIGHT) for e in SEAT_EDGE),
    (PAPER, GOLDEN), (EMPTY, GOLDEN), (GOLDEN_CELL, PAPER), (GOLDEN_CELL, GOLDEN),
    (GOLDEN_CELL, LABEL), (TALL, PAPER), (SHORT, PAPER), (TALL, STONE_DARK),
    (SHORT, STONE_LIGHT), (STONE_DARK, PAPER), (TALL, STONE_LIGHT), (STONE_LIGHT, PAPER),
    (TOKEN_LIGHT, INK),
    (TOKEN_DARK, WHITE), (WHITE, INK), (WHITE, LOWEST), (PANEL, LOWEST),
    *((WHITE, SYMBOL[c]) for c in SPEZIAL_COLOURS),
    *((bg, SYMBOL[c]) for bg in (TALL, SHORT, PANEL) for c in SPEZIAL_COLOURS),
    *((SYMBOL[c], TOKEN_LIGHT) for c in SPEZIAL_COLOURS),
    *((SYMBOL[c], TOKEN_DARK) for c in SPEZIAL_COLOURS),
    # The numbered badges' figures (render/marks.py), on each seat's colour.
    (SEAT[0], WHITE), (SEAT[1], WHITE), (SEAT[2], INK), (SEAT[3], INK),
]  # fmt: skip
# One step halfway between two colours smooths an edge well enough on a phone; each step
# more is another colour on every edge, which costs PNG bytes (render/encode.py).
_BLEND_STEPS = (1 / 2,)
_GREYS = 16
MIN_SPACING = 10.0  # between two palette entries (RGB distance), see palette_colours
GAMES = ("genial", "spezial")


def _distance(a: RGB, b: RGB) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def _apart(a: RGB, b: RGB, spacing: float) -> bool:
    """Whether two colours are at least ``spacing`` apart: :func:`_distance` compared in
    squares, without the root or a generator (a palette checks some 6,000 pairs, in the
    first board of a new process)."""
    dr = a[0] - b[0]
    dg = a[1] - b[1]
    db = a[2] - b[2]
    return dr * dr + dg * dg + db * db >= spacing * spacing


def _blend(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def palette_colours(game: str) -> list[RGB]:
    """The palette of one game's images (``"genial"`` or ``"spezial"``): base colours,
    then blends, then a grey ramp; at most 256.

    A blend close to a colour already there is left out: Pillow maps a pixel onto the
    palette through boxes of nearby colours, and two entries that close could take each
    other's pixels (a theme colour must come out exactly as itself).

    Raises:
        ValueError: for an unknown game, or if the theme needs more than 256 colours.
    """
    if game not in GAMES:
        raise ValueError(f"no palette for game {game!r}")
    return list(_palette(game))


@piece
def _palette(game: str) -> tuple[RGB, ...]:
    """:func:`palette_colours`, worked out once per process (the board, its encoder and the
    replay each ask for it)."""
    base, pairs = (_GENIAL, _GENIAL_PAIRS) if game == "genial" else (_SPEZIAL, _SPEZIAL_PAIRS)
    colours: list[RGB] = list(dict.fromkeys((*_COMMON, *base)))
    extra = [_blend(a, b, t) for a, b in (*_COMMON_PAIRS, *pairs) for t in _BLEND_STEPS]
    extra += [(g, g, g) for g in (round(255 * k / (_GREYS - 1)) for k in range(_GREYS))]
    for rgb in extra:
        if all(_apart(rgb, c, MIN_SPACING) for c in colours):
            colours.append(rgb)
    if len(colours) > 256:
        raise ValueError(f"the palette needs {len(colours)} colours; a PNG palette holds 256")
    return tuple(colours)


@cache
def palette_image(game: str) -> Image.Image:
    """A 1x1 palette image holding :func:`palette_colours` and nothing more, for
    ``Image.quantize`` (and so a PNG's palette lists only the colours there are)."""
    colours = palette_colours(game)
    flat = [v for rgb in colours for v in rgb]
    img = Image.new("P", (1, 1))
    img.putpalette(flat)
    return img


def _snapped(a: int) -> int:
    levels = (0, *(round(255 * t) for t in _BLEND_STEPS), 255)
    return min(levels, key=lambda level: abs(level - a))


#: Each coverage 0-255 moved to the nearest blend step (0, the steps, 255).
SNAP = [_snapped(a) for a in range(256)]


def snap_coverage(cover: Image.Image) -> Image.Image:
    """A coverage mask (mode ``L``: 0 nothing, 255 all ink) with each value moved to the
    nearest blend step of the palette, so that ink laid on a plain colour through it makes
    exactly the palette's own blends (and no stray colours at every edge)."""
    return cover.point(SNAP)


def inked(cover: Image.Image, fill: RGB, backdrop: RGB) -> Image.Image:
    """An RGB image of ``backdrop`` with ``fill`` laid through a coverage mask (mode ``L``),
    snapped first (:func:`snap_coverage`)."""
    paper = Image.new("RGB", cover.size, backdrop)
    paper.paste(fill, (0, 0, *cover.size), snap_coverage(cover))
    return paper


def quantize(img: Image.Image, game: str) -> Image.Image:
    """An RGB image mapped onto ``game``'s palette (nearest colour, no dithering)."""
    return img.quantize(palette=palette_image(game), dither=Image.Dither.NONE)
