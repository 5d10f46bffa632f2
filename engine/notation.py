"""Move notation of RULES.md section 4: parsing and formatting, for chat and records alike.

Input is case-insensitive and tolerant of extra spaces, commas and a ``-`` between cells.
Formatting gives the canonical spelling, so ``format(parse(s))`` normalises ``s``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.errors import NotationError
from engine.hexgrid import Area
from engine.moves import KEEP, SWAP, Placement, SpezialPlacement, SwapChoice
from engine.tiles import Tile, parse_colour

_SEPARATORS = re.compile(r"[\s,;-]+")


def tokens(text: str) -> list[str]:
    return [t for t in _SEPARATORS.split(text.strip()) if t]


def parse_swap_choice(text: str) -> SwapChoice:
    """``swap`` or ``keep``.

    Raises:
        NotationError: ``cannot_parse`` for anything else.
    """
    word = text.strip().lower()
    if word == "swap":
        return SWAP
    if word == "keep":
        return KEEP
    raise NotationError("cannot_parse", text, "expected 'swap' or 'keep'")


def parse_placement(text: str, area: Area, rack: Sequence[Tile] | None = None) -> Placement:
    """A Genial placement ``<tile> <cell> <cell>``; the first colour goes on the first cell.

    With ``rack`` given (chat input), the tile may be a rack slot ``1``–``6``.

    Raises:
        NotationError: ``cannot_parse``, ``unknown_colour`` or ``bad_slot``.
        IllegalMove: ``outside_area`` for a label of no cell of this area.
    """
    parts = tokens(text)
    if len(parts) == 4 and len(parts[0]) == 1 and len(parts[1]) == 1 and parts[0].isalpha():
        # "R G F7 F8": the tile written with a space between its colours.
        parts = [parts[0] + parts[1], *parts[2:]]
    if len(parts) != 3:
        raise NotationError("cannot_parse", text, "expected a tile and two cells, like 'RG F7 F8'")
    tile_text, a, b = parts
    # ASCII digits only: "²" passes isdigit() but not int(), and a slot has one digit, so
    # a long run of digits is no slot either (and never reaches int()).
    if tile_text.isascii() and tile_text.isdigit():
        if rack is None:
            raise NotationError("cannot_parse", text, "records name tiles by colour letters")
        slot = int(tile_text) if len(tile_text) <= 2 else 0
        if not 1 <= slot <= len(rack):
            raise NotationError("bad_slot", tile_text, f"slots are 1 to {len(rack)}")
        first, second = rack[slot - 1].colours()
    else:
        if len(tile_text) != 2:
            raise NotationError("cannot_parse", text, "a tile is two colour letters, like 'RG'")
        first, second = parse_colour(tile_text[0]), parse_colour(tile_text[1])
    return Placement(first, second, area.parse_label(a), area.parse_label(b))


def parse_genial_move(
    text: str, area: Area, rack: Sequence[Tile] | None = None
) -> Placement | SwapChoice:
    """A placement, or the swap decision ``swap`` / ``keep``.

    Raises:
        NotationError: if the text is no move (see :func:`parse_placement`).
        IllegalMove: ``outside_area`` for a label of no cell of this area.
    """
    if text.strip().lower() in ("swap", "keep"):
        return parse_swap_choice(text)
    return parse_placement(text, area, rack)


def parse_spezial_placement(text: str, area: Area) -> SpezialPlacement:
    """A Genial Spezial placement ``<cell> <cell> [colour letters]``, like ``J4 J5 P``.

    Raises:
        NotationError: ``cannot_parse`` or ``unknown_colour``.
        IllegalMove: ``outside_area`` for a label of no cell of this area.
    """
    parts = tokens(text)
    if len(parts) < 2:
        raise NotationError("cannot_parse", text, "expected two cells, like 'J4 J5'")
    cell1, cell2 = area.parse_label(parts[0]), area.parse_label(parts[1])
    letters = "".join(parts[2:])
    golden = tuple(parse_colour(ch) for ch in letters)
    return SpezialPlacement(cell1, cell2, golden)


def format_swap_choice(choice: SwapChoice) -> str:
    return "swap" if choice.swap else "keep"


def format_placement(placement: Placement, area: Area) -> str:
    """``RG F7 F8``: colour letters, then the cells' labels."""
    return (
        f"{placement.first.value}{placement.second.value} "
        f"{area.label(placement.cell1)} {area.label(placement.cell2)}"
    )


def format_genial_move(move: Placement | SwapChoice, area: Area) -> str:
    if isinstance(move, SwapChoice):
        return format_swap_choice(move)
    return format_placement(move, area)


def format_spezial_placement(placement: SpezialPlacement, area: Area) -> str:
    text = f"{area.label(placement.cell1)} {area.label(placement.cell2)}"
    if placement.golden:
        text += " " + "".join(c.value for c in placement.golden)
    return text
