"""PNG encoding of the palette images the renderer draws: a small PNG writer of its own,
which deflates an image in bands of rows and keeps the deflated bands it has made.

Why a writer of its own: on a late-game board deflate is most of a render's time (a
1120 x 1380 board is 1.5 MB of pixels; zlib takes ~13 ms at level 6 on this machine and
Pillow's writer offers no way round it). But from one turn to the next a board changes in
a few places only (the new tile, the old highlight, a score, the arrow at the player to
move), so most bands of rows are the same bytes as in the image before. Each band is
deflated on its own (a fresh compressor, ended on a byte boundary) so that its deflated
bytes depend on its pixels alone (and the row above it, given as a preset dictionary); the
PNG is the bands' bytes one after another. A band equal to the same band of the last image
of that size (compared byte for byte), or seen before on any image (looked up by its
XXH3-128 hash), is not deflated again. The same image always gives the same bytes,
whatever is kept.

What the writer buys, encoding alone (CPU time, median over the late positions of two
games rendered in the order of play, on the same drawings; a 2-core machine shared with
other jobs, so compare the rows rather than trust the figures; the whole render is timed
by benchmarks/bench_render.py):

| writer                                     | Genial 4p late     | Spezial 4p         |
|--------------------------------------------|--------------------|--------------------|
| Pillow, level 5 (before)                   | 10.0 ms, 61.9 KB   | 12.0 ms, 66.7 KB   |
| Pillow, level 6                            | 14.6 ms, 53.6 KB   | 16.1 ms, 57.0 KB   |
| Pillow, level 7                            | 19.5 ms, 51.5 KB   | 19.8 ms, 54.9 KB   |
| this one, nothing kept (after a restart)   | 15.6 ms, 55.3 KB   | 20.2 ms, 56.2 KB   |
| this one, at a table (the turn before kept)|  4.8 ms, 55.3 KB   |  5.2 ms, 56.2 KB   |

(Genial: level 6, bands of 16 rows; Spezial: level 7, its score rows 6, bands of 32 rows
starting at the score rows.) Bands cost 2-3 KB against one deflate of the whole image:
each band can refer back only one row above it. ``optimize=True`` is no help: level 9,
~120 ms for a board.

Since issue 31 the bands are deflated by zlib-ng (a maintained drop-in for zlib, the same
format) at one level below the zlib level asked for, which gives about the same size in
half the time or less, and the rows are laid out with their filter bytes by Pillow in one
paste (no joining of rows in Python). ``benchmarks/bench_render.py --repeat 30`` on
2026-12-02, main's writer and this one run one after the other twice (load 3.2-3.3 on 2
cores), CPU medians of a whole render (drawing and encoding): Genial 4p late 5.59 / 5.99 ms
-> 4.73 / 4.26 ms, Spezial 4p 6.89 / 8.65 ms -> 5.46 / 5.87 ms; 55.2 -> 56.5 KB and
56.2 -> 56.2 KB; the first board after a restart 8.5 ms (Genial) and 11.5 ms (Spezial).

Since 2026-12-03 the filtered rows are laid out in a buffer the writer keeps and reuses
(two per image size), through a Pillow image over its memory, instead of a new 1.5 MB
``bytes`` from ``tobytes`` every board (copying the rows out chunk by chunk and joining
them cost 0.7-3 ms a board, more than the paste); bands are compared with the last
image's in place (``startswith`` at an offset: memcmp, no slices copied). The same bytes
as before for every board (checked on 469 boards of 2- and 4-player Genial and 4-player
Genial Spezial games); figures in docs/measurements.md.

Since 2026-12-07 the bands of every image but Genial Spezial's board (32 rows already) are
32 rows, not 16: each band's compressor costs the same whatever its size, and half as many
bands cost a new process's first 4-player board 10 % fewer instructions and a game's
boards 7 % fewer (:data:`BAND_ROWS`).
"""

from __future__ import annotations

import itertools
import struct
import threading
import weakref
import zlib
from collections.abc import Sequence
from functools import lru_cache
from types import ModuleType
from typing import cast

import xxhash
from PIL import Image

from render.theme import quantize

_zlib_ng: ModuleType | None
try:  # zlib-ng: the same deflate format, about twice as fast for the same size
    from zlib_ng import zlib_ng as _zlib_ng
except ImportError:  # pragma: no cover - a platform without its wheel: zlib, slower
    _zlib_ng = None

COMPRESS_LEVEL = 6
#: Rows per band. Fewer rows: fewer rows deflated again when one pixel changes, but each
#: band starts without most of the rows above it to refer back to (a bigger PNG), and each
#: band pays for a compressor of its own: zlib-ng clears a 128 KB hash table and sets up its
#: window for every band, whatever its size (with 16 rows about a seventh of a first
#: board's instructions). 32 rows cost a 4-player Genial game's boards 7 % fewer
#: instructions than 16, 24 rows 4 % and 48 rows 1 % fewer, 64 rows 4 % more (a tile
#: dirties some 60 rows either way), and a late board is 1.3 KB smaller
#: (``benchmarks/bench_instructions.py``, 2026-12-07).
BAND_ROWS = 32
#: Rows above a band that its deflated bytes may refer to. A band deflated on its own
#: loses its first row's best match (the row just above), which costs a Spezial board 3 KB;
#: a change in that row means deflating the band below again as well.
ROWS_ABOVE = 1
#: Deflated bands kept (each 1-2 KB): enough for a few hundred tables' boards.
CACHE_BANDS = 16384

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = b"\x78\x9c"  # deflate, 32 KB window, no preset dictionary
_FINAL_BLOCK = b"\x03\x00"  # an empty last block (fixed Huffman codes)
_ADLER_MOD = 65521

#: Image sizes whose last image is kept (pixels ~1.5 MB each), to compare the next with.
PREVIOUS_IMAGES = 12


class _Rows:
    """A buffer of an image's filtered rows (each after its filter byte, 0) and a ``P``
    image of ``width + 1`` columns over that memory: pasting an image at column 1 lays
    out its rows for PNG in Pillow's C code, with no new 1.5 MB ``bytes`` a board (making
    one and filling it cost more than the paste). ``users``: who uses it now (lent as a
    canvas, being encoded or compared with, held by a kept scene); ``kept``: it holds the
    last image of its size. A buffer is reused only when neither."""

    __slots__ = ("core", "data", "image", "kept", "users")

    def canvas(self) -> Image.Image:
        """A ``P`` image of the image size over the buffer's pixels (each row after its
        filter byte): what is drawn on it is laid out for PNG already."""
        width, height = self.image.width - 1, self.image.height
        pixels = memoryview(self.data)[1:]
        # Pillow maps any buffer (its stubs name bytes only); rows width + 1 bytes apart.
        img = Image.frombuffer("P", (width, height), cast(bytes, pixels), "raw", "P", width + 1, 1)
        img.readonly = 0  # ours to draw on, as the buffer is (see __init__)
        return img

    def __init__(self, width: int, height: int) -> None:
        # One byte more than the rows: a canvas over them from the second byte on is still
        # a whole number of rows long, as Pillow checks.
        self.data = bytearray((width + 1) * height + 1)
        self.image = Image.frombuffer("P", (width + 1, height), self.data, "raw", "P", 0, 1)
        # frombuffer marks its image read-only (copy on the first write) for buffers it
        # may not write; this buffer is ours and meant to be written through the image.
        self.image.readonly = 0
        self.core = self.image.im
        self.users = 0
        self.kept = False

    def fill(self, indexed: Image.Image) -> bool:
        """Lay ``indexed`` out in the buffer; False if Pillow wrote elsewhere (a copy)."""
        self.image.paste(indexed, (1, 0))
        return self.image.im is self.core


_cache: dict[tuple[str, int, int, int, bytes], tuple[bytes, int]] = {}
_previous: dict[
    tuple[int, int, int, tuple[int, ...], tuple[int, int] | None, str],
    tuple[_Rows, list[tuple[bytes, int]]],
] = {}
#: Row buffers free to reuse, per image size (two per size: one a call fills while the
#: last image's is compared with).
_free: dict[tuple[int, int], list[_Rows]] = {}
FREE_PER_SIZE = 2
#: Buffers lent out as canvases (by the canvas's id): the canvas's core image and the buffer.
_lent: dict[int, tuple[object, _Rows]] = {}
_lock = threading.Lock()


def canvas(width: int, height: int) -> Image.Image:
    """A palette image to draw an image on and then give to :func:`png_bytes`, which takes
    its rows where they lie instead of laying them out again: its pixels are one of the
    writer's row buffers. Saves a 1.5 MB copy a board, and in a new process 1.5 MB of
    memory touched for the first time (~1 ms here). Whoever draws on it gives it its
    palette. The writer owns it once it is given to :func:`png_bytes` (its pixels may
    change after); one never given is only memory.
    """
    with _lock:
        spare = _free.get((width, height))
        rows = spare.pop() if spare else None
    if rows is None:
        rows = _Rows(width, height)
    img = rows.canvas()
    key = id(img)
    with _lock:
        _lent[key] = (img.im, rows)
        # Lent, the buffer is in use (a kept scene may hold it too and be let go by another
        # thread's board while its owner still draws on it): until png_bytes is done with
        # it, or the canvas is dropped without being given.
        rows.users += 1
    weakref.finalize(img, _forget_lent, key)
    return img


def hold(img: Image.Image) -> object | None:
    """Keep the row buffer under ``img``, a canvas not yet given to :func:`png_bytes`,
    from being lent again after it is encoded, until :func:`let_go`: its pixels stay as
    they are (render/scene.py keeps a board drawn on a canvas as the board to draw the
    next from). None if ``img`` is not such a canvas."""
    with _lock:
        lent = _lent.get(id(img))
        if lent is None or lent[0] is not img.im:
            return None
        rows = lent[1]
        rows.users += 1
        return rows


def let_go(held: object) -> None:
    """Undo a :func:`hold`: the buffer is lent again once nothing else keeps it."""
    rows = cast(_Rows, held)
    with _lock:
        rows.users -= 1
        _release(rows)


def _forget_lent(key: int) -> None:
    with _lock:
        lent = _lent.pop(key, None)
        if lent is not None:  # never given to png_bytes
            lent[1].users -= 1
            _release(lent[1])


def _release(rows: _Rows) -> None:
    """Give a buffer back when no call and no last image holds it (with the lock held)."""
    if rows.users == 0 and not rows.kept:
        spare = _free.setdefault((rows.image.width - 1, rows.image.height), [])
        if len(spare) < FREE_PER_SIZE:
            spare.append(rows)


def _forget_kept(rows: _Rows) -> None:
    """A buffer no longer holds the last image of its size: give it back if it is free."""
    rows.kept = False
    _release(rows)


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 checksum of two byte strings one after the other, from the checksum of
    each and the length of the second (the zlib stream ends with the whole image's)."""
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    # Each running sum of the second string starts from a1 instead of 1.
    a = (a1 + a2 - 1) % _ADLER_MOD
    b = (b1 + b2 + second_length * (a1 - 1)) % _ADLER_MOD
    return (b << 16) | a


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _deflate(band: bytes | memoryview, above: bytes, level: int) -> tuple[bytes, int]:
    """A band's deflated bytes, ending on a byte boundary and not the last block, so that
    bands can follow each other; and the band's Adler-32. ``above`` (the rows just above the
    band, if any) is given to the compressor as what came before: the band may refer back
    to it, as the rows above are in any reader's window by then."""
    lib, at = deflater(level)
    if len(above):
        c = lib.compressobj(at, lib.DEFLATED, -15, zdict=above)
    else:
        c = lib.compressobj(at, lib.DEFLATED, -15)
    return c.compress(band) + c.flush(lib.Z_SYNC_FLUSH), lib.adler32(band)


#: Which deflate the writer uses: "zlib-ng" where it is installed, else "zlib" (tests set
#: it to check that both give the same pixels).
DEFLATE = "zlib-ng" if _zlib_ng is not None else "zlib"


def deflater(level: int) -> tuple[ModuleType, int]:
    """The deflate module and its level for a zlib ``level``. zlib-ng's level ``n - 1``
    deflates a board to about the size of zlib's ``n`` in half the time or less (a 4-player
    late Genial board in bands: zlib 6 11.8 ms 54.2 KB, zlib-ng 5 4.9 ms 55.2 KB, zlib-ng
    6 7.4 ms 51.9 KB; CPU time on this machine, 2 cores shared)."""
    if DEFLATE == "zlib-ng" and _zlib_ng is not None:
        return _zlib_ng, max(1, level - 1)
    return zlib, level


def clear_cache() -> None:
    """Forget every deflated band (for benchmarks: the first image after a restart)."""
    with _lock:
        _cache.clear()
        for rows, _ in _previous.values():
            rows.kept = False
        _previous.clear()
        _free.clear()


def filtered(indexed: Image.Image) -> bytes:
    """The image's rows as PNG writes them: each after its filter type, 0 (none: the right
    one for palette images). Made by pasting the image one column in on a row of index 0,
    in Pillow's C code: no Python step per row, no joining."""
    width, height = indexed.size
    wider = Image.new("P", (width + 1, height), 0)
    wider.paste(indexed, (1, 0))
    return wider.tobytes()


def _band(
    raw: memoryview, stride: int, above: int, top: int, bottom: int, level: int
) -> tuple[bytes, int]:
    """The deflated band of rows ``top`` to ``bottom - 1`` of the filtered rows ``raw``
    (rows from ``above`` as its dictionary), from the cache or deflated now."""
    # The band's bytes depend on its pixels and the rows above it, on where the one ends
    # and the other begins and on the width (where the filter types go): the key is all.
    # XXH3-128, not SHA-256: the key only has to tell our own images' bands apart (no one
    # chooses them to collide), and it is 30x faster (1.1 ms of a Genial Spezial board's
    # 11 ms after a restart went to SHA-256).
    digest = xxhash.xxh3_128_digest(raw[above * stride : bottom * stride])
    key = (DEFLATE, level, stride, top - above, digest)
    known = _cache.get(key)
    if known is None:
        band = raw[top * stride : bottom * stride]
        known = _deflate(band, bytes(raw[above * stride : top * stride]), level)
        with _lock:
            if len(_cache) >= CACHE_BANDS:  # forget the oldest
                _cache.pop(next(iter(_cache)), None)
            _cache[key] = known
    return known


def band_tops(height: int, band_rows: int, cuts: Sequence[int] = ()) -> tuple[int, ...]:
    """The first row of each band: the rows between two cuts (and the image's top and
    bottom) split evenly into bands of at most ``band_rows`` rows."""
    return _band_tops(height, band_rows, tuple(cuts))


@lru_cache(maxsize=64)
def _band_tops(height: int, band_rows: int, cuts: tuple[int, ...]) -> tuple[int, ...]:
    edges = sorted({0, height, *(c for c in cuts if 0 < c < height)})
    tops: list[int] = []
    for first, last in itertools.pairwise(edges):
        n = -(-(last - first) // band_rows)
        tops += [first + (last - first) * k // n for k in range(n)]
    return tuple(tops)


def png_bytes(
    indexed: Image.Image,
    level: int = COMPRESS_LEVEL,
    band_rows: int = BAND_ROWS,
    cuts: Sequence[int] = (),
    level_below: tuple[int, int] | None = None,
) -> bytes:
    """A mode ``P`` image as PNG bytes, deflated at ``level`` in bands of ``band_rows`` rows
    at most, with a band starting at each row of ``cuts`` (where a part of the image that
    changes as a whole begins, such as a score row: it then dirties no band above it).
    ``level_below`` = (row, level): the bands from that row down at that level instead.

    Raises:
        ValueError: if the image is not a palette image.
    """
    if indexed.mode != "P":
        raise ValueError(f"expected a palette (P) image, got mode {indexed.mode}")
    width, height = indexed.size
    palette = bytes(indexed.getpalette() or [0, 0, 0])
    tops = band_tops(height, band_rows, cuts)
    shape = (width, height, level, tops, level_below, DEFLATE)
    with _lock:
        lent = _lent.pop(id(indexed), None)
        # A canvas (still over its buffer: not copied on a write) is laid out already; it
        # stays in use (counted when it was lent) until its bands are made.
        rows = lent[1] if lent is not None and lent[0] is indexed.im else None
        laid_out = rows is not None
        if lent is not None and rows is None:  # copied on a write: the buffer is let go
            lent[1].users -= 1
            _release(lent[1])
        if rows is None:
            spare = _free.get((width, height))
            rows = spare.pop() if spare else None
            if rows is not None:
                rows.users += 1
        # The last image of this size: at a table, the board of the turn before. A band
        # equal to its band there (compared byte for byte, ~10x faster than hashing) is
        # taken from it.
        before = _previous.get(shape)
        if before is not None:
            before[0].users += 1
    if rows is None:
        rows = _Rows(width, height)
        rows.users += 1  # no one else has it yet
    raw: bytes | bytearray = rows.data
    if not laid_out and not rows.fill(indexed):  # pragma: no cover - copies on write
        raw = filtered(indexed)
    view = memoryview(raw)
    stride = width + 1
    bands: list[tuple[bytes, int]] = []
    adler = 1
    try:
        for k, (top, bottom) in enumerate(itertools.pairwise((*tops, height))):
            above = max(0, top - ROWS_ABOVE)
            first, end = above * stride, bottom * stride
            # startswith from an offset: memcmp, with no copy of either band.
            if before is not None and before[0].data.startswith(view[first:end], first):
                known = before[1][k]
            else:
                at = level if level_below is None or top < level_below[0] else level_below[1]
                known = _band(view, stride, above, top, bottom, at)
            bands.append(known)
            adler = adler32_combine(adler, known[1], (bottom - top) * stride)
    finally:
        view.release()
        with _lock:
            rows.users -= 1
            if before is not None:
                before[0].users -= 1
                _release(before[0])
            if raw is rows.data:
                old = _previous.pop(shape, None)
                if old is not None:
                    _forget_kept(old[0])
                if len(_previous) >= PREVIOUS_IMAGES:
                    _forget_kept(_previous.pop(next(iter(_previous)))[0])
                if len(bands) == len(tops):
                    rows.kept = True
                    _previous[shape] = (rows, bands)
                else:
                    _release(rows)
    parts = [deflated for deflated, _ in bands]
    stream = b"".join((_ZLIB_HEADER, *parts, _FINAL_BLOCK, struct.pack(">I", adler)))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit palette indexes
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", stream),
            _chunk(b"IEND", b""),
        )
    )


def to_png(img: Image.Image, game: str) -> bytes:
    """An image as PNG bytes: a ``P`` image as it is, an RGB one mapped onto ``game``'s
    palette first."""
    return png_bytes(img if img.mode == "P" else quantize(img, game))
