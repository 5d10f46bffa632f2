"""Colours, tiles, the generated tile set and the bag with an explicit draw order."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from enum import Enum
from itertools import combinations
from typing import NamedTuple

from engine.errors import NotationError


class Colour(Enum):
    """The six symbols of Genial (RULES.md 2.1); Genial Spezial scores in B, G, O and P."""

    RED = "R"
    GREEN = "G"
    BLUE = "B"
    ORANGE = "O"
    YELLOW = "Y"
    PURPLE = "P"

    # Members are singletons compared by identity, so identity hashing agrees with equality;
    # Enum's own hash is a Python-level call, and colours are hashed in every tile, move
    # and colour index looked up.
    __hash__ = object.__hash__

    @property
    def index(self) -> int:
        return _COLOUR_INDEX[self]

    @property
    def letter(self) -> str:
        return self.value


COLOURS: tuple[Colour, ...] = tuple(Colour)
_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
COLOUR_LETTERS: str = "".join(c.value for c in COLOURS)
#: Each colour by its letter: a look-up, where ``Colour(letter)`` went through Enum's call
#: machinery (a record's or a board's moves parse four letters each).
_BY_LETTER: dict[str, Colour] = {c.value: c for c in COLOURS}

PAIR_COPIES = 6
DOUBLE_COPIES = 5


def parse_colour(letter: str) -> Colour:
    """The colour of a letter, case-insensitively.

    Raises:
        NotationError: ``unknown_colour`` if the letter names no colour.
    """
    colour = _BY_LETTER.get(letter.strip().upper())
    if colour is None:
        raise NotationError("unknown_colour", letter)
    return colour


class Tile(NamedTuple):
    """A Genial tile: two colours, kept in colour order (``RG`` and ``GR`` are one tile)."""

    first: Colour
    second: Colour

    @classmethod
    def of(cls, a: Colour, b: Colour) -> Tile:
        """The tile showing ``a`` and ``b`` in either order."""
        return _TILES[(a, b)]

    @property
    def name(self) -> str:
        # Looked up, not joined: an enum's value is a slow attribute, and records write
        # every tile of every bag by name.
        return _NAMES[self]

    @property
    def is_double(self) -> bool:
        return self.first is self.second

    def colours(self) -> tuple[Colour, Colour]:
        return (self.first, self.second)

    def shows(self, colour: Colour) -> bool:
        return self.first is colour or self.second is colour


_NAMES: dict[Tile, str] = {Tile(a, b): a.value + b.value for a in COLOURS for b in COLOURS}
_TILES: dict[tuple[Colour, Colour], Tile] = {}
for _a, _b in [*combinations(COLOURS, 2), *((c, c) for c in COLOURS)]:
    _TILES[(_a, _b)] = _TILES[(_b, _a)] = Tile(_a, _b)

#: The 21 different tiles, doubles last.
TILE_KINDS: tuple[Tile, ...] = tuple(
    [Tile(a, b) for a, b in combinations(COLOURS, 2)] + [Tile(c, c) for c in COLOURS]
)


def parse_tile(text: str) -> Tile:
    """The tile named by two colour letters, in either order, case-insensitively.

    Raises:
        NotationError: ``cannot_parse`` or ``unknown_colour``.
    """
    t = text.strip()
    if len(t) != 2:
        raise NotationError("cannot_parse", text, "a tile is two colour letters")
    return Tile.of(parse_colour(t[0]), parse_colour(t[1]))


def tile_set() -> list[Tile]:
    """The 120 tiles: six of each two-colour pair and five of each double (RULES.md 2.1)."""
    tiles: list[Tile] = []
    for kind in TILE_KINDS:
        tiles.extend([kind] * (DOUBLE_COPIES if kind.is_double else PAIR_COPIES))
    return tiles


#: How many of each tile the set holds.
TILE_SET_COUNTS: Counter[Tile] = Counter(tile_set())


def is_tile_set(tiles: Iterable[Tile]) -> bool:
    """Whether ``tiles`` is exactly the 120-tile set, in any order."""
    return Counter(tiles) == TILE_SET_COUNTS


class Bag:
    """The bag as an explicit draw order: draws come from the front, returns go to the end.

    RECORD.md fixes this order so that a record replays exactly; a shuffled bag is just a
    draw order made once from a seed.
    """

    __slots__ = ("_front", "_tiles")

    def __init__(self, order: Sequence[Tile]) -> None:
        self._tiles: list[Tile] = list(order)
        self._front = 0

    @classmethod
    def shuffled(cls, seed: int | None) -> Bag:
        tiles = tile_set()
        random.Random(seed).shuffle(tiles)
        return cls(tiles)

    def __len__(self) -> int:
        return len(self._tiles) - self._front

    def draw(self, n: int) -> list[Tile]:
        """Up to ``n`` tiles from the front (fewer if the bag runs out)."""
        taken = self._tiles[self._front : self._front + n]
        self._front += len(taken)
        return taken

    @property
    def drawn(self) -> int:
        """How many tiles were drawn from the front of the draw order so far."""
        return self._front

    def put_back(self, tiles: Iterable[Tile]) -> None:
        """Return tiles to the end of the draw order, in the order given."""
        self._tiles.extend(tiles)

    def order(self) -> list[Tile]:
        """The tiles still in the bag, next drawn first (hidden information)."""
        return self._tiles[self._front :]

    def copy(self) -> Bag:
        new = Bag(self.order())
        return new
