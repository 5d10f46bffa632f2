"""PNG encoding of the palette images the renderer draws.

Pillow's PNG writer at compression level 5: on a late-game 4-player board it is as fast as
level 1 plus a bigger file would be worth, and the file stays under 80 KB (level 6, the
default, costs about 5 ms more for 6 % less; see benchmarks/bench_render.py). No
``optimize=True``: it recompresses several times per image. Same image, same bytes.
"""

from __future__ import annotations

import io

from PIL import Image

from render.theme import quantize

COMPRESS_LEVEL = 5


def png_bytes(indexed: Image.Image, level: int = COMPRESS_LEVEL) -> bytes:
    """A mode ``P`` image as PNG bytes.

    Raises:
        ValueError: if the image is not a palette image.
    """
    if indexed.mode != "P":
        raise ValueError(f"expected a palette (P) image, got mode {indexed.mode}")
    buf = io.BytesIO()
    indexed.save(buf, format="PNG", compress_level=level)
    return buf.getvalue()


def to_png(img: Image.Image, game: str) -> bytes:
    """An image as PNG bytes: a ``P`` image as it is, an RGB one mapped onto ``game``'s
    palette first."""
    return png_bytes(img if img.mode == "P" else quantize(img, game))
