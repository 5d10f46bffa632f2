"""What Discord's autocomplete offers while someone types a slash command.

Plain functions from what the typing person may know (their seat's look at the game, the
table) to ``(name, value)`` pairs; :mod:`bot.discord.commands` turns them into choices.
Discord shows at most 25, and a choice's name and value hold at most 100 characters.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.core.durations import format_duration
from bot.core.looks import SeatLook
from bot.core.messages import timeout_text
from bot.core.table import Table
from bot.words.texts import LANGUAGES, Texts

MAX_CHOICES = 25
MAX_CHOICE_TEXT = 100
#: The value of the one "tile" choice in Genial Spezial, where only the cells count.
SPEZIAL_TILE = "-"
#: Times per turn offered for ``/option timeout`` (any other typed value is offered too).
TIMEOUTS = (0, 1800, 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400)
#: Time banks and grace periods offered for /option clock and /option grace.
CLOCKS = ("3d+1d", "1d+12h", "7d+1d", "10m+5s", "30m+20s", "off")
GRACES = ("default", "12h", "1d", "off")

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


def tiles(look: SeatLook | None, texts: Texts, current: str) -> list[Choice]:
    """The tiles of the typing player's own rack, one choice per kind of tile (value: the
    tile's letters); in Genial Spezial one choice that stands for the player's tile."""
    if look is None:
        return []
    if look.spezial:
        return [(texts("discord.spezial_tile"), SPEZIAL_TILE)]
    seen: set[str] = set()
    pairs: list[Choice] = []
    for tile in look.rack:
        if tile.name in seen:
            continue
        seen.add(tile.name)
        name = texts(
            "discord.tile_choice",
            slot=tile.slot,
            tile=tile.name,
            first=texts.colour(tile.first),
            second=texts.colour(tile.second),
        )
        pairs.append((name, tile.name))
    return _fits(pairs, current)


def first_cells(look: SeatLook | None, current: str) -> list[Choice]:
    """The cells a tile may start on, in reading order."""
    if look is None:
        return []
    return _fits(((label, label) for label in look.cells), current)


def second_cells(look: SeatLook | None, first: str | None, current: str) -> list[Choice]:
    """The cells the second half of a tile may take beside the first cell (all cells a
    tile may start on while the first cell is not one of them yet)."""
    if look is None:
        return []
    partners = look.partners(first or "")
    if partners is None:
        return first_cells(look, current)
    return _fits(((label, label) for label in partners), current)


def seats(table: Table | None, current: str) -> list[Choice]:
    """The seats of a table, for ``/kick`` (value: the seat number)."""
    if table is None:
        return []
    return _fits(((f"{i}. {seat.name}", str(i)) for i, seat in enumerate(table.seats, 1)), current)


def levels(offered: Iterable[str], texts: Texts, current: str) -> list[Choice]:
    """The computer levels, each named in the table's language (``gierig``) and sent as
    the word a player types (``greedy``)."""
    named = (
        (level if texts.level(level) == level else f"{texts.level(level)} ({level})", level)
        for level in offered
    )
    return _fits(named, current)


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
    elif setting == "undo":
        pairs = on_off
    elif setting in ("clock", "grace"):
        presets = CLOCKS if setting == "clock" else GRACES
        pairs = [(value, value) for value in presets]
        typed = current.strip()
        if typed and typed not in presets:
            pairs.insert(0, (typed, typed))
    elif setting == "timeout":
        pairs = [(timeout_text(texts, s), format_duration(s)) for s in TIMEOUTS]
        typed = current.strip()
        if typed and all(value != typed for _, value in pairs):
            pairs.insert(0, (typed, typed))
    else:
        pairs = []
    return _fits(pairs, current)
