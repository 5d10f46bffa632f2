"""PNG encoding of palette images, written here so that the filter and zlib level suit
boards: rows are stored unfiltered (filters rarely help palette images, and choosing one per
row costs time), compressed at a level chosen for speed and size (see
benchmarks/bench_render.py). The same image always gives the same bytes.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

from render.theme import quantize

SIGNATURE = b"\x89PNG\r\n\x1a\n"
COMPRESS_LEVEL = 5
_COLOUR_TYPE_PALETTE = 3


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(indexed: Image.Image, level: int = COMPRESS_LEVEL) -> bytes:
    """A mode ``P`` image as PNG bytes.

    Raises:
        ValueError: if the image is not a palette image.
    """
    if indexed.mode != "P":
        raise ValueError(f"expected a palette (P) image, got mode {indexed.mode}")
    width, height = indexed.size
    raw = indexed.tobytes()
    rows = b"".join(b"\x00" + raw[y * width : (y + 1) * width] for y in range(height))
    palette = bytes(indexed.getpalette() or [0, 0, 0])
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOUR_TYPE_PALETTE, 0, 0, 0)
    return b"".join(
        (
            SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette[:768]),
            _chunk(b"IDAT", zlib.compress(rows, level)),
            _chunk(b"IEND", b""),
        )
    )


def to_png(img: Image.Image, game: str) -> bytes:
    """An image as PNG bytes: a ``P`` image as it is, an RGB one mapped onto ``game``'s
    palette first."""
    return png_bytes(img if img.mode == "P" else quantize(img, game))
