"""The review of a finished game by the ``expert`` computer player, and the daily puzzle.

For every move of a record the review asks the expert what it would have played in that
position *as the mover saw it*: the expert gets the mover's view (the board, the scores,
the mover's own rack, never the draw order or another rack), and both the played and the
expert's move are scored on a game rebuilt from that view alone
(:meth:`~engine.genial.GenialGame.from_view`), so nothing the mover could not know goes into
a review. Placement by placement the review keeps what both moves would have left on the
mover's score track. What a placement cost is measured **in the lowest-colour sense**: the
points both moves scored, where a colour's points count only up to :data:`AHEAD` above the
mover's lowest colour before the move (the lowest colour decides a game of Genial, so points
far ahead of it are worth nothing yet; a plain lowest colour would hardly ever move).

A placement is *accurate* when it scored at most :data:`ACCURATE_WITHIN` point less than the
expert's move that way; a player's accuracy is the share of their placements that were.

The puzzle (:func:`puzzle_at`, :func:`find_puzzles`) is a position where one placement
scores at least :data:`PUZZLE_GAP` more points in the mover's lowest colour than any other
that does not score as much: a question with one best score, worked out from the rules alone,
without the expert.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine.ai import choose_move
from engine.errors import at_move
from engine.genial import GenialGame
from engine.moves import Placement, SpezialPlacement, SwapChoice
from engine.notation import format_genial_move, format_spezial_placement
from engine.record import Record, new_game
from engine.spezial import SpezialGame

#: A placement within this many points of the expert's (lowest-colour sense) is accurate.
ACCURATE_WITHIN = 1
#: A colour's points count for a placement's cost only up to this far above the lowest colour.
AHEAD = 6
#: How many of a player's costliest placements a review names.
COSTLIEST = 3
#: The least margin, in the lowest colour, of a puzzle's answer over the next best placement.
PUZZLE_GAP = 4

AnyGame = GenialGame | SpezialGame
AnyMove = Placement | SwapChoice | SpezialPlacement


def counted_points(track: Sequence[int], lowest: int) -> int:
    """A score track's points, each colour counted only up to ``lowest`` + :data:`AHEAD`."""
    ceiling = lowest + AHEAD
    return sum(min(points, ceiling) for points in track)


@dataclass(frozen=True, slots=True)
class PlacementReview:
    """One placement: what was played, what the expert would have played, and the mover's
    score track (in the game's colour order) before and after each."""

    number: int  # the move's place in the record, from 0
    seat: int
    side: int
    played: str  # record notation
    best: str
    before: tuple[int, ...]
    after_played: tuple[int, ...]
    after_best: tuple[int, ...]

    @property
    def cost(self) -> int:
        """Points the played move scored less than the expert's, in the lowest-colour sense
        (never below 0: a move the expert did not choose may still score more now)."""
        low = min(self.before)
        return max(0, counted_points(self.after_best, low) - counted_points(self.after_played, low))

    @property
    def accurate(self) -> bool:
        return self.cost <= ACCURATE_WITHIN

    @property
    def gained_played(self) -> tuple[int, ...]:
        return tuple(a - b for a, b in zip(self.after_played, self.before, strict=True))

    @property
    def gained_best(self) -> tuple[int, ...]:
        return tuple(a - b for a, b in zip(self.after_best, self.before, strict=True))


@dataclass(frozen=True, slots=True)
class SwapReview:
    """One swap decision (``swap`` or ``keep``) against the expert's."""

    number: int
    seat: int
    played: str
    best: str

    @property
    def agreed(self) -> bool:
        return self.played == self.best


@dataclass(frozen=True, slots=True)
class SeatReview:
    """A person's summary: accuracy, their costliest placements, their swap decisions."""

    seat: int
    placements: int
    accurate: int
    #: Record move numbers of the costliest placements (cost above 0), costliest first.
    costliest: tuple[int, ...]
    #: Record move numbers of swap decisions that differed from the expert's.
    swaps_missed: tuple[int, ...]

    @property
    def accuracy(self) -> int:
        """Per cent of placements that were accurate, rounded (100 without placements)."""
        if not self.placements:
            return 100
        return round(100 * self.accurate / self.placements)


@dataclass(frozen=True, slots=True)
class GameReview:
    game: str
    mode: str | None
    players: int
    colours: tuple[str, ...]  # the letters of the score tracks' colours, in order
    placements: tuple[PlacementReview, ...]
    swaps: tuple[SwapReview, ...]
    seats: tuple[SeatReview, ...]
    #: Each side's lowest colour after every move of the record (index: move number).
    lowest: tuple[tuple[int, ...], ...]
    #: The move after which the winner's lead over the runner-up in the lowest colour
    #: changed most (None: no runner-up, or the game is not over).
    turning_point: int | None

    def placement(self, number: int) -> PlacementReview:
        for p in self.placements:
            if p.number == number:
                return p
        raise KeyError(number)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (``from_dict`` reads it back)."""
        return {
            "game": self.game,
            "mode": self.mode,
            "players": self.players,
            "colours": list(self.colours),
            "placements": [asdict(p) for p in self.placements],
            "swaps": [asdict(s) for s in self.swaps],
            "seats": [asdict(s) for s in self.seats],
            "lowest": [list(row) for row in self.lowest],
            "turning_point": self.turning_point,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameReview:
        """Raises KeyError or TypeError for data that ``to_dict`` did not write."""

        def tup(x: Any) -> tuple[int, ...]:
            return tuple(int(v) for v in x)

        return cls(
            game=str(data["game"]),
            mode=data["mode"],
            players=int(data["players"]),
            colours=tuple(str(c) for c in data["colours"]),
            placements=tuple(
                PlacementReview(
                    number=int(p["number"]),
                    seat=int(p["seat"]),
                    side=int(p["side"]),
                    played=str(p["played"]),
                    best=str(p["best"]),
                    before=tup(p["before"]),
                    after_played=tup(p["after_played"]),
                    after_best=tup(p["after_best"]),
                )
                for p in data["placements"]
            ),
            swaps=tuple(
                SwapReview(int(s["number"]), int(s["seat"]), str(s["played"]), str(s["best"]))
                for s in data["swaps"]
            ),
            seats=tuple(
                SeatReview(
                    seat=int(s["seat"]),
                    placements=int(s["placements"]),
                    accurate=int(s["accurate"]),
                    costliest=tup(s["costliest"]),
                    swaps_missed=tup(s["swaps_missed"]),
                )
                for s in data["seats"]
            ),
            lowest=tuple(tup(row) for row in data["lowest"]),
            turning_point=None if data["turning_point"] is None else int(data["turning_point"]),
        )


def _format(game: AnyGame, move: AnyMove) -> str:
    if isinstance(move, SpezialPlacement):
        return format_spezial_placement(move, game.area)
    return format_genial_move(move, game.area)


def _same(a: AnyMove, b: AnyMove) -> bool:
    """The same move: a double tile turned round is the same placement."""
    if isinstance(a, SwapChoice) or isinstance(b, SwapChoice):
        return a == b
    return a.canonical() == b.canonical()


def _track(game: AnyGame, side: int) -> tuple[int, ...]:
    return tuple(game.score(side).values())


def _seen_game(game: AnyGame, seat: int) -> AnyGame:
    """The position rebuilt from ``seat``'s view alone (unseen tiles dealt in a fixed way)."""
    if isinstance(game, GenialGame):
        return GenialGame.from_view(game.view(seat), random.Random(0))
    return SpezialGame.from_view(game.view(seat))


def _after(seen: AnyGame, move: AnyMove, side: int) -> tuple[int, ...]:
    trial = seen.copy()
    trial.play(move)  # type: ignore[arg-type]
    return _track(trial, side)


def review_move(
    game: AnyGame, played: AnyMove, *, number: int = 0, level: str = "expert", seed: int = 0
) -> PlacementReview | SwapReview:
    """The review of ``played``, a legal move of the seat to move in ``game``: the computer
    player of ``level`` decides from that seat's view alone, and both moves are scored on a
    game rebuilt from that view, so the rest of ``game`` (the bag, other racks) cannot
    change the review."""
    seat = game.to_move
    side = game.side_of(seat)
    view = game.view(seat)
    best = choose_move(view, level, seed)
    if isinstance(played, SwapChoice):
        return SwapReview(number, seat, _format(game, played), _format(game, best))
    seen = _seen_game(game, seat)
    after_played = _after(seen, played, side)
    if _same(played, best):
        best, after_best = played, after_played
    else:
        after_best = _after(seen, best, side)
    return PlacementReview(
        number=number,
        seat=seat,
        side=side,
        played=_format(game, played),
        best=_format(game, best),
        before=_track(game, side),
        after_played=after_played,
        after_best=after_best,
    )


def review_game(record: Record, *, level: str = "expert", seed: int = 0) -> GameReview:
    """The review of every move of ``record`` (finished or not).

    The computer player of ``level`` decides each position from the mover's view with the
    seed ``seed`` plus the move's number, so a record always gets the same review.

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a record that does not replay.
    """
    game = new_game(record)
    assert isinstance(game, GenialGame | SpezialGame)
    placements: list[PlacementReview] = []
    swaps: list[SwapReview] = []
    lowest: list[tuple[int, ...]] = []
    for n, text in enumerate(record.moves):
        with at_move(n):
            played = game.parse(text, None)
            reviewed = review_move(game, played, number=n, level=level, seed=seed + n)
            if isinstance(reviewed, SwapReview):
                swaps.append(reviewed)
            else:
                placements.append(reviewed)
            game.play(played)  # type: ignore[arg-type]
            lowest.append(tuple(min(_track(game, s)) for s in range(game.sides)))
    seats = tuple(_seat_review(seat, placements, swaps) for seat in range(record.players))
    colours = tuple(c.value for c in game.score(0))
    return GameReview(
        game=record.game,
        mode=record.mode,
        players=record.players,
        colours=colours,
        placements=tuple(placements),
        swaps=tuple(swaps),
        seats=seats,
        lowest=tuple(lowest),
        turning_point=turning_point(game.ranking(), lowest),
    )


def _seat_review(
    seat: int, placements: Sequence[PlacementReview], swaps: Sequence[SwapReview]
) -> SeatReview:
    own = [p for p in placements if p.seat == seat]
    costly = sorted((p for p in own if p.cost > 0), key=lambda p: (-p.cost, p.number))
    return SeatReview(
        seat=seat,
        placements=len(own),
        accurate=sum(p.accurate for p in own),
        costliest=tuple(p.number for p in costly[:COSTLIEST]),
        swaps_missed=tuple(s.number for s in swaps if s.seat == seat and not s.agreed),
    )


def turning_point(ranking: list[list[int]] | None, lowest: Sequence[tuple[int, ...]]) -> int | None:
    """The move after which the final winner's lead in the lowest colour over the final
    runner-up changed most (the earliest of equal swings)."""
    if ranking is None or not lowest:
        return None
    order = [side for place in ranking for side in place]
    if len(order) < 2:
        return None
    winner, runner_up = order[0], order[1]
    best: int | None = None
    best_swing = 0
    margin = 0
    for n, row in enumerate(lowest):
        now = row[winner] - row[runner_up]
        swing = abs(now - margin)
        if swing > best_swing:
            best, best_swing = n, swing
        margin = now
    return best


# --- the puzzle ---------------------------------------------------------------------------


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
    "ACCURATE_WITHIN",
    "AHEAD",
    "COSTLIEST",
    "PUZZLE_GAP",
    "GameReview",
    "PlacementReview",
    "Puzzle",
    "SeatReview",
    "SwapReview",
    "counted_points",
    "find_puzzles",
    "lowest_points",
    "placement_points",
    "puzzle_at",
    "puzzle_position",
    "review_game",
    "review_move",
    "solves",
    "turning_point",
]
