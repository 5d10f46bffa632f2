"""The puzzle (issue 29; its answer agreed by the judge since issue 47): a position of a
record where one placement scores at least :data:`PUZZLE_GAP` more points in the mover's
lowest colours than any other that does not score as much, and the first placement of the
one judge (:func:`engine.ai.judge.judge`, what ``/hint`` and the review go by) is one that
scores as much: a question with one best score that the review and ``/hint`` agree with.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ai.judge import judge
from engine.errors import at_move
from engine.genial import GenialGame
from engine.moves import Placement
from engine.notation import format_genial_move
from engine.record import Record, new_game

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
    else:  # the same scores, worked out without playing (a puzzle search asks this of
        # every legal placement of every position of a game)
        after = game.scores_after(spot)
    return sum(after[i] - track[i] for i in lowest)


def placement_points(game: GenialGame) -> dict[str, int]:
    """Every legal placement of the position (once each: a double tile turned round is the
    same placement), in record notation, with what it scores in the mover's lowest colours."""
    seen: dict[str, int] = {}
    for p in game.legal_placements():
        text = format_genial_move(p.canonical(), game.area)
        if text not in seen:
            seen[text] = lowest_points(game, p)
    return seen


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
    seen = placement_points(game)
    if not seen:
        return None
    answer, first = min(seen.items(), key=lambda kv: (-kv[1], kv[0]))
    others = [points for points in seen.values() if points < first]
    if not others:  # every placement scores the same: not a question worth asking
        return None
    second = max(others)
    if first - second < gap:
        return None
    # The one judge agrees: its first placement is a right answer.
    if lowest_points(game, judge(game.view(game.to_move))[0].placement) != first:
        return None
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
