"""Genial Spezial rules (RULES.md section 3): the rulebook's worked examples rebuilt as
positions from records with explicit tokens, golden spaces, bad moves and the end.

Geometry used below (axial (q, r); 2-player towers; row letter -> first q of the row:
A 3, B 2, C 1, D 0, E -1, M -3, N -4, L -3):

- short towers D4 (3,-9), D7 (6,-9), G7 (3,-6); tall towers A4 (6,-12), D1 (0,-9), D10 (9,-9)
- golden spaces B3 (4,-11), D2 (1,-9), F7 (4,-7); none of the other cells used below
- rows L, M and N are two or more rows from any tower: seat 1 plays its filler tiles there
  (L3..L6, M1 M2, M5 M6, N1..N6; avoiding the golden L2, M4 and N7).
"""

from __future__ import annotations

import dataclasses

import pytest

from engine.errors import REASONS, GameOver, IllegalMove, InvalidRecord, NotationError, NotYourTurn
from engine.events import (
    GameEnded,
    GoldenPoint,
    Scored,
    SpezialPlaced,
    TallBonus,
    TokenFlipped,
    TowerScored,
    TurnStarted,
)
from engine.hexgrid import Hex
from engine.moves import SpezialPlacement
from engine.spezial import SpezialGame, board_layout
from engine.tiles import Colour

B, G, O, P = Colour.BLUE, Colour.GREEN, Colour.ORANGE, Colour.PURPLE  # noqa: E741

# The token on each 2-player tower, in board-file order (a record's "tokens" list).
TOKEN_ON_TOWER = {
    "A4": "P2",
    "D1": "O1",
    "D4": "B1",
    "D7": "G2",
    "D10": "O2",
    "G4": "B2",
    "G7": "O1",
    "J7": "P1",
    "P4": "B1",
    "S7": "B2",
    "S10": "G1",
    "V1": "G1",
    "V4": "G2",
    "V7": "O2",
    "V10": "P1",
    "Y4": "P2",
}
TOKENS_2P = list(TOKEN_ON_TOWER.values())
A4, D1, D4, D7, D10, G7 = Hex(6, -12), Hex(0, -9), Hex(3, -9), Hex(6, -9), Hex(9, -9), Hex(3, -6)


def game_after(moves: list[str], tokens: list[str] = TOKENS_2P, players: int = 2) -> SpezialGame:
    game = SpezialGame(players, tokens=tokens)
    for text in moves:
        game.play_text(text)
    return game


def track(game: SpezialGame, seat: int) -> tuple[int, int, int, int]:
    s = game.score(seat)
    return (s[B], s[G], s[O], s[P])


def test_tokens_sit_on_towers_in_file_order() -> None:
    towers = SpezialGame(2, tokens=TOKENS_2P).towers()
    area = board_layout().area
    assert [area.label(h) for h in towers] == list(TOKEN_ON_TOWER)
    assert list(towers)[:5] == [A4, D1, D4, D7, D10]
    assert (towers[D4].colour, towers[D4].value, towers[D4].dark) == (B, 1, False)
    assert (towers[D7].colour, towers[D7].value) == (G, 2)
    assert towers[A4].height == "tall" and towers[D4].height == "short"


class TestConnectingTowers:
    """Seat 0 links D4 and D7, reaches G7, merges a side chain, and builds a second chain."""

    def test_first_connection_scores_both_towers(self) -> None:
        game = SpezialGame(2, tokens=TOKENS_2P)
        events = game.play_text("D5 D6")
        # D5 (4,-9) touches D4, D6 (5,-9) touches D7: D4 B1 -> 1 blue, D7 G2 -> 2 green.
        # Both tokens flip: B1 to its dark 2, G2 to its dark 3.
        assert events == [
            SpezialPlaced(0, SpezialPlacement(Hex(4, -9), Hex(5, -9))),
            TowerScored(0, D4, B, 1),
            TowerScored(0, D7, G, 2),
            TokenFlipped(D4, B, 2),
            TokenFlipped(D7, G, 3),
            Scored(0, 0, {B: 1, G: 2}, {B: 1, G: 2}, {B: 1, G: 2, O: 0, P: 0}),
            TurnStarted(1),
        ]
        assert track(game, 0) == (1, 2, 0, 0)
        assert track(game, 1) == (0, 0, 0, 0)

    def test_a_lone_tower_scores_nothing(self) -> None:
        game = SpezialGame(2, tokens=TOKENS_2P)
        # C2 (2,-10) C3 (3,-10): only C3 touches a tower (D4).
        assert game.play_text("C2 C3") == [
            SpezialPlaced(0, SpezialPlacement(Hex(2, -10), Hex(3, -10))),
            TurnStarted(1),
        ]
        assert game.towers()[D4].dark is False

    def test_extending_to_a_third_tower_scores_only_it(self) -> None:
        game = game_after(["D5 D6", "M1 M2"])
        # E6 (4,-8) joins D5; F6 (3,-7) touches G7 (O1): only G7 is new -> 1 orange.
        events = game.play_text("E6 F6")
        assert events[1:4] == [
            TowerScored(0, G7, O, 1),
            TokenFlipped(G7, O, 2),
            Scored(0, 0, {O: 1}, {O: 1}, {B: 1, G: 2, O: 1, P: 0}),
        ]
        assert track(game, 0) == (1, 2, 1, 0)

    def test_merging_a_small_chain_scores_nothing_new(self) -> None:
        game = game_after(["D5 D6", "M1 M2", "E6 F6", "M5 M6", "C2 C3", "N1 N2"])
        assert game.chain_of(Hex(2, -10)) == (frozenset({D4}), frozenset(), frozenset())
        # C4 (4,-10) touches C3 and D5, so the side chain (touching D4 only) joins the big
        # chain, which has scored D4, D7 and G7 already: nothing scores.
        events = game.play_text("C4 C5")
        assert events == [
            SpezialPlaced(0, SpezialPlacement(Hex(4, -10), Hex(5, -10))),
            TurnStarted(1),
        ]
        assert track(game, 0) == (1, 2, 1, 0)
        assert game.chain_of(Hex(2, -10)) == (frozenset({D4, D7, G7}),) * 2 + (frozenset(),)

    def test_a_second_chain_scores_the_same_tower_again_light_then_dark(self) -> None:
        game = game_after(["D5 D6", "M1 M2", "E6 F6", "M5 M6", "C2 C3", "N1 N2", "C4 C5", "N3 N4"])
        # D8 (7,-9) touches D7, D9 (8,-9) touches D10; neither touches the first chain.
        # D7 scores again, now dark: 3 green (it paid 2 light). D10 O2 light: 2 orange.
        # One tall tower (D10) only: no tall bonus.
        events = game.play_text("D8 D9")
        assert events[1:5] == [
            TowerScored(0, D7, G, 3),
            TowerScored(0, D10, O, 2),
            TokenFlipped(D10, O, 3),
            Scored(0, 0, {G: 3, O: 2}, {G: 3, O: 2}, {B: 1, G: 5, O: 3, P: 0}),
        ]
        assert track(game, 0) == (1, 5, 3, 0)
        assert game.towers()[D7].value == 3 and game.towers()[D7].dark


class TestTallBonus:
    """Seat 0 links short D7 and tall D10, then tall A4, then tall D1."""

    CHAIN = ("D8 D9", "M1 M2", "C8 C9", "M5 M6", "B7 B8", "N1 N2")

    def test_one_tall_tower_earns_no_bonus(self) -> None:
        game = game_after(list(self.CHAIN))
        # D8 D9 scored D7 (G2) and D10 (O2); C8 C9 and B7 B8 only extend the chain.
        assert track(game, 0) == (0, 2, 2, 0)

    def test_a_second_tall_tower_pays_both(self) -> None:
        game = game_after(list(self.CHAIN))
        # A5 (7,-12) touches A4 (P2): 2 purple; tall towers A4 and D10 now both unpaid:
        # 2 in every colour. Totals: B 0+2, G 2+2, O 2+2, P 0+2+2.
        events = game.play_text("A6 A5")
        assert events[1:5] == [
            TowerScored(0, A4, P, 2),
            TokenFlipped(A4, P, 3),
            TallBonus(0, (A4, D10), 2),
            Scored(
                0, 0, {B: 2, G: 2, O: 2, P: 4}, {B: 2, G: 2, O: 2, P: 4}, {B: 2, G: 4, O: 4, P: 4}
            ),
        ]
        assert track(game, 0) == (2, 4, 4, 4)

    def test_a_tall_tower_added_later_pays_one(self) -> None:
        moves = [*self.CHAIN, "A6 A5", "N3 N4", "B5 B4", "N5 N6", "A3 A2", "L3 L4", "B2 B1"]
        game = game_after([*moves, "L5 L6"])
        assert track(game, 0) == (2, 4, 4, 4)  # B5 .. B1 touch only A4 again
        # C1 (1,-10) touches D1 (O1): 1 orange; D1 is a third tall tower, A4 and D10 are
        # paid already: 1 in every colour. Totals: B 3, G 5, O 4+1+1, P 5.
        events = game.play_text("C1 C2")
        assert events[1:5] == [
            TowerScored(0, D1, O, 1),
            TokenFlipped(D1, O, 2),
            TallBonus(0, (D1,), 1),
            Scored(
                0, 0, {B: 1, G: 1, O: 2, P: 1}, {B: 1, G: 1, O: 2, P: 1}, {B: 3, G: 5, O: 6, P: 5}
            ),
        ]
        assert track(game, 0) == (3, 5, 6, 5)


class TestGoldenSpaces:
    def test_chosen_colour(self) -> None:
        game = SpezialGame(2, tokens=TOKENS_2P)
        # B3 (4,-11) is golden; B4 touches A4 only, so nothing else scores.
        events = game.play_text("B3 B4 p")
        assert events[1:3] == [
            GoldenPoint(0, Hex(4, -11), P, True),
            Scored(0, 0, {P: 1}, {P: 1}, {B: 0, G: 0, O: 0, P: 1}),
        ]
        assert game.moves == ["B3 B4 P"]

    def test_default_is_the_lowest_colour_blue_first(self) -> None:
        game = SpezialGame(2, tokens=TOKENS_2P)
        events = game.play_text("B4 B3")  # all tracks 0: B wins the tie
        assert events[1] == GoldenPoint(0, Hex(4, -11), B, False)
        assert track(game, 0) == (1, 0, 0, 0)

    def test_default_is_judged_after_the_towers_scored(self) -> None:
        game = SpezialGame(2, tokens=TOKENS_2P)
        # D2 (1,-9) golden touches D1 (O1); D3 (2,-9) touches D4 (B1): 1 orange, 1 blue.
        # Then the golden point goes to the lowest colour: G and P are 0, G comes first.
        events = game.play_text("D2 D3")
        assert events[1:6] == [
            TowerScored(0, D1, O, 1),
            TowerScored(0, D4, B, 1),
            TokenFlipped(D1, O, 2),
            TokenFlipped(D4, B, 2),
            GoldenPoint(0, Hex(1, -9), G, False),
        ]
        assert track(game, 0) == (1, 1, 1, 0)


def test_unused_tower_spaces_are_ordinary_cells() -> None:
    g10, g11 = Hex(6, -6), Hex(7, -6)  # G10 holds a tower from 3 players on
    assert [t.players for t in board_layout().tower_spaces if t.cell == g10] == [3]
    SpezialGame(2, seed=1).play(SpezialPlacement(g10, g11))
    with pytest.raises(IllegalMove) as err:
        SpezialGame(3, seed=1).play(SpezialPlacement(g10, g11))
    assert err.value.reason == "tower"


@pytest.mark.parametrize(
    ("moves", "bad", "reason"),
    [
        ([], "A4 A5", "tower"),
        ([], "A5 A4", "tower"),
        (["D5 D6"], "D6 E7", "occupied"),
        (["D5 D6"], "M1 D5", "not_adjacent"),
        ([], "M1 M3", "not_adjacent"),
        ([], "M1 m1", "same_cell"),
        ([], "A8 A9", "outside_area"),
        ([], "M1 M2 B", "too_many_colours"),
        ([], "B3 B4 PB", "too_many_colours"),
        ([], "B3 B4 R", "unknown_colour"),
        ([], "B3 B4 Y", "unknown_colour"),
    ],
)
def test_illegal_moves_leave_the_game_unchanged(moves: list[str], bad: str, reason: str) -> None:
    game = game_after(moves)
    before = game.view(0)
    with pytest.raises(IllegalMove) as err:
        game.play_text(bad)
    assert err.value.reason == reason and reason in REASONS
    assert game.view(0) == before
    assert game.record() == game_after(moves).record()


@pytest.mark.parametrize(
    ("text", "reason"), [("B3 B4 X", "unknown_colour"), ("M1", "cannot_parse")]
)
def test_malformed_moves(text: str, reason: str) -> None:
    with pytest.raises(NotationError) as err:
        SpezialGame(2, seed=0).play_text(text)
    assert err.value.reason == reason


def test_not_your_turn() -> None:
    game = SpezialGame(2, seed=0)
    with pytest.raises(NotYourTurn) as err:
        game.play_text("M1 M2", seat=1)
    assert err.value.reason == "not_your_turn"
    assert game.version == 0
    game.play_text("M1 M2", seat=0)
    assert game.to_move == 1


def test_twenty_rounds_then_a_move_after_the_end_is_refused() -> None:
    game = SpezialGame(2, seed=3)
    moves = game.legal_moves()
    # 40 placements, one per turn, alternating; reading-order pairs far enough apart.
    played = 0
    while not game.over:
        game.play(game.legal_moves()[0])
        played += 1
    assert played == 2 * 20
    assert game.end_reason == "all_tiles_placed"
    assert game.view(None).tiles_left == (0, 0)
    assert game.legal_moves() == [] and game.awaiting is None
    with pytest.raises(GameOver) as err:
        game.play(moves[-1])
    assert err.value.reason == "game_over"


def test_the_last_placement_ends_the_game_with_a_ranking() -> None:
    game = SpezialGame(2, seed=3)
    for _ in range(39):
        game.play(game.legal_moves()[0])
    assert not game.over and game.ranking() is None
    events = game.play(game.legal_moves()[0])
    end = events[-1]
    assert isinstance(end, GameEnded) and end.reason == "all_tiles_placed"
    assert end.ranking == game.ranking()


def test_bad_player_counts() -> None:
    for players in (1, 5):
        with pytest.raises(ValueError, match="2 to 4"):
            SpezialGame(players)


def test_tokens_are_validated() -> None:
    with pytest.raises(InvalidRecord, match="entry 3"):
        SpezialGame(2, tokens=["B1", "B1", "X1", *TOKENS_2P[3:]])
    with pytest.raises(InvalidRecord, match="16 tokens"):
        SpezialGame(2, tokens=TOKENS_2P[:-1])


def test_ranking_compares_sorted_scores_and_shares_places() -> None:
    view = dataclasses.replace(
        SpezialGame(3, seed=0).view(None),
        over=True,
        to_move=None,
        scores=({B: 3, G: 5, O: 6, P: 5}, {B: 5, G: 3, O: 5, P: 6}, {B: 4, G: 4, O: 4, P: 9}),
    )
    ended = SpezialGame.from_view(view)
    # Sorted: seat 0 [3,5,5,6], seat 1 [3,5,5,6], seat 2 [4,4,4,9]. Seat 2's lowest colour
    # (4) is the highest; seats 0 and 1 are equal in every place and share second.
    assert ended.ranking() == [[2], [0, 1]]
    assert ended.returns() == [3, 3, 4]


def test_view_of_a_position() -> None:
    game = game_after(["D5 D6", "M1 M2"])
    view = game.view(1)
    assert view.seat == 1 and view.to_move == 0 and view.version == 2
    assert list(view.board.items()) == [
        (Hex(4, -9), 0),
        (Hex(5, -9), 0),
        (Hex(-3, 0), 1),
        (Hex(-2, 0), 1),
    ]
    assert view.tiles_left == (19, 19)
    assert view.last_placement == SpezialPlacement(Hex(-3, 0), Hex(-2, 0))
    assert view.towers[D4].dark and view.towers[D4].value == 2
    assert view.scores == ({B: 1, G: 2, O: 0, P: 0}, {B: 0, G: 0, O: 0, P: 0})
    assert view.moves == ("D5 D6", "M1 M2") and not view.over and view.ranking is None
    assert len(view.golden) == 23
    assert game.board_summary() == {h: str(s) for h, s in view.board.items()}
