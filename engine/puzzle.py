"""The puzzle (issue 29; its answer agreed by the judge since issue 47): a position of a
record where one placement scores at least :data:`PUZZLE_GAP` more points in the mover's
lowest colours than any other that does not score as much, and the first placement of the
one judge (:func:`engine.ai.judge.judge`, what ``/hint`` and the review go by) is one that
scores as much: a question with one best score that the review and ``/hint`` agree with.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from operator import add, itemgetter

from engine.ai.judge import judge
from engine.errors import at_move
from engine.genial import GenialGame
from engine.moves import Placement
from engine.notation import format_genial_move
from engine.record import Record, new_game
from engine.tiles import Colour

#: The least margin, in the lowest colour, of a puzzle's answer over the next best placement.
PUZZLE_GAP = 4


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A position of a record (before move ``number``) with one clearly best placement."""

    number: int
    seat: int
    #: The colours the answer is scored in (the mover's lowest colours then).
    lowest: tuple[str, ...]
    answer: str  # record notation of the best placement
    points: int  # what it scores in the lowest colours
    gap: int  # its margin over the next best placement


def lowest_points(game: GenialGame, placement: Placement) -> int:
    """What ``placement`` would add (after the track's marks and cap) to the mover's lowest
    colours, on a copy of the game."""
    side = game.side_of(game.to_move)
    track = game.scores[side]
    low = min(track)
    lowest = [i for i, v in enumerate(track) if v == low]
    spot = game._layout.where.get(placement)
    if spot is None:  # written another way round: played on a copy, through the checks
        trial = game.copy()
        trial.play(placement)
        after = trial.scores[side]
    else:  # the same scores, worked out without playing
        after = game.scores_after(spot)
    return sum(after[i] - track[i] for i in lowest)


def _points_by_placement(game: GenialGame) -> dict[Placement, int]:
    """Every legal placement of the position once (in canonical form), with what it scores
    in the mover's lowest colours, each colour's points taken as far as the track lets them.

    A puzzle search asks this of every legal placement of every position of a game, so it
    goes group by group (:meth:`~engine.genial.GenialGame.placement_groups`): a tile with
    none of the lowest colours scores nothing there (RULES.md 2.5: a tile scores in its own
    colours only), and a tile of two colours adds the gains of its two cells, each looked up
    in a table of the colour's gain per cell made once per position."""
    side = game.side_of(game.to_move)
    track = game.scores[side]
    low = min(track)
    lowest = {c.index for c in Colour if track[c.index] == low}
    points = game.colour_points()
    known: dict[tuple[int, int], int] = {}

    def gain(colour: int, made: int) -> int:
        value = known.get((colour, made))
        if value is None:
            value = known[colour, made] = game.gain(colour, made)
        return value

    per_cell: dict[int, list[int]] = {}

    def gains(colour: int) -> list[int]:
        """What a symbol of ``colour`` adds to the lowest colours, by cell."""
        table = per_cell.get(colour)
        if table is None:
            if colour in lowest:
                table = [gain(colour, made) for made in points[colour]]
            else:
                table = [0] * len(points[colour])
            per_cell[colour] = table
        return table

    seen: dict[Placement, int] = {}
    for x, y, cells1, cells2, spots in game.placement_groups():
        placements = map(itemgetter(0), spots)
        if x not in lowest and y not in lowest:
            seen.update(zip(placements, itertools.repeat(0)))
        elif x == y:  # a double: both halves' points go to one colour, capped together
            px = points[x]
            seen.update(
                zip(
                    placements,
                    [gain(x, px[i] + px[j]) for i, j in zip(cells1, cells2, strict=True)],
                    strict=True,
                )
            )
        else:
            seen.update(
                zip(
                    placements,
                    map(add, map(gains(x).__getitem__, cells1), map(gains(y).__getitem__, cells2)),
                    strict=True,
                )
            )
    return seen


def placement_points(game: GenialGame) -> dict[str, int]:
    """Every legal placement of the position (once each: a double tile turned round is the
    same placement), in record notation, with what it scores in the mover's lowest colours."""
    return {
        format_genial_move(p, game.area): points for p, points in _points_by_placement(game).items()
    }


def puzzle_at(game: GenialGame, number: int = 0, gap: int = PUZZLE_GAP) -> Puzzle | None:
    """The puzzle of the position ``game`` is in (Genial, a placement due), or None when the
    best placements do not score ``gap`` or more in the mover's lowest colours above every
    other legal placement (those sharing a cell with them included).

    Placements scoring as much as the answer (the same tile on the same cell with another
    free neighbour, say) are right answers too, as :func:`solves` says; every placement that
    scores less is the competition. Only the mover's rack and the board decide it: the legal
    placements are the mover's."""
    if game.over or game.awaiting != "place":
        return None
    # Scored by placement and written out only for the best ones: a game's puzzle search
    # scores every legal placement of every position.
    seen = _points_by_placement(game)
    if not seen:
        return None
    first = max(seen.values())
    others = [points for points in seen.values() if points < first]
    if not others:  # every placement scores the same: not a question worth asking
        return None
    second = max(others)
    if first - second < gap:
        return None
    # The one judge agrees: its first placement is a right answer.
    if lowest_points(game, judge(game.view(game.to_move))[0].placement) != first:
        return None
    # Of the placements scoring as much, the first in record notation is the answer.
    answer = min(format_genial_move(p, game.area) for p, points in seen.items() if points == first)
    side = game.side_of(game.to_move)
    return Puzzle(
        number=number,
        seat=game.to_move,
        lowest=tuple(c.value for c in game.lowest_colours(side)),
        answer=answer,
        points=first,
        gap=first - second,
    )


def find_puzzles(record: Record, gap: int = PUZZLE_GAP) -> list[Puzzle]:
    """Every puzzle position of a Genial record (none for Genial Spezial, where nothing is
    hidden to make a rack a question), in the order of the moves.

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a record that does not replay.
    """
    if record.game != "genial":
        return []
    game = new_game(record)
    assert isinstance(game, GenialGame)
    found: list[Puzzle] = []
    for n, text in enumerate(record.moves):
        with at_move(n):
            puzzle = puzzle_at(game, n, gap)
            if puzzle is not None:
                found.append(puzzle)
            game.play_text(text)
    return found


def puzzle_position(record: Record, puzzle: Puzzle) -> GenialGame:
    """The game at the puzzle's position (its moves before ``puzzle.number`` replayed)."""
    game = new_game(record)
    for text in record.moves[: puzzle.number]:
        game.play_text(text)
    assert isinstance(game, GenialGame)
    return game


def solves(game: GenialGame, puzzle: Puzzle, answer: Placement) -> bool:
    """Whether ``answer`` (a legal placement in the puzzle's position) scores as much in the
    lowest colours as the puzzle's answer (a twin of it that scores the same is right too)."""
    return lowest_points(game, answer) == puzzle.points


__all__ = [
    "PUZZLE_GAP",
    "Puzzle",
    "find_puzzles",
    "lowest_points",
    "placement_points",
    "puzzle_at",
    "puzzle_position",
    "solves",
]
