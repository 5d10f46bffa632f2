"""What an adapter may show one seated player of a running game, as plain values.

Adapters never see the engine's objects: autocomplete and pop-ups read a :class:`SeatLook`,
which the service builds from the seat's own view (its rack, never another's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RackTile:
    """One tile of a rack: its slot (1-based), its letters and its two colours' letters."""

    slot: int
    name: str
    first: str
    second: str


@dataclass(frozen=True)
class SeatLook:
    """A seat's look at its game.

    ``cells`` maps the label of every cell a tile may start on, in reading order, to the
    labels its second cell may take.
    """

    spezial: bool
    my_turn: bool
    rack: tuple[RackTile, ...]
    rack_text: str
    cells: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def partners(self, first: str) -> tuple[str, ...] | None:
        """The second cells for a typed first cell (any case, spaces around), or ``None``
        if it names no cell a tile may start on."""
        return self.cells.get(first.strip().upper())


@dataclass(frozen=True)
class SideLook:
    """One row of a page's score panel: a player (or a team) and its points by colour
    letter, in the game's score colours' order."""

    names: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]
    to_move: bool
    lowest: tuple[str, ...] = ()
    #: The time its player has left on a table with a clock (``2d 3h``), else empty.
    clock: str = ""
    #: Genial Spezial: the colour of its player's stones (``#d42c34``), else empty.
    colour: str = ""


@dataclass(frozen=True)
class PageLook:
    """A table as its web page shows it: what anyone with the table's link may see, and,
    for a seated player's own page, their ``seat`` and ``rack`` (``None`` and ``()`` for a
    watcher: a watcher's look never holds a rack).

    ``board`` is the board as SVG (cell labels and numbers only, never a name); ``words``
    the page's own words in the table's language; ``symbols`` each colour letter's symbol
    as SVG on a 100-unit square, for drawing rack tiles; ``moves`` the move list as the
    chat tells it (who, where, points), oldest first.
    """

    version: int
    status: str
    lang: str
    title: str
    game: str
    mode: str
    board: str
    names: tuple[str, ...]
    sides: tuple[SideLook, ...]
    colours: tuple[tuple[str, str], ...]
    turn: str
    to_move: int | None
    awaiting: str | None
    moves: tuple[str, ...]
    placed: int
    over: bool
    result: tuple[str, ...]
    deadline: float | None
    words: Mapping[str, str]
    symbols: Mapping[str, str]
    seat: int | None = None
    my_turn: bool = False
    rack: tuple[RackTile, ...] = ()
    cells: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    bonus_owed: int = 0
    hints: bool = False
    #: The player to move places again: a bonus placement (public, as the chat tells it).
    bonus: bool = False
    #: Genial Spezial: the golden spaces still free, and the colours their point may go to
    #: (a seat's page asks for one when its placement covers one).
    golden: tuple[str, ...] = ()
    golden_colours: tuple[str, ...] = ()
    #: Genial Spezial: the colour of this seat's stones (a placement drawn before Place).
    seat_colour: str = ""
    #: When the clock of the person to move counts from (seconds since the epoch): the
    #: turn's start, later than now while they are away (their clock paused). The page
    #: shows ``deadline`` less the later of this and now, as its bank too.
    started: float | None = None
    #: What each covered cell holds, in words, by label ("blue star, placed by Ann"), for
    #: the board's accessible names (:mod:`bot.core.cells`); a free cell is not in it.
    cell_names: Mapping[str, str] = field(default_factory=dict)
