"""The bot's side of the two games: make, rebuild and describe either one.

A game is set up from the table's options and stored as its record (RECORD.md); after a
restart it is rebuilt from the record, move by move, with the engine's full checks.
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from bot.words.texts import squares
from engine.errors import InvalidRecord
from engine.genial import GenialGame
from engine.moves import Placement, SpezialPlacement, SwapChoice
from engine.notation import format_genial_move, format_spezial_placement
from engine.record import MAX_TAKEBACKS, Record, replay
from engine.record import take_back as take_back_record
from engine.tiles import COLOURS, Colour, Tile

SPEZIAL_COLOURS: tuple[Colour, ...] = (Colour.BLUE, Colour.GREEN, Colour.ORANGE, Colour.PURPLE)
#: Seats each game takes.
GENIAL_SEATS = range(1, 5)
SPEZIAL_SEATS = range(2, 5)

# Either engine game; both offer play, play_text, parse, legal_moves, view, record, copy,
# over, to_move, awaiting, ranking, score, sides, version, moves and area.
Game = Any


def new_game(kind: str, players: int, team: bool, seed: int) -> Game:
    """A new game: ``kind`` is ``genial`` or ``spezial``; 1 Genial player is the solo game.

    Raises:
        ValueError: if that game cannot be played by that many players.
    """
    if kind == "spezial":
        from engine.spezial import SpezialGame

        return SpezialGame(players, seed=seed)
    mode = "solo" if players == 1 else "team" if team else "standard"
    return GenialGame(players, mode, seed=seed)


def rebuild(record: dict[str, Any]) -> Game:
    """The game a stored record reaches (its takebacks were checked when they were made:
    a rebuild replays the moves as they stand, not every line taken back).

    Raises:
        EngineError: if the record is invalid (a damaged store).
    """
    return replay(dataclasses.replace(Record.from_dict(record), takebacks=()))


def is_spezial(game: Game) -> bool:
    return not isinstance(game, GenialGame)


def mode(game: Game) -> str:
    """``standard``, ``team``, ``solo`` or ``spezial``."""
    return "spezial" if is_spezial(game) else str(game.mode)


def score_colours(game: Game) -> tuple[Colour, ...]:
    return SPEZIAL_COLOURS if is_spezial(game) else COLOURS


def side_of(game: Game, seat: int) -> int:
    return seat % 2 if mode(game) == "team" else seat


def seats_of_side(game: Game, side: int) -> list[int]:
    return [s for s in range(game.players) if side_of(game, s) == side]


def format_move(game: Game, move: Placement | SwapChoice | SpezialPlacement) -> str:
    """A move in RULES.md notation, as players type it."""
    if isinstance(move, SpezialPlacement):
        return format_spezial_placement(move, game.area)
    return format_genial_move(move, game.area)


def example_placement(game: GenialGame, seat: int) -> str | None:
    """A placement ``seat`` may make now, as typed with a rack slot (``1 F7 F8``): the
    first legal one of the lowest slot that has any, so an example in a prompt is legal on
    this board at this move. ``None`` when it is not ``seat``'s placement to make."""
    if game.over or game.to_move != seat or game.awaiting != "place":
        return None
    legal = game.legal_placements()
    for slot, tile in enumerate(game.racks[seat], 1):
        for p in legal:
            if p.tile != tile:
                continue
            # The slot's tile puts its first colour on the first cell named.
            cells = p.cells if p.first == tile.first else (p.cell2, p.cell1)
            return f"{slot} {game.area.label(cells[0])} {game.area.label(cells[1])}"
    return None


def rack_text(rack: tuple[Tile, ...] | list[Tile]) -> str:
    """``1 🟥🟩  2 🟦🟦``: each tile as the coloured squares the turn messages show (the
    same in every language, where the letters are English initials), after the slot a
    player types for it."""
    return "  ".join(f"{i} {squares(t.name)}" for i, t in enumerate(rack, 1))


def copy(game: Game) -> Game:
    """An independent copy to think on (computer players), sharing nothing mutable."""
    return game.copy()


def placement_cells(game: Game, seat: int) -> dict[str, tuple[str, ...]]:
    """The cells a placement of ``seat`` may start on, in reading order, each with the
    cells that complete a legal placement with it: what autocomplete offers for a
    placement's two cells. The engine's legal placements decide (its first-round rule
    included); off the seat's turn, those it would have if it were to place now."""
    if game.over:
        return {}
    if game.to_move != seat or game.awaiting != "place":
        game = game.copy()
        game.to_move, game.awaiting = seat, "place"
    area = game.area
    pairs: dict[int, set[int]] = {}
    for move in game.legal_placements():
        a, b = area.index[move.cell1], area.index[move.cell2]
        pairs.setdefault(a, set()).add(b)
        pairs.setdefault(b, set()).add(a)
    return {
        area.label(area.cells[i]): tuple(area.label(area.cells[j]) for j in sorted(pairs[i]))
        for i in sorted(pairs)
    }


def take_back(record: dict[str, Any], keep: int) -> dict[str, Any]:
    """``record`` with every move after the first ``keep`` taken back (kept in its
    ``takebacks``); the tiles drawn since go back into the bag and the draw order nobody
    has drawn is shuffled with fresh randomness (never the table's seed: whoever saw
    those tiles must not be able to work the new order out).

    Raises:
        EngineError: if the record allows no takeback there.
    """
    kept = Record.from_dict(record)
    if len(kept.takebacks) >= MAX_TAKEBACKS:
        raise InvalidRecord(f"a record holds at most {MAX_TAKEBACKS} takebacks")
    taken = take_back_record(kept, keep, secrets.SystemRandom())
    # The line as it stands and the one just taken back replay, or nothing changes (the
    # takebacks before were checked when they were made).
    replay(dataclasses.replace(taken, takebacks=taken.takebacks[-1:]))
    return taken.to_dict()
