"""What Discord's autocomplete offers while someone types a slash command.

Plain functions from what the typing person may know (their seat's view of the game, the
table) to ``(name, value)`` pairs; :mod:`bot.discord.commands` turns them into choices.
Discord shows at most 25, and a choice's name and value hold at most 100 characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.commands import LANGUAGES, format_duration
from bot.messages import timeout_text
from bot.table import Table
from bot.texts import Texts
from engine.hexgrid import Hex

MAX_CHOICES = 25
MAX_CHOICE_TEXT = 100
#: The value of the one "tile" choice in Genial Spezial, where only the cells count.
SPEZIAL_TILE = "-"
#: Times per turn offered for ``/option timeout`` (any other typed value is offered too).
TIMEOUTS = (0, 1800, 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400)

Choice = tuple[str, str]


def _fits(pairs: Iterable[Choice], current: str) -> list[Choice]:
    """The pairs whose value or name starts with what was typed (case aside)."""
    typed = current.strip().casefold()
    out: list[Choice] = []
    for name, value in pairs:
        if value.casefold().startswith(typed) or name.casefold().startswith(typed):
            out.append((name[:MAX_CHOICE_TEXT], value[:MAX_CHOICE_TEXT]))
        if len(out) == MAX_CHOICES:
            break
    return out


def is_spezial(view: Any) -> bool:
    return hasattr(view, "towers")


def tiles(view: Any | None, texts: Texts, current: str) -> list[Choice]:
    """The tiles of the typing player's own rack, one choice per kind of tile (value: the
    tile's letters); in Genial Spezial one choice that stands for the player's tile."""
    if view is None:
        return []
    if is_spezial(view):
        return [(texts("discord.spezial_tile"), SPEZIAL_TILE)]
    seen: set[str] = set()
    pairs: list[Choice] = []
    for slot, tile in enumerate(view.rack or (), 1):
        if tile.name in seen:
            continue
        seen.add(tile.name)
        name = texts(
            "discord.tile_choice",
            slot=slot,
            tile=tile.name,
            first=texts.colour(tile.first.value),
            second=texts.colour(tile.second.value),
        )
        pairs.append((name, tile.name))
    return _fits(pairs, current)


def _free(view: Any) -> set[Hex]:
    taken = set(view.board) | set(getattr(view, "towers", ()))
    return {h for h in view.area.cells if h not in taken}


def _free_neighbours(view: Any, cell: Hex, free: set[Hex]) -> list[Hex]:
    area = view.area
    near = (area.neighbours[area.index[cell]][d] for d in range(6))
    return [area.cells[j] for j in sorted(near) if j >= 0 and area.cells[j] in free]


def first_cells(view: Any | None, current: str) -> list[Choice]:
    """Free cells with a free neighbour (a tile fits there), in reading order."""
    if view is None:
        return []
    free = _free(view)
    area = view.area
    cells = (h for h in area.cells if h in free and _free_neighbours(view, h, free))
    return _fits(((area.label(h), area.label(h)) for h in cells), current)


def second_cells(view: Any | None, first: str | None, current: str) -> list[Choice]:
    """The free neighbours of the first cell (all cells a tile fits on while the first cell
    is not a free cell's label yet)."""
    if view is None:
        return []
    area = view.area
    free = _free(view)
    try:
        cell = area.parse_label(first or "")
    except ValueError:
        cell = None
    if cell is None or cell not in free:
        return first_cells(view, current)
    labels = [area.label(h) for h in _free_neighbours(view, cell, free)]
    return _fits(((label, label) for label in labels), current)


def seats(table: Table | None, current: str) -> list[Choice]:
    """The seats of a table, for ``/kick`` (value: the seat number)."""
    if table is None:
        return []
    return _fits(((f"{i}. {seat.name}", str(i)) for i, seat in enumerate(table.seats, 1)), current)


def levels(offered: Iterable[str], current: str) -> list[Choice]:
    return _fits(((level, level) for level in offered), current)


def option_values(setting: str | None, texts: Texts, current: str) -> list[Choice]:
    """The values an option takes, named in the table's language."""
    on_off = [(texts("value.on"), "on"), (texts("value.off"), "off")]
    pairs: list[Choice]
    if setting in ("team", "hints"):
        pairs = on_off
    elif setting == "order":
        pairs = [(texts(f"value.order_{v}"), v) for v in ("join", "random")]
    elif setting == "lang":
        pairs = [(texts(f"lang.{lang}"), lang) for lang in LANGUAGES]
    elif setting == "timeout":
        pairs = [(timeout_text(texts, s), format_duration(s)) for s in TIMEOUTS]
        typed = current.strip()
        if typed and all(value != typed for _, value in pairs):
            pairs.insert(0, (typed, typed))
    else:
        pairs = []
    return _fits(pairs, current)
