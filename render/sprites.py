"""Pre-drawn pieces of the board: cells and the joints between two cells.

Each sprite is drawn once and cached, four times over-size and scaled down (smooth edges),
or crisp (``ss=1``: no blend colours along the cell's edge, a smaller PNG) with its symbol
still smooth; a board is then a background plus pasted sprites. A cell sprite's mask is its
own hexagon, so sprites of neighbouring cells never overlap. A joint sprite covers the strip
along the edge two cells share (never a third cell): pasted over two tile halves it fills the
gap between them, so the two hexes of a tile read as one piece, or a chain as one chain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine.hexgrid import OPPOSITE
from engine.tiles import Colour
from render.geometry import Lattice, Point, edge_corners, lerp
from render.prebuilt import piece, sprite_type
from render.symbols import draw_symbol
from render.theme import HIGHLIGHT, PAPER, RGB, quantize, snap_coverage

SS = 4  # drawn this many times over-size, then scaled down
GAP = 0.085  # the gap between two cells, as a fraction of the cell width
SYMBOL_RADIUS = 0.6  # a symbol's radius, as a fraction of half the cell width
CHAIN_WIDTH = 0.42  # a chain link's width, as a fraction of the edge


@dataclass(frozen=True, slots=True)
class Face:
    """How a cell's face looks: its fill and an optional rim of ``rim_width`` px."""

    fill: RGB
    rim: RGB | None = None
    rim_width: float = 0.0


def highlighted(fill: RGB, lat: Lattice) -> Face:
    """A cell of the last placement: its fill with the wide highlight rim (both boards)."""
    return Face(fill, HIGHLIGHT, max(3.0, 0.085 * lat.w))


@sprite_type
@dataclass(frozen=True, slots=True)
class Sprite:
    """An image and its mask, pasted with its top-left at ``(dx, dy)`` from a cell's centre
    pixel. The mask is all or nothing: mode "1" as drawn, "L" of 0 and 255 as loaded from
    the file of pieces (render/prebuilt.py), the same pixels pasted."""

    image: Image.Image
    mask: Image.Image
    dx: int
    dy: int
    #: The box it covers from the anchor, (left, top, right, bottom), right and bottom
    #: excluded: worked out once, as a board asks for hundreds (render/scene.py).
    extent: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        width, height = self.image.size
        object.__setattr__(self, "extent", (self.dx, self.dy, self.dx + width, self.dy + height))

    def paste(self, canvas: Image.Image, cx: int, cy: int) -> None:
        """Paste onto ``canvas`` with the anchor at ``(cx, cy)``."""
        x0, y0, x1, y1 = self.extent
        if canvas.mode != self.image.mode or canvas.readonly:  # Image.paste converts, copies
            canvas.paste(self.image, (cx + x0, cy + y0), self.mask)
            return
        # Image.paste spends ~3/4 of a sprite's paste checking its arguments, and a board
        # pastes hundreds: the checks it would make are made above (same mode, writable;
        # sprites are made in memory, so loaded), the pixels are the same.
        canvas.im.paste(self.image.im, (cx + x0, cy + y0, cx + x1, cy + y1), self.mask.im)


class Window:
    """A window in pixels around an anchor cell's centre pixel, drawn over-size."""

    def __init__(self, x0: int, y0: int, x1: int, y1: int, backdrop: RGB, ss: int = SS) -> None:
        self.x0, self.y0 = x0, y0
        self.k = ss  # over-size factor; 1 draws crisp edges (fewer colours, smaller PNG)
        self.size = (x1 - x0, y1 - y0)
        self.big = Image.new("RGB", (self.size[0] * ss, self.size[1] * ss), backdrop)
        self.draw = ImageDraw.Draw(self.big)
        self.mask = Image.new("1", self.size, 0)
        self.mask_draw = ImageDraw.Draw(self.mask)

    def ss(self, p: Point) -> Point:
        """A point (px from the anchor's centre) in over-size drawing coordinates."""
        # Pixel i spans [i, i+1) and Pillow puts coordinate i at that pixel's centre.
        k = self.k
        return ((0.5 + p[0] - self.x0) * k - 0.5, (0.5 + p[1] - self.y0) * k - 0.5)

    def ss_all(self, points: list[Point]) -> list[Point]:
        return [self.ss(p) for p in points]

    def polygon(self, points: list[Point], fill: RGB) -> None:
        self.draw.polygon(self.ss_all(points), fill=fill)

    def smooth_symbol(self, symbol: Colour, radius: float, fill: RGB) -> None:
        """``symbol`` at the anchor's centre, ``radius`` px, drawn :data:`SS` times over-size
        whatever this window's own factor: a crisp face keeps smooth symbols.

        The symbol is laid over what is drawn so far by its coverage, so its edges blend
        into the face under it (a plain fill) just as if both had been drawn over-size.
        """
        cover = Image.new("L", (self.size[0] * SS, self.size[1] * SS), 0)
        cx, cy = ((0.5 - self.x0) * SS - 0.5, (0.5 - self.y0) * SS - 0.5)
        draw_symbol(ImageDraw.Draw(cover), symbol, cx, cy, radius * SS, 255, 0)
        cover = snap_coverage(cover.reduce(SS)).resize(self.big.size, Image.Resampling.NEAREST)
        self.big = Image.composite(Image.new("RGB", self.big.size, fill), self.big, cover)
        self.draw = ImageDraw.Draw(self.big)

    def mask_polygon(self, points: list[Point]) -> None:
        self.mask_draw.polygon([(x - self.x0, y - self.y0) for x, y in points], fill=1)

    def sprite(self, game: str | None) -> Sprite:
        """The finished sprite: RGB, or mapped onto ``game``'s palette when given."""
        image = self.big.reduce(self.k) if self.k > 1 else self.big
        if game is not None:
            image = quantize(image, game)
        # Cut to what the mask lets through: a joint's strip is a small part of its window,
        # and pasting fewer pixels makes a board faster to draw (same pixels either way).
        box = self.mask.getbbox()
        if box is None:
            raise ValueError("a sprite's mask lets nothing through")
        x0, y0 = box[0], box[1]
        return Sprite(image.crop(box), self.mask.crop(box), self.x0 + x0, self.y0 + y0)


def _scales(lat: Lattice, face: Face) -> tuple[float, float]:
    """Corner scales of a face's outer edge and of the inside of its rim."""
    half = lat.w / 2
    outer = 1 - GAP
    return outer, outer - face.rim_width / half


def draw_face(win: Window, lat: Lattice, cx: float, cy: float, face: Face) -> None:
    outer, inner = _scales(lat, face)
    if face.rim is not None and face.rim_width > 0:
        win.polygon(lat.corners(cx, cy, outer), face.rim)
        win.polygon(lat.corners(cx, cy, inner), face.fill)
    else:
        win.polygon(lat.corners(cx, cy, outer), face.fill)


@piece
def cell_sprite(
    lat: Lattice,
    face: Face,
    symbol: Colour | None = None,
    symbol_fill: RGB | None = None,
    ring: RGB | None = None,
    backdrop: RGB = PAPER,
    game: str | None = None,
    ss: int = SS,
) -> Sprite:
    """A cell: its face, optionally a symbol (in ``symbol_fill``) and a thin ``ring``;
    in ``game``'s palette if given, else RGB; drawn ``ss`` times over-size."""
    hw, hh = math.ceil(lat.rx) + 1, math.ceil(lat.ry) + 1
    win = Window(-hw, -hh, hw + 1, hh + 1, backdrop, ss)
    draw_face(win, lat, 0, 0, face)
    half = lat.w / 2
    centre = win.ss((0, 0))
    if ring is not None:
        r_out, r_in = 0.66 * half * ss, 0.56 * half * ss
        win.draw.ellipse(
            (centre[0] - r_out, centre[1] - r_out, centre[0] + r_out, centre[1] + r_out),
            fill=ring,
        )
        win.draw.ellipse(
            (centre[0] - r_in, centre[1] - r_in, centre[0] + r_in, centre[1] + r_in),
            fill=face.fill,
        )
    if symbol is not None and symbol_fill is not None:
        if ss >= SS:
            radius = SYMBOL_RADIUS * half * ss
            draw_symbol(win.draw, symbol, centre[0], centre[1], radius, symbol_fill, face.fill)
        else:
            win.smooth_symbol(symbol, SYMBOL_RADIUS * half, symbol_fill)
    # The mask stops a pixel short of the cell's edge: the gap is backdrop on both sides.
    win.mask_polygon(lat.corners(0, 0, 1 - 1.0 / half))
    return win.sprite(game)


def _nearest(points: list[Point], p: Point) -> int:
    return min(range(len(points)), key=lambda k: math.dist(points[k], p))


def _perp(p: Point, a: Point, b: Point) -> float:
    """Distance of ``p`` from the line through ``a`` and ``b``."""
    (x, y), (ax, ay), (bx, by) = p, a, b
    return abs((bx - ax) * (ay - y) - (ax - x) * (by - ay)) / math.dist(a, b)


@piece
def joint_sprite(
    lat: Lattice,
    direction: int,
    face_a: Face,
    face_b: Face,
    chain: RGB | None = None,
    game: str | None = None,
    backdrop: RGB = PAPER,
    ss: int = SS,
) -> Sprite:
    """The strip along the edge between a cell and its neighbour in ``direction``.

    Without ``chain``: the two halves of one tile, the gap filled (faces must match; a rim
    runs round the pair as one outline). With ``chain``: two tiles of one chain, linked
    by a narrower bar of that colour across the gap. In ``game``'s palette if given; drawn
    ``ss`` times over-size.
    """
    bx, by = lat.offset(direction)
    hw, hh = math.ceil(lat.rx) + 2, math.ceil(lat.ry) + 2
    win = Window(
        min(0, bx) - hw, min(0, by) - hh, max(0, bx) + hw + 1, max(0, by) + hh + 1, backdrop, ss
    )
    i, j = edge_corners(direction)
    i_b, j_b = edge_corners(OPPOSITE[direction])
    full_a = lat.corners(0, 0)
    full_b = lat.corners(bx, by)
    # B's corner on A's corner i is B's j_b, and the other way round.
    assert _nearest(full_b, full_a[i]) == j_b and _nearest(full_b, full_a[j]) == i_b
    out_a_s, in_a_s = _scales(lat, face_a)
    out_b_s, in_b_s = _scales(lat, face_b)

    def quad(sa: float, sb: float) -> list[Point]:
        ca, cb = lat.corners(0, 0, sa), lat.corners(bx, by, sb)
        return [ca[i], ca[j], cb[i_b], cb[j_b]]

    if chain is None:
        if face_a != face_b:
            raise ValueError("the two halves of a tile have one face")
        rim = face_a.rim if face_a.rim is not None and face_a.rim_width > 0 else face_a.fill
        win.polygon(lat.corners(0, 0, out_a_s), rim)
        win.polygon(lat.corners(bx, by, out_b_s), rim)
        win.polygon(quad(out_a_s, out_b_s), rim)
        win.polygon(lat.corners(0, 0, in_a_s), face_a.fill)
        win.polygon(lat.corners(bx, by, in_b_s), face_b.fill)
        win.polygon(quad(in_a_s, in_b_s), face_a.fill)
    else:
        draw_face(win, lat, 0, 0, face_a)
        draw_face(win, lat, bx, by, face_b)
        a1, a2, b1, b2 = quad(in_a_s, in_b_s)
        t = (1 - CHAIN_WIDTH) / 2
        link = [lerp(a1, a2, t), lerp(a2, a1, t), lerp(b1, b2, t), lerp(b2, b1, t)]
        win.polygon(link, chain)

    # The mask: the strip of both cells within `depth` of the shared edge.
    v1, v2 = full_a[i], full_a[j]
    depth = max(_perp(p, v1, v2) for p in quad(in_a_s, in_b_s)) + 1.5
    u_a1, u_a2 = full_a[(i - 1) % 6], full_a[(j + 1) % 6]
    u_b1, u_b2 = full_b[(j_b + 1) % 6], full_b[(i_b - 1) % 6]

    def towards(v: Point, u: Point) -> Point:
        return lerp(v, u, depth / _perp(u, v1, v2))

    win.mask_polygon(
        [v1, towards(v1, u_a1), towards(v2, u_a2), v2, towards(v2, u_b2), towards(v1, u_b1)]
    )
    return win.sprite(game)
