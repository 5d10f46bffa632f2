"""Building Genial positions for tests: explicit draw orders and hand-placed symbols."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.genial import GenialGame
from engine.hexgrid import Hex
from engine.tiles import Tile, parse_colour, parse_tile, tile_set


def bag_starting_with(names: Sequence[str]) -> list[Tile]:
    """A complete draw order that begins with ``names`` (the rest of the set follows)."""
    front = [parse_tile(n) for n in names]
    rest = Counter(tile_set())
    rest.subtract(front)
    assert all(n >= 0 for n in rest.values()), f"more copies than the set has: {names}"
    tail = [t for t in tile_set() if rest[t] > 0 and not rest.subtract([t])]
    return front + tail


def new_game(
    players: int,
    racks: Sequence[Sequence[str]],
    then: Sequence[str] = (),
    mode: str | None = None,
) -> GenialGame:
    """A game whose seats are dealt ``racks`` and whose next draws are ``then``."""
    names = [t for rack in racks for t in rack] + list(then)
    return GenialGame(players, mode, bag=bag_starting_with(names))


def put(game: GenialGame, cells: dict[tuple[int, int], str]) -> None:
    """Put symbols on the board by axial coordinates: ``{(0, 0): "R"}``."""
    for (q, r), letter in cells.items():
        game.put(Hex(q, r), parse_colour(letter))


def skip_first_round(game: GenialGame) -> None:
    """Mark every seat as having placed, so positions need not start at a start symbol."""
    game.has_placed = [True] * game.players
