"""Scoring as the play path does it (``play``, its incrementally kept points table), next to
the direct count of ``points_of``; and the track's stops and caps (RULES.md 2.5, 2.7), each
worked out by hand.

``points_of`` counts the lines on the board; ``play`` reads a table that is kept up to date
cell by cell. Two counts means two places for a bug: the hand-worked cases of
``test_scoring.py`` are played here too, so both are held to the same numbers.
"""

from __future__ import annotations

import pytest

from engine.events import BonusEarned, Event, Scored
from engine.genial import GenialGame
from engine.hexgrid import Hex
from engine.moves import Placement
from engine.tiles import Colour

from .helpers import new_game, put, skip_first_round
from .test_scoring import CASES

RED, GREEN = Colour.RED, Colour.GREEN


def _played_points(players: int, board: dict[tuple[int, int], str], move: str) -> dict[str, int]:
    tile = move.split()[0]
    game = new_game(players, [[tile]])
    skip_first_round(game)
    put(game, board)
    placement = game.parse(move)
    assert isinstance(placement, Placement)
    events = game.play(placement)
    scored = [e for e in events if isinstance(e, Scored)]
    if not scored:
        return {}
    assert len(scored) == 1
    # Far from any cap: what the placement made is what the track gained.
    assert scored[0].gained == scored[0].points
    return {c.value: p for c, p in scored[0].points.items()}


@pytest.mark.parametrize(
    ("players", "board", "move", "expected", "why"), CASES, ids=[c[4] for c in CASES]
)
def test_play_scores_the_hand_worked_cases(
    players: int, board: dict[tuple[int, int], str], move: str, expected: dict[str, int], why: str
) -> None:
    assert _played_points(players, board, move) == expected


# --- caps and stops ------------------------------------------------------------------------

# On every board (radius 5 and 7) the centre and its east neighbour are far from the start
# symbols: two red symbols west of the centre make a red-green tile there score 2 red.
TWO_RED_WEST = {(-1, 0): "R", (-2, 0): "R"}
RG_AT_CENTRE = Placement(RED, GREEN, Hex(0, 0), Hex(1, 0))
GR_AT_CENTRE = Placement(GREEN, RED, Hex(0, 0), Hex(1, 0))  # red away from the line: 0


def _play_at(mode: str, players: int, red_before: int, move: Placement) -> tuple[list[Event], int]:
    """The events of ``move`` with red's track at ``red_before``, and red's track after."""
    game = new_game(players, [["RG"]], mode=mode)
    skip_first_round(game)
    put(game, TWO_RED_WEST)
    game.scores[0][RED.index] = red_before
    events = game.play(move)
    return events, game.scores[0][RED.index]


def _bonuses(events: list[Event]) -> list[tuple[Colour, int]]:
    return [(e.colour, e.mark) for e in events if isinstance(e, BonusEarned)]


@pytest.mark.parametrize(
    ("mode", "players", "before", "after", "bonus", "why"),
    [
        ("standard", 2, 16, 18, [(RED, 18)], "16 + 2 reaches 18 exactly: a bonus placement"),
        ("standard", 2, 17, 18, [(RED, 18)], "17 + 2 would be 19: capped at 18, a bonus"),
        ("standard", 2, 15, 17, [], "15 + 2 is 17: below the cap, no bonus"),
        ("standard", 2, 18, 18, [], "already at 18: nothing gained, no second bonus"),
        ("team", 4, 17, 18, [(RED, 18)], "team track: 17 + 2 stops at the 18 mark, a bonus"),
        ("team", 4, 16, 18, [(RED, 18)], "team track: 16 + 2 reaches the 18 mark, a bonus"),
        ("team", 4, 18, 20, [], "team track: from 18 on the points count on"),
        ("team", 4, 35, 36, [(RED, 36)], "team track: 35 + 2 capped at 36, a second bonus"),
        ("team", 4, 36, 36, [], "team track: at 36 nothing more"),
    ],
    ids=lambda v: v if isinstance(v, str) and " " in v else None,
)
def test_track_stops_and_caps(
    mode: str,
    players: int,
    before: int,
    after: int,
    bonus: list[tuple[Colour, int]],
    why: str,
) -> None:
    events, red = _play_at(mode, players, before, RG_AT_CENTRE)
    assert red == after
    assert _bonuses(events) == bonus
    scored = next(e for e in events if isinstance(e, Scored))
    assert scored.points == {RED: 2}
    assert scored.gained == ({RED: after - before} if after != before else {RED: 0})


def test_a_colour_that_scores_nothing_earns_no_bonus_at_17() -> None:
    # Red at 17, the tile turned round: its red half looks away from the red line and its
    # green half sees no green. Nothing scores, red stays at 17 and no bonus is earned.
    events, red = _play_at("standard", 2, 17, GR_AT_CENTRE)
    assert red == 17
    assert _bonuses(events) == []
    assert not any(isinstance(e, Scored) for e in events)


def test_solo_track_has_the_18_stop_but_no_bonus_placement() -> None:
    # RULES.md 2.8: the solo track stops at 18 too, but the solo game has no bonus placements.
    game = GenialGame(1, "solo", seed=4)
    assert game.setup.cap == 36 and game.setup.marks == (18, 36)
    assert not game.setup.bonus_placements
