"""Pieces of the board images drawn ahead of time into a file (issue 50).

The first board of a new process drew every piece it pastes: the empty board with its cell
labels (13 ms of CPU for a Genial board, 17 for Genial Spezial), the tiles' cells and
joints, the towers with their tokens, the panel's symbols, and it worked out the palette:
more than half of that board's 43-51 ms. Those pieces depend on nothing but the drawing
code, Pillow and FreeType, so they can be drawn once into a file (~15 MB, the pieces' pixels
as they are: mapped, not inflated) from which a new process takes a piece it asks for (an
empty board in ~0.1 ms) instead of drawing it. What goes in is listed in
render/pieces.py; a function that draws a piece is marked :func:`piece` (a cache like
``functools.cache`` that looks in the file before it draws).

The file is built, never committed (its bytes follow the Pillow and FreeType of the machine
that draws it). It is built at image build (the Dockerfile runs ``python -m render pieces``
after installing, into the package folder), or by the bot on its first start on a machine
(bot/core/images.py: in a background thread, into the per-user cache), or by hand:

    .venv/bin/python -m render pieces     # or tools/build_pieces.py

It is looked for (:func:`places`) at ``$GENIAL_RENDER_PIECES`` if that is set (a path),
else at render/assets/pieces.bin beside this module, else in the per-user cache,
``$XDG_CACHE_HOME`` (or ~/.cache) /genial-bot/pieces-DIGEST.bin, DIGEST naming the versions
it is for. A file is used only if it was built from the same drawing code with the same
Pillow and FreeType (its header holds their versions and a digest of :data:`SOURCES`); a
file missing, stale or unreadable is no error: each piece is drawn as before, the same
pixels, only slower. This module itself writes nothing.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import mmap
import os
import struct
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

import PIL
import xxhash
from PIL import Image, ImageFont

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")

HERE = Path(__file__).resolve().parent
#: The file beside the package (where the Dockerfile builds it).
PACKAGED = HERE / "assets" / "pieces.bin"
#: The environment variable naming the file to use instead (a path).
ENV = "GENIAL_RENDER_PIECES"
MAGIC = b"genial-bot render pieces 3\n"
#: The modules whose code draws the pieces (or says where they go): a change to any of
#: them makes the file one of other code, not used until built again.
SOURCES = (
    "canvas.py",
    "cells.py",
    "fonts.py",
    "genial_board.py",
    "geometry.py",
    "panel.py",
    "prebuilt.py",
    "spezial_board.py",
    "sprites.py",
    "symbols.py",
    "theme.py",
)
#: Pieces drawn in this process because the file did not have them, by function: what a
#: test looks at to see that a first board draws none of them.
drawn: Counter[str] = Counter()
#: False: every piece is drawn (tests compare the pixels both ways).
enabled = True


def piece(fn: Callable[P, T]) -> Callable[P, T]:
    """``functools.cache``, taking a call's result from the file of pieces when it is there:
    for a function that draws a piece of a board from its arguments alone."""
    name = f"{fn.__module__}.{fn.__qualname__}"
    made = _Piece(name, fn)

    @functools.wraps(fn)
    def load_or_draw(*args: P.args, **kwargs: P.kwargs) -> T:
        if enabled:
            key = made.key(args, kwargs)
            found = None if key is None else _load(key)
            if found is not None:
                return cast(T, found)
        drawn[name] += 1
        return fn(*args, **kwargs)

    cached = functools.cache(load_or_draw)
    _pieces[cached] = made
    return cast(Callable[P, T], cached)


class _Piece:
    """A function that draws a piece, and what its calls are known by in the file."""

    def __init__(self, name: str, draw: Callable[..., Any]) -> None:
        self.name = name
        self.draw = draw
        # Worked out on the first call, not at import (a process that draws no board need
        # not pay for it).
        self._parameters: tuple[tuple[str, object], ...] | None = None
        # Each argument's text by its value: a board asks for dozens of pieces of one
        # lattice and a few faces (repr of a dataclass costs more than a look-up).
        self._texts: dict[object, str] = {}

    def key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
        """The call's key: the function and every argument in order, defaults filled in (so
        ``f(x, ss=1)`` and ``f(x, 1)`` are one piece), hashed; None for a call the function
        would refuse."""
        parameters = self._parameters
        if parameters is None:
            parameters = self._parameters = _parameters(self.draw)
        rest = parameters[len(args) :]
        if len(rest) + len(args) != len(parameters) or not kwargs.keys() <= {n for n, _ in rest}:
            return None
        values = (*args, *(kwargs.get(n, default) for n, default in rest))
        if any(v is _EMPTY for v in values):
            return None
        texts = self._texts
        words = []
        for value in values:
            if isinstance(value, _PLAIN):  # quick, and 1 == True == 1.0, (1,) == (True,)
                words.append(_canonical(value))
                continue
            try:
                text = texts.get(value)
            except TypeError:  # unhashable: a list, or a tuple holding one
                text = None
            if text is None:
                text = _canonical(value)
                with contextlib.suppress(TypeError):
                    texts[value] = text
            words.append(text)
        # The same text as _canonical(values): the arguments as one tuple.
        return xxhash.xxh3_64_hexdigest(f"{self.name}({', '.join(words)})".encode())


_EMPTY = inspect.Parameter.empty
#: Arguments whose text is not looked up by value: equal values of these types may have
#: other texts (``1``, ``True``). Values of the others (lattices, faces, colours) are
#: equal only with the same text.
_PLAIN = (str, int, float, type(None), tuple, list, set, frozenset)


def _parameters(fn: Callable[..., Any]) -> tuple[tuple[str, object], ...]:
    """Each parameter's name and default (:data:`_EMPTY`: none), as ``inspect.signature``
    gives them, read from the code object (inspect took 0.4 ms of a first board)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return tuple((p.name, p.default) for p in inspect.signature(fn).parameters.values())
    count = code.co_argcount
    names = code.co_varnames[: count + code.co_kwonlyargcount]
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    firsts = (_EMPTY,) * (count - len(defaults)) + defaults
    return tuple(
        (name, firsts[k] if k < count else kwdefaults.get(name, _EMPTY))
        for k, name in enumerate(names)
    )


_pieces: dict[Callable[..., Any], _Piece] = {}


def _canonical(value: object) -> str:
    """A value as text that is the same in every process: a set's items sorted (their
    order follows the hashes of strings, which differ from one process to the next)."""
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:  # most arguments
        return repr(value)
    # Tuples of classes, not unions (frozenset | set): a key is worked out for each piece
    # a first board asks for, and a union is made again on every call.
    if isinstance(value, (frozenset, set)):
        return "{" + ", ".join(sorted(_canonical(v) for v in value)) + "}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join([_canonical(v) for v in value]) + ")"
    return repr(value)


# --- the file ------------------------------------------------------------------------------
# MAGIC, the header's length (8 bytes, big-endian), the header (JSON), then the pieces'
# bytes as they are, sheet after sheet. The header: the versions and digest the pieces
# were drawn with, and per piece (by key) where its bytes are and what they hold.


def versions() -> dict[str, str]:
    """What the pieces' pixels depend on besides their arguments: Pillow, FreeType and the
    drawing code (the digest of :data:`SOURCES`, or "" if a source cannot be read)."""
    digest = xxhash.xxh3_128()
    try:
        for name in SOURCES:
            digest.update(name.encode() + b"\0" + (HERE / name).read_bytes() + b"\0")
        sources = digest.hexdigest()
    except OSError:
        sources = ""
    return {
        "pillow": PIL.__version__,
        "freetype": str(ImageFont.core.freetype2_version),
        "sources": sources,
    }


class _Store:
    """The file's pieces, each made an image when first asked for, over the file's own
    mapped bytes: nothing is inflated or copied. In a new process memory touched for the
    first time is what costs (a page fault for every 4 KB: a 2 MB buffer ~1.2 ms on this
    machine, where reading 2 MB of a mapped file in the page cache takes ~0.1 ms), so the
    pieces are stored as they are, not deflated (issue 50)."""

    def __init__(self, path: Path, data: mmap.mmap, header: dict[str, Any], start: int) -> None:
        self.path = path
        self.data = memoryview(data)
        self.sheets: list[list[int]] = header["sheets"]
        # Each piece's entry is one string of words, split when the piece is asked for: a
        # JSON list per piece took twice as long to read (a first board reads them all).
        self.pieces: dict[str, str] = header["pieces"]
        self.palettes = [bytes.fromhex(p) for p in header["palettes"]]
        self.start = start

    def get(self, key: str) -> object | None:
        entry = self.pieces.get(key)
        if entry is None:
            return None
        sheet, begin, end, palette, *meta = entry.split()
        at = self.start + self.sheets[int(sheet)][0]
        colours = self.palettes[int(palette)] if palette != "-" else b""
        return _decode(meta, self.data[at + int(begin) : at + int(end)], colours)


_store: _Store | None = None
_opened = False
_lock = threading.Lock()


def _open(path: Path, wanted: dict[str, str] | None = None) -> _Store | None:
    """The file at ``path``, if it is there, readable and built for this code and this
    Pillow (``wanted``: :func:`versions`, if known); else None (never an error)."""
    # Mapped, not read: a first board reads the header and a few of the sheets.
    try:
        with path.open("rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        if data[: len(MAGIC)] != MAGIC:
            return None
        (length,) = struct.unpack_from(">Q", data, len(MAGIC))
        start = len(MAGIC) + 8
        header = json.loads(data[start : start + length])
        if not isinstance(header, dict) or header.get("versions") != (wanted or versions()):
            return None
        body = start + length
        if len(data) < body + max((at + n for at, n in header["sheets"]), default=0):
            return None  # cut short: its last sheets are missing
        return _Store(path, data, header, body)
    except (ValueError, KeyError, TypeError, struct.error):  # cut short or garbled
        return None


def cache_path(wanted: dict[str, str] | None = None) -> Path | None:
    """The file in the per-user cache for this code and this Pillow (``wanted``:
    :func:`versions`, if known): ``$XDG_CACHE_HOME`` (or ~/.cache)
    /genial-bot/pieces-DIGEST.bin; None without a home."""
    given = os.environ.get("XDG_CACHE_HOME", "")
    try:  # the XDG spec: a relative path is to be ignored
        base = Path(given) if os.path.isabs(given) else Path.home() / ".cache"
    except RuntimeError:  # no home directory to be found
        return None
    text = json.dumps(wanted or versions(), sort_keys=True).encode()
    return base / "genial-bot" / f"pieces-{xxhash.xxh3_64_hexdigest(text)}.bin"


def places(wanted: dict[str, str] | None = None) -> list[Path]:
    """Where the file is looked for, in order: ``$GENIAL_RENDER_PIECES`` alone if it is
    set; else the file beside the package, then the one in the per-user cache."""
    given = os.environ.get(ENV)
    if given:
        return [Path(given)]
    cache = cache_path(wanted)
    return [PACKAGED] if cache is None else [PACKAGED, cache]


def find() -> Path | None:
    """The first of :func:`places` that holds a file this process would use, or None."""
    found = _first()
    return None if found is None else found.path


def _first() -> _Store | None:
    """The file of the first of :func:`places` that holds one this process would use."""
    wanted = versions()  # read once: a digest of the drawing modules' text
    return next(filter(None, (_open(p, wanted) for p in places(wanted))), None)


def ready() -> Path | None:
    """The file this process's boards take their pieces from, opened now if it was not;
    None if none is found (it is looked for again when a first piece is asked for: a file
    built meanwhile is used). A bot calls it as it starts (bot/core/images.py), where it
    looked for the file anyway: its first board then neither digests the drawing code nor
    maps the file and reads its header (~0.7 ms of that board's CPU on this machine)."""
    global _store, _opened
    with _lock:
        if _store is None:
            found = _first()
            if found is None:
                return None
            _store, _opened = found, True
        return _store.path


def _load(key: str) -> object | None:
    global _store, _opened
    if not _opened:
        with _lock:
            if not _opened:
                _store = _first()
                _opened = True
    return None if _store is None else _store.get(key)


# --- pieces as bytes -----------------------------------------------------------------------


# A piece is its meta (words: its kind, then its sizes and offsets), its bytes, and the
# palette of its palette images (the game's, kept once per file, not once per piece).
Encoded = tuple[list[str], bytes, bytes]


def sprite_type(cls: type[S]) -> type[S]:
    """Marks the class of sprites (render/sprites.py), which the file holds as an image,
    its mask (a 1-bit image of its size, kept as 8-bit 0 and 255) and its offset:
    ``cls(image, mask, dx, dy)``.
    Named by the class, not imported here: the drawing modules import this one."""
    global _sprite
    _sprite = cls
    return cls


_sprite: type[Any] | None = None


def _encode(value: object) -> Encoded:
    """A piece as meta, bytes and palette: an image, a sprite (an image, its mask and its
    offset), a palette (RGB triples), a tuple of ints, or an image and two ints (where it
    goes: a text piece)."""
    Sprite = _sprite
    if isinstance(value, Image.Image):
        return ["image", value.mode, *_size(value)], value.tobytes(), _palette(value)
    if Sprite is not None and isinstance(value, Sprite):
        image, mask = value.image, value.mask
        if mask.mode != "1" or mask.size != image.size:
            raise TypeError("a sprite's mask is a 1-bit image of its size")
        raw = image.tobytes()
        meta = ["sprite", str(value.dx), str(value.dy), image.mode, *_size(image), str(len(raw))]
        # Its mask a byte a pixel (0 or 255), not a bit: loaded as an 8-bit image over the
        # file's bytes, where a 1-bit one is unpacked into memory of its own (~10 us more a
        # sprite, and a first Genial Spezial board loads some 50). Pasted through, either
        # gives the same pixels: all of the sprite or none.
        return meta, raw + mask.convert("L").tobytes(), _palette(image)
    if isinstance(value, tuple) and all(isinstance(c, tuple) and len(c) == 3 for c in value):
        return ["colours"], bytes(v for rgb in value for v in rgb), b""
    if isinstance(value, tuple) and all(type(v) is int for v in value):
        return ["ints"], struct.pack(f"<{len(value)}i", *value), b""
    if (
        isinstance(value, tuple)
        and len(value) == 3
        and isinstance(value[0], Image.Image)
        and all(type(v) is int for v in value[1:])
    ):  # an image and where it goes (a text piece)
        image, dx, dy = value
        return (
            ["placed", str(dx), str(dy), image.mode, *_size(image)],
            image.tobytes(),
            _palette(image),
        )
    raise TypeError(f"no way to store a {type(value).__name__}")


def _size(img: Image.Image) -> list[str]:
    return [str(img.width), str(img.height)]


def _palette(img: Image.Image) -> bytes:
    return bytes(img.getpalette() or []) if img.mode == "P" else b""


def _decode(meta: list[str], raw: memoryview, palette: bytes) -> object:
    kind = meta[0]
    if kind == "image":
        return _image(meta[1], int(meta[2]), int(meta[3]), raw, palette)
    if kind == "sprite":
        dx, dy, mode, width, height, split = meta[1:]
        size = int(width), int(height)
        image = _image(mode, *size, raw[: int(split)], palette)
        mask = Image.frombuffer("L", size, cast(bytes, raw[int(split) :]), "raw", "L", 0, 1)
        assert _sprite is not None  # marked when render/sprites.py was imported
        return _sprite(image, mask, int(dx), int(dy))
    if kind == "colours":
        return tuple(tuple(raw[k : k + 3]) for k in range(0, len(raw), 3))
    if kind == "ints":
        return struct.unpack(f"<{len(raw) // 4}i", raw)
    if kind == "placed":
        dx, dy, mode, width, height = meta[1:]
        return _image(mode, int(width), int(height), raw, palette), int(dx), int(dy)
    raise ValueError(f"unknown piece kind {kind!r}")


def _image(mode: str, width: int, height: int, raw: memoryview, palette: bytes) -> Image.Image:
    """A palette image over the bytes (read-only: a piece is only ever pasted from), or an
    image of another mode with a copy of them."""
    if mode == "P":
        # Pillow maps any buffer (its stubs name bytes only). Mapped as an L image, which
        # its palette makes a P one: a P image is mapped with a grey palette of its own
        # first (a third more time, and the palette replaced at once).
        img = Image.frombuffer("L", (width, height), cast(bytes, raw), "raw", "L", 0, 1)
        img.putpalette(palette)
        return img
    return Image.frombytes(mode, (width, height), raw)


#: A piece as (sheet, function, positional arguments, keyword arguments): the pieces of a
#: sheet lie together in the file (a board asks for many of one sheet). render/pieces.py lists
#: what the file holds.
Call = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]

#: Pieces by key: (sheet, meta, bytes, palette).
Built = dict[str, tuple[str, list[str], bytes, bytes]]


def build(wanted: Iterable[Call]) -> Built:
    """Every piece of ``wanted``, drawn now (never loaded)."""
    out: Built = {}
    for sheet, fn, args, kwargs in wanted:
        made = _pieces[fn]
        key = made.key(args, kwargs)
        if key is None:
            raise TypeError(f"{made.name} takes no such arguments: {args}, {kwargs}")
        if key not in out:
            out[key] = (sheet, *_encode(made.draw(*args, **kwargs)))
    return out


def file_bytes(pieces: Built) -> bytes:
    """The file holding ``pieces``, for this code and this Pillow."""
    names = sorted({sheet for sheet, _, _, _ in pieces.values()})
    palettes = sorted({palette for _, _, _, palette in pieces.values() if palette})
    raws: list[list[bytes]] = [[] for _ in names]
    index: dict[str, str] = {}
    for key in sorted(pieces):
        sheet, meta, raw, palette = pieces[key]
        k = names.index(sheet)
        begin = sum(map(len, raws[k]))
        raws[k].append(raw)
        colours = str(palettes.index(palette)) if palette else "-"
        index[key] = " ".join((str(k), str(begin), str(begin + len(raw)), colours, *meta))
    sheets, body, at = [], [], 0
    for parts in raws:
        raw = b"".join(parts)
        sheets.append([at, len(raw)])
        body.append(raw)
        at += len(raw)
    header = {
        "versions": versions(),
        "names": names,
        "sheets": sheets,
        "palettes": [p.hex() for p in palettes],
        "pieces": index,
    }
    text = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    return b"".join((MAGIC, struct.pack(">Q", len(text)), text, *body))


def read(path: Path) -> Built:
    """The pieces in a file, as :func:`build` gives them (whatever it was built for)."""
    data = path.read_bytes()
    (length,) = struct.unpack_from(">Q", data, len(MAGIC))
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + length])
    body = start + length
    sheets = [data[body + at : body + at + n] for at, n in header["sheets"]]
    palettes = [bytes.fromhex(p) for p in header["palettes"]]
    out: Built = {}
    for key, entry in header["pieces"].items():
        k, begin, end, palette, *meta = entry.split()
        colours = palettes[int(palette)] if palette != "-" else b""
        out[key] = (header["names"][int(k)], meta, sheets[int(k)][int(begin) : int(end)], colours)
    return out
