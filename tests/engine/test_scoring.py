"""Scoring a placement (RULES.md 2.4), with positions and points worked out by hand.

Coordinates are axial (q, r). On the 2-player board (radius 5) row F is r = 0 with
F1 = (-5, 0) ... F11 = (5, 0); row B is r = -4 with B1 = (-1, -4) ... B7 = (5, -4).
"""

from __future__ import annotations

import pytest

from engine.genial import GenialGame
from engine.hexgrid import Hex
from engine.moves import Placement
from engine.tiles import parse_colour

from .helpers import put


def points(players: int, board: dict[tuple[int, int], str], move: str) -> dict[str, int]:
    game = GenialGame(players, seed=1)
    put(game, board)
    placement = game.parse(move)
    assert isinstance(placement, Placement)
    return {c.value: p for c, p in game.points_of(placement).items()}


CASES = [
    # (players, symbols put on the board, placement, expected points, why)
    (2, {}, "RG F6 F7", {}, "an empty neighbourhood scores nothing"),
    (2, {}, "RG A2 A3", {"R": 1}, "A2 sees the red start symbol A1 to its west; edge beyond"),
    (
        2,
        {(-4, 0): "P"},
        "PO F3 F4",
        {"P": 2},
        "F3 looks west: the purple tile on F2, then the purple start symbol F1",
    ),
    (
        2,
        {(-1, 0): "R", (-2, 0): "R", (-3, 0): "B", (-4, 0): "R"},
        "RG F6 F7",
        {"R": 2},
        "the red line west of F6 stops at the blue symbol on F3",
    ),
    (
        2,
        {(-1, 0): "R", (-2, 0): "R", (2, 0): "G", (1, 1): "G", (2, -1): "B"},
        "RG F6 F7",
        {"R": 2, "G": 2},
        "one tile scores two colours: red west of F6, green east and south-east of F7",
    ),
    (
        2,
        {(2, -5): "R"},
        "RR B3 B4",
        {"R": 2},
        "a double: A3 touches both halves and is counted once from each",
    ),
    (
        2,
        {(3, -4): "R"},
        "RR B3 B4",
        {"R": 1},
        "the partner direction is never scanned: B3 does not look east through B4 to B5",
    ),
    (
        2,
        {(1, 0): "R", (2, 0): "R", (0, 1): "R", (0, 2): "R", (0, 3): "R", (-1, 1): "G"},
        "RB F6 E6",
        {"R": 5},
        "F6 scores red in two directions: 2 east (F7, F8) and 3 south-east (G6, H6, I6)",
    ),
    (
        2,
        {(2, -4): "B", (3, -4): "B", (4, -4): "B", (5, -4): "B"},
        "BY B3 A3",
        {"B": 4},
        "a line of four, up to the edge (B7 is the last cell of row B)",
    ),
    (
        4,
        {(-1, -5): "R"},
        "RG C4 C5",
        {"R": 2},
        "4-player board: from (1,-5) west the line runs over the start symbol on to (-1,-5)",
    ),
]


@pytest.mark.parametrize(
    ("players", "board", "move", "expected", "why"), CASES, ids=[c[4] for c in CASES]
)
def test_points(
    players: int, board: dict[tuple[int, int], str], move: str, expected: dict[str, int], why: str
) -> None:
    assert points(players, board, move) == expected


def test_two_player_edge_stops_the_same_line() -> None:
    # The 2-player board has no cell at (-1, -5): from A2 the red line is just A1.
    assert points(2, {}, "RG A2 A3") == {"R": 1}
    assert Hex(-1, -5) not in GenialGame(2, seed=0).area


def test_cell_points_table_agrees_with_placements() -> None:
    # The per-cell table used to list placements must give the same points as scoring a
    # single placement directly, for every legal placement of a busy position.
    game = GenialGame(2, seed=7)
    put(game, {(0, 0): "R", (1, 0): "R", (-1, 1): "G", (2, -1): "B", (0, -1): "R", (3, 0): "R"})
    game.has_placed = [True, True]
    for placement, pts in game.placements_with_points():
        direct = game.points_of(placement)
        assert {c.index: p for c, p in direct.items()} == {i: p for i, p in enumerate(pts) if p}


def test_scored_event_caps_points() -> None:
    game = GenialGame(2, seed=3)
    game.has_placed = [True, True]
    put(game, {(-1, 0): "R", (-2, 0): "R", (-3, 0): "R"})
    rack_tile = game.racks[0][0]
    game.racks[0][0] = rack_tile._replace(first=parse_colour("R"), second=parse_colour("G"))
    game.scores[0][0] = 16  # red at 16: three points reach 18 and one is lost
    events = game.play_text("RG F6 F7")
    scored = next(e for e in events if type(e).__name__ == "Scored")
    assert scored.points == {parse_colour("R"): 3}
    assert scored.gained == {parse_colour("R"): 2}
    assert game.scores[0][0] == 18
