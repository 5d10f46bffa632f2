"""The review of a finished game by the expert, and the daily puzzle.

For every move of a record the review judges the position *as the mover saw it*: only the
mover's view goes in (the board, the scores, the mover's own rack, never the draw order or
another rack), so nothing the mover could not know goes into a review.

Genial (issue 47): the best placement is the first of :func:`engine.ai.judge.judge`, the one
judge that ``/hint`` ranks by and a puzzle's answer must agree with, which values a placement
with everything it brings (the bonus placements it earns, the swap it opens, the
lowest-colour race), so a placement ``/hint`` ranks first is never called a mistake. What a
placement cost is the drop in the mover's **chance to win** (:mod:`engine.ai.chances`: the
side's, so a team's in the team game; 3 and 4 players: the chance to finish first) after it
against after the best placement, both played out over the same deals of what the mover had
not seen; each placement's accuracy and a player's accuracy over the game come from those
drops as lichess derives them from win per cent (:mod:`engine.accuracy`). Every side's chance
after every move is kept for the graph, and the game *turned* at the move after which a
side's chance fell most. The points of both placements stay beside it: the lowest-colour
figure where the two leave the lowest colour different, and :attr:`PlacementReview.cost`,
the points the played placement scored less **in the lowest-colour sense** (a colour's points
count only up to :data:`AHEAD` above the mover's lowest colour before the move).

Genial Spezial keeps the expert's move as the best and the lowest-colour cost alone (no
chances: ``chances`` is None).

The puzzle (:func:`puzzle_at`, :func:`find_puzzles`) is a position where one placement
scores at least :data:`PUZZLE_GAP` more points in the mover's lowest colours than any other
that does not score as much, and the judge's first placement is one that scores as much: a
question with one best score that the review and ``/hint`` agree with.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine.accuracy import game_accuracy, move_accuracy, volatility
from engine.ai import choose_move
from engine.ai.chances import SAMPLES, Chances, chances_after
from engine.ai.genial_players import best_moves
from engine.ai.judge import judge
from engine.errors import at_move
from engine.genial import GenialGame
from engine.moves import Placement, SpezialPlacement, SwapChoice
from engine.notation import format_genial_move, format_spezial_placement
from engine.puzzle import (
    PUZZLE_GAP,
    Puzzle,
    find_puzzles,
    lowest_points,
    placement_points,
    puzzle_at,
    puzzle_position,
    solves,
)
from engine.record import Record, new_game
from engine.spezial import SpezialGame

#: A placement within this many percentage points of the best one's chance to win (points in
#: the lowest-colour sense where there are no chances) is accurate.
ACCURATE_WITHIN = 1
#: A colour's points count for a placement's cost only up to this far above the lowest colour.
AHEAD = 6
#: How many of a player's costliest placements a review names.
COSTLIEST = 3

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
    #: The mover's side's chance to win after the played and after the best placement.
    chance_played: float | None = None
    chance_best: float | None = None

    @property
    def drop(self) -> int | None:
        """Percentage points of the chance to win the played placement lost against the best
        (never below 0); None where there are no chances (Genial Spezial)."""
        if self.chance_played is None or self.chance_best is None:
            return None
        return round(100 * max(0.0, self.chance_best - self.chance_played))

    @property
    def loss(self) -> int:
        """What ranks a placement among the costly: its drop, or its cost without chances."""
        drop = self.drop
        return self.cost if drop is None else drop

    @property
    def accuracy(self) -> float | None:
        """The placement's accuracy (0..100) from its drop, as lichess's (engine.accuracy)."""
        if self.chance_played is None or self.chance_best is None:
            return None
        return move_accuracy(100 * self.chance_best, 100 * self.chance_played)

    @property
    def cost(self) -> int:
        """Points the played move scored less than the expert's, in the lowest-colour sense
        (never below 0: a move the expert did not choose may still score more now)."""
        low = min(self.before)
        return max(0, counted_points(self.after_best, low) - counted_points(self.after_played, low))

    @property
    def accurate(self) -> bool:
        return self.loss <= ACCURATE_WITHIN

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
    #: The accuracy over the game from the drops in the chance to win (engine.accuracy);
    #: None without chances.
    score: float | None = None

    @property
    def accuracy(self) -> int:
        """The accuracy over the game, rounded; without chances the per cent of placements
        that were accurate (100 without placements)."""
        if self.score is not None:
            return round(self.score)
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
    #: The move after which a side's chance to win fell most (without chances: the winner's
    #: lead over the runner-up in the lowest colour changed most); None: none did.
    turning_point: int | None
    #: Each side's chance to win after every move (index: move number); None: Genial Spezial.
    chances: tuple[Chances, ...] | None = None
    #: The side whose chance fell most at the turning point (None without chances).
    turned_side: int | None = None

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
            "chances": None if self.chances is None else [list(row) for row in self.chances],
            "turned_side": self.turned_side,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameReview:
        """Raises KeyError or TypeError for data that ``to_dict`` did not write."""

        def tup(x: Any) -> tuple[int, ...]:
            return tuple(int(v) for v in x)

        def chance(x: Any) -> float | None:
            return None if x is None else float(x)

        chances = data.get("chances")
        turned = data.get("turned_side")

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
                    chance_played=chance(p.get("chance_played")),
                    chance_best=chance(p.get("chance_best")),
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
                    score=chance(s.get("score")),
                )
                for s in data["seats"]
            ),
            lowest=tuple(tup(row) for row in data["lowest"]),
            turning_point=None if data["turning_point"] is None else int(data["turning_point"]),
            chances=None
            if chances is None
            else tuple(tuple(float(v) for v in row) for row in chances),
            turned_side=None if turned is None else int(turned),
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
    game: AnyGame,
    played: AnyMove,
    *,
    number: int = 0,
    level: str = "expert",
    seed: int = 0,
    samples: int = SAMPLES,
) -> PlacementReview | SwapReview:
    """The review of ``played``, a legal move of the seat to move in ``game``, from that
    seat's view alone (the rest of ``game``, the bag and other racks, cannot change it): in
    Genial the judge's best placement and the chances to win after both (``samples``
    play-outs seeded with ``seed``); in Genial Spezial the move of the computer player of
    ``level``."""
    return _review(game, played, number, level, seed, samples)[0]


def _review(
    game: AnyGame, played: AnyMove, number: int, level: str, seed: int, samples: int
) -> tuple[PlacementReview | SwapReview, Chances | None]:
    """The review of the move, and each side's chance to win after it (Genial)."""
    seat = game.to_move
    side = game.side_of(seat)
    view = game.view(seat)
    genial = isinstance(game, GenialGame)
    if isinstance(played, SwapChoice):
        assert isinstance(game, GenialGame)
        best_choice = best_moves(game.view(seat), 1)[0][0]
        after = chances_after(game, [played], samples, seed)[0]
        return SwapReview(number, seat, _format(game, played), _format(game, best_choice)), after
    best: AnyMove
    row: Chances | None = None
    chance_played: float | None = None
    chance_best: float | None = None
    if isinstance(game, GenialGame) and isinstance(played, Placement):
        # The judge's first of its own candidates, as /hint's (the played placement is
        # judged by its chance to win below, whatever the judge would say of it).
        best = judge(game.view(seat))[0].placement
        if _same(played, best):
            best = played
            row = row_best = chances_after(game, [played], samples, seed)[0]
        else:
            row, row_best = chances_after(game, [played, best], samples, seed)
        chance_played, chance_best = row[side], row_best[side]
    else:
        best = choose_move(view, level, seed)
        if _same(played, best):
            best = played
    assert genial or row is None
    seen = _seen_game(game, seat)
    after_played = _after(seen, played, side)
    after_best = after_played if best is played else _after(seen, best, side)
    review = PlacementReview(
        number=number,
        seat=seat,
        side=side,
        played=_format(game, played),
        best=_format(game, best),
        before=_track(game, side),
        after_played=after_played,
        after_best=after_best,
        chance_played=chance_played,
        chance_best=chance_best,
    )
    return review, row


def review_game(
    record: Record, *, level: str = "expert", seed: int = 0, samples: int = SAMPLES
) -> GameReview:
    """The review of every move of ``record`` (finished or not).

    Each position is judged from the mover's view with the seed ``seed`` plus the move's
    number (``samples`` play-outs for the chances; Genial Spezial: the computer player of
    ``level``), so a record always gets the same review.

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a record that does not replay.
    """
    game = new_game(record)
    assert isinstance(game, GenialGame | SpezialGame)
    placements: list[PlacementReview] = []
    swaps: list[SwapReview] = []
    lowest: list[tuple[int, ...]] = []
    chances: list[Chances] = []
    for n, text in enumerate(record.moves):
        with at_move(n):
            played = game.parse(text, None)
            reviewed, row = _review(game, played, n, level, seed + n, samples)
            if isinstance(reviewed, SwapReview):
                swaps.append(reviewed)
            else:
                placements.append(reviewed)
            if row is not None:
                chances.append(tuple(round(c, 4) for c in row))
            game.play(played)  # type: ignore[arg-type]
            lowest.append(tuple(min(_track(game, s)) for s in range(game.sides)))
    graph = tuple(chances) if isinstance(game, GenialGame) else None
    seats = tuple(_seat_review(seat, placements, swaps, graph) for seat in range(record.players))
    colours = tuple(c.value for c in game.score(0))
    turned = None if graph is None else turn_of_chances(graph)
    return GameReview(
        game=record.game,
        mode=record.mode,
        players=record.players,
        colours=colours,
        placements=tuple(placements),
        swaps=tuple(swaps),
        seats=seats,
        lowest=tuple(lowest),
        turning_point=turning_point(game.ranking(), lowest)
        if graph is None
        else turned[0]
        if turned
        else None,
        chances=graph,
        turned_side=turned[1] if turned else None,
    )


def series(chances: Sequence[Chances], side: int) -> list[float]:
    """A side's chance to win in per cent before the first move (an equal share) and after
    every move."""
    if not chances:
        return []
    return [100 / len(chances[0])] + [100 * row[side] for row in chances]


def turn_of_chances(chances: Sequence[Chances]) -> tuple[int, int] | None:
    """The move after which a side's chance to win fell most from the point before (the
    first move: from an equal share), and that side; the earliest of equal falls; None if
    no side's chance ever fell."""
    if not chances:
        return None
    sides = len(chances[0])
    lines = [series(chances, side) for side in range(sides)]
    best: tuple[int, int] | None = None
    most = 0.0
    for n in range(len(chances)):
        for side in range(sides):
            fall = lines[side][n] - lines[side][n + 1]
            if fall > most + 1e-9:
                best, most = (n, side), fall
    return best


def _seat_review(
    seat: int,
    placements: Sequence[PlacementReview],
    swaps: Sequence[SwapReview],
    chances: Sequence[Chances] | None = None,
) -> SeatReview:
    own = [p for p in placements if p.seat == seat]
    costly = sorted((p for p in own if p.loss > 0), key=lambda p: (-p.loss, p.number))
    score = None
    if chances is not None:
        rated = [p for p in own if p.accuracy is not None]
        lines = {p.side: series(chances, p.side) for p in rated}
        score = game_accuracy(
            [p.accuracy or 0.0 for p in rated],
            [volatility(lines[p.side], p.number + 1) for p in rated],
        )
    return SeatReview(
        seat=seat,
        placements=len(own),
        accurate=sum(p.accurate for p in own),
        costliest=tuple(p.number for p in costly[:COSTLIEST]),
        swaps_missed=tuple(s.number for s in swaps if s.seat == seat and not s.agreed),
        score=score,
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
    "series",
    "solves",
    "turn_of_chances",
    "turning_point",
]
