"""What happened in a move, as plain immutable values the bot narrates.

Events never carry hidden information: a refill says how many tiles were drawn, not which.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.hexgrid import Hex
from engine.moves import Placement, SpezialPlacement
from engine.tiles import Colour


@dataclass(frozen=True, slots=True)
class Placed:
    """A Genial tile went on the board; ``bonus`` for a bonus placement (RULES.md 2.5)."""

    seat: int
    placement: Placement
    bonus: bool = False


@dataclass(frozen=True, slots=True)
class Scored:
    """The points of one placement for a side (seat, or team in the Genial team game).

    ``points`` are the points the placement made per colour; ``gained`` what the track
    actually moved (points above a cap or past the 18 stop are lost); ``totals`` the
    side's scores afterwards, in colour order.
    """

    seat: int
    side: int
    points: dict[Colour, int]
    gained: dict[Colour, int]
    totals: dict[Colour, int]


@dataclass(frozen=True, slots=True)
class BonusEarned:
    """A colour reached ``mark`` (18, or 36 in the team game) and earned a bonus placement."""

    seat: int
    colour: Colour
    mark: int


@dataclass(frozen=True, slots=True)
class BonusLost:
    """Bonus placements still owed when the rack ran empty (RULES.md 2.5 ruling)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class SwapOffered:
    """The rack holds none of the side's lowest colours; ``swap`` or ``keep`` is due."""

    seat: int
    lowest: tuple[Colour, ...]


@dataclass(frozen=True, slots=True)
class Swapped:
    """The seat returned ``returned`` tiles to the bag and drew a new rack."""

    seat: int
    returned: int


@dataclass(frozen=True, slots=True)
class Kept:
    """The seat declined an offered swap."""

    seat: int


@dataclass(frozen=True, slots=True)
class Refilled:
    """The seat drew ``drawn`` tiles (which ones is private); ``bag_left`` remain."""

    seat: int
    drawn: int
    bag_left: int


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """It is now ``seat``'s turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over.

    ``reason``: ``board_full`` (no two adjacent empty cells), ``immediate_win``,
    ``out_of_tiles`` (the player to move has no tile and the bag is empty) or
    ``all_tiles_placed`` (Genial Spezial after the last round).
    ``ranking``: places, best first, each a list of side numbers.
    """

    reason: str
    ranking: list[list[int]]
    winner: int | None = None


# --- Genial Spezial ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpezialPlaced:
    """A Genial Spezial tile went on the board (the placement as the player wrote it)."""

    seat: int
    placement: SpezialPlacement


@dataclass(frozen=True, slots=True)
class TowerScored:
    """The tower at ``tower`` scored ``points`` in ``colour`` for the seat: its token's value
    before this placement flipped it (RULES.md 3.3)."""

    seat: int
    tower: Hex
    colour: Colour
    points: int


@dataclass(frozen=True, slots=True)
class TokenFlipped:
    """The token on the tower at ``tower`` turned to its dark side, now worth ``value``."""

    tower: Hex
    colour: Colour
    value: int


@dataclass(frozen=True, slots=True)
class TallBonus:
    """The chain touches two or more tall towers: each tall tower in ``towers`` was paid for
    now, so the seat gets ``points`` (one per tower) in every colour."""

    seat: int
    towers: tuple[Hex, ...]
    points: int


@dataclass(frozen=True, slots=True)
class GoldenPoint:
    """A hex covered the golden space ``cell``: one point in ``colour``, ``chosen`` by the
    player or (``chosen=False``) the default lowest colour."""

    seat: int
    cell: Hex
    colour: Colour
    chosen: bool


Event = (
    Placed
    | Scored
    | BonusEarned
    | BonusLost
    | SwapOffered
    | Swapped
    | Kept
    | Refilled
    | TurnStarted
    | GameEnded
    | SpezialPlaced
    | TowerScored
    | TokenFlipped
    | TallBonus
    | GoldenPoint
)
