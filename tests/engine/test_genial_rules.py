"""Scenario tests of the Genial turn flow (RULES.md 2.3–2.9), from explicit draw orders."""

from __future__ import annotations

import pytest

from engine.errors import GameOver, IllegalMove, NotationError, NotYourTurn
from engine.events import (
    BonusEarned,
    BonusLost,
    GameEnded,
    Kept,
    Placed,
    Refilled,
    SwapOffered,
    Swapped,
    TurnStarted,
)
from engine.genial import GenialGame
from engine.hexgrid import Hex
from engine.moves import KEEP, SWAP
from engine.ranking import rank
from engine.tiles import Bag, Colour, Tile, parse_tile

from .helpers import bag_starting_with, new_game, put, skip_first_round

R, G, B, Y, P = (Colour(c) for c in "RGBYP")
ORANGE = Colour.ORANGE


def tiles(*names: str) -> list[Tile]:
    return [parse_tile(n) for n in names]


def kinds(events: list[object]) -> list[str]:
    return [type(e).__name__ for e in events]


# --- setup -------------------------------------------------------------------------------


def test_racks_are_dealt_in_seat_order_from_the_front_of_the_bag() -> None:
    racks = [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]]
    game = new_game(2, racks, then=["OO"])
    assert game.racks[0] == tiles(*racks[0])
    assert game.racks[1] == tiles(*racks[1])
    assert game.bag.order()[0] == parse_tile("OO")
    assert len(game.bag) == 120 - 12


@pytest.mark.parametrize(
    ("players", "mode", "cells", "rack"),
    [
        (1, "solo", 91, 1),
        (2, "standard", 91, 6),
        (3, "standard", 127, 6),
        (4, "standard", 169, 6),
        (4, "team", 169, 6),
    ],
)
def test_setup_per_mode(players: int, mode: str, cells: int, rack: int) -> None:
    game = GenialGame(players, mode, seed=0)
    assert len(game.area) == cells
    assert all(len(r) == rack for r in game.racks)
    # Only the six start symbols are on the board, each in its place (RULES.md 2.2).
    labels = {game.area.label(h): c for h, c in game.board_summary().items()}
    corners = {(0, -5): "R", (5, -5): "G", (5, 0): "B", (0, 5): "O", (-5, 5): "Y", (-5, 0): "P"}
    assert labels == {game.area.label(Hex(*h)): c for h, c in corners.items()}


def test_impossible_setups() -> None:
    with pytest.raises(ValueError):
        GenialGame(3, "team")
    with pytest.raises(ValueError):
        GenialGame(2, "solo")
    with pytest.raises(ValueError):
        GenialGame(5)
    with pytest.raises(ValueError):
        GenialGame(2, bag=tiles("RG") * 120)


# --- first round -------------------------------------------------------------------------


def test_first_round_rule() -> None:
    game = new_game(2, [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    with pytest.raises(IllegalMove) as info:
        game.play_text("RG F6 F7")  # the middle of the board touches no start symbol
    assert info.value.reason == "first_round"
    game.play_text("RG A2 A3")  # A2 touches the red start symbol A1
    # Seat 1 may not use the red start symbol again, even on its other side (B1, B2).
    with pytest.raises(IllegalMove) as info:
        game.play_text("YY B1 C1")
    assert info.value.reason == "first_round"
    game.play_text("YY J1 J2")  # J1 touches the yellow start symbol K1
    # From the second turn on, anything goes.
    game.play_text("BB F6 F7")
    assert game.view().has_placed == (True, True)


def test_first_round_applies_to_each_of_four_team_players() -> None:
    racks = [["RG", "BB", "OY", "PP", "RY", "GB"]] * 2 + [["YY", "RO", "GP", "BO", "RP", "GG"]] * 2
    game = new_game(4, racks, mode="team")
    game.play_text("RG C4 C5")  # next to red (0,-5) = C3 on the 4-player board
    with pytest.raises(IllegalMove) as info:
        game.play_text("BB H8 H9")  # seat 1's first tile, far from every start symbol
    assert info.value.reason == "first_round"


# --- bonus placements --------------------------------------------------------------------


def started(racks: list[list[str]], then: list[str] = ()) -> GenialGame:  # type: ignore[assignment]
    game = new_game(len(racks), racks, then=then)
    skip_first_round(game)
    return game


def test_two_bonuses_from_one_tile_and_no_refill_between() -> None:
    game = started(
        [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]],
        then=["OO", "YP", "BP", "RB"],
    )
    put(game, {(-1, 0): "R", (2, 0): "G"})
    game.scores[0][R.index] = 17
    game.scores[0][G.index] = 17
    events = game.play_text("RG F6 F7")  # +1 red (F5), +1 green (F8): both reach 18
    bonuses = [e for e in events if isinstance(e, BonusEarned)]
    assert [(e.colour, e.mark) for e in bonuses] == [(R, 18), (G, 18)]
    assert game.to_move == 0 and game.awaiting == "place"
    assert len(game.racks[0]) == 5
    events = game.play_text("BB C1 C2")
    assert isinstance(events[0], Placed) and events[0].bonus
    assert game.to_move == 0 and len(game.racks[0]) == 4  # still no refill
    events = game.play_text("OY J1 J2")
    assert kinds(events)[-2:] == ["Refilled", "TurnStarted"]
    refill = next(e for e in events if isinstance(e, Refilled))
    assert refill.drawn == 3
    assert game.racks[0] == tiles("PP", "RY", "GB", "OO", "YP", "BP")
    assert game.to_move == 1


def test_a_chain_of_bonuses() -> None:
    game = started([["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    put(game, {(-1, 0): "R", (-4, 2): "B"})
    game.scores[0][R.index] = 17
    game.scores[0][B.index] = 17
    game.play_text("RG F6 F7")  # red reaches 18: one bonus placement
    events = game.play_text("BB H3 H4")  # H3 = (-3, 2) touches blue at (-4, 2): blue 18
    assert [e.colour for e in events if isinstance(e, BonusEarned)] == [B]
    assert game.to_move == 0 and len(game.racks[0]) == 4
    game.play_text("PP A2 A3")  # the bonus of the bonus; earns nothing
    assert game.to_move == 1


def test_owed_bonus_is_lost_when_the_rack_is_empty() -> None:
    game = started([["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    game.racks[0] = tiles("RG")
    game.bag = Bag(tiles("OO", "YY"))
    put(game, {(-1, 0): "R"})
    game.scores[0][R.index] = 17
    events = game.play_text("RG F6 F7")
    assert BonusLost(0, 1) in events
    assert game.to_move == 1
    assert game.racks[0] == tiles("OO", "YY")  # refilled with what the bag had


# --- swap -------------------------------------------------------------------------------


def test_swap_offered_when_no_tile_shows_a_lowest_colour_ties_included() -> None:
    game = started(
        [["RG", "BB", "OY", "BY", "BO", "BP"], ["YY", "RO", "GP", "BO", "RP", "GG"]],
        then=["GG", "RR", "PP", "OO", "YY", "BB"],
    )
    # After the placement seat 0 has R 0 and G 0 tied lowest (others raised by hand).
    for c in (B, ORANGE, Y, P):
        game.scores[0][c.index] = 3
    events = game.play_text("RG F6 F7")  # scores nothing; rack left: BB OY BY BO BP
    assert events[-1] == SwapOffered(0, (R, G))
    assert game.awaiting == "swap" and game.to_move == 0
    assert game.view(0).awaiting == "swap"
    with pytest.raises(IllegalMove) as info:
        game.play_text("BB A2 A3")
    assert info.value.reason == "swap_pending"
    events = game.play(SWAP)
    assert events[0] == Swapped(0, 5)
    # Returned tiles go to the end in rack order; the new rack is the next six.
    assert game.racks[0] == tiles("GG", "RR", "PP", "OO", "YY", "BB")
    assert game.bag.order()[-5:] == tiles("BB", "OY", "BY", "BO", "BP")
    assert game.moves[-1] == "swap"
    assert game.to_move == 1


def test_no_swap_when_a_tile_shows_one_of_the_tied_lowest_colours() -> None:
    game = started([["RG", "BB", "OY", "GY", "BO", "BP"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    for c in (B, ORANGE, Y, P):
        game.scores[0][c.index] = 3
    events = game.play_text("RG F6 F7")  # GY left on the rack shows green, tied lowest
    assert not any(isinstance(e, SwapOffered) for e in events)
    assert game.to_move == 1


def test_swap_is_judged_after_this_turns_scoring() -> None:
    game = started([["RG", "BB", "OY", "BY", "BO", "BP"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    for c in (B, ORANGE, Y, P):
        game.scores[0][c.index] = 1
    game.scores[0][G.index] = 1
    put(game, {(-1, 0): "R", (-2, 0): "R"})
    # Before: red 0 is lowest. The tile scores red 2, so the lowest become B O Y P G (1),
    # and BB, OY... show them: no swap.
    events = game.play_text("RG F6 F7")
    assert not any(isinstance(e, SwapOffered) for e in events)


def test_keep_and_swap_not_offered() -> None:
    game = started([["RG", "BB", "OY", "BY", "BO", "BP"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    with pytest.raises(IllegalMove) as info:
        game.play(KEEP)
    assert info.value.reason == "swap_not_offered"
    for c in (B, ORANGE, Y, P):
        game.scores[0][c.index] = 3
    game.play_text("RG F6 F7")
    events = game.play_text("keep")
    assert events[0] == Kept(0)
    assert len(game.racks[0]) == 6 and game.to_move == 1


# --- team and solo tracks ----------------------------------------------------------------


def test_team_tracks_stop_at_18_then_36() -> None:
    racks = [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]] * 2
    game = new_game(4, racks, mode="team")
    skip_first_round(game)
    put(game, {(-1, 0): "R", (-2, 0): "R", (-3, 0): "R"})
    game.scores[0][R.index] = 16
    events = game.play_text("RG H8 H9")  # H8 = (0, 0): three red points, 16 -> 18 (1 lost)
    assert game.scores[0][R.index] == 18
    assert [(e.colour, e.mark) for e in events if isinstance(e, BonusEarned)] == [(R, 18)]
    game.play_text("BB A1 A2")  # the bonus placement (no red)
    game.play_text("YY A3 A4")  # seat 1
    # Seat 2 is on team 0: its red counts on the same track, on from 18.
    put(game, {(3, 3): "R", (4, 3): "R"})
    game.scores[0][R.index] = 35
    events = game.play_text("RG K10 K9")  # K10 = (2, 3): red east 2 -> 37, stops at 36
    assert game.scores[0][R.index] == 36
    assert [(e.colour, e.mark) for e in events if isinstance(e, BonusEarned)] == [(R, 36)]
    assert game.to_move == 2 and game.awaiting == "place"
    assert game.scores[1] == [0] * 6


def test_team_track_crossing_18_and_36_at_once_stops_at_18() -> None:
    racks = [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]] * 2
    game = new_game(4, racks, mode="team")
    skip_first_round(game)
    put(game, {(-1, 0): "R", (-2, 0): "R", (-3, 0): "R"})
    game.scores[0][R.index] = 17
    game.play_text("RG H8 H9")
    assert game.scores[0][R.index] == 18


def test_solo_draws_one_places_one_no_bonus_no_swap() -> None:
    game = GenialGame(1, "solo", bag=bag_starting_with(["RG", "RR", "GG"]))
    assert game.racks == [tiles("RG")]
    put(game, {(-1, 0): "R", (-2, 0): "R", (-3, 0): "R"})
    game.has_placed = [True]
    game.scores[0][R.index] = 16
    events = game.play_text("RG F6 F7")  # three red: 16 -> 18, no bonus in solo
    assert game.scores[0][R.index] == 18
    assert not any(isinstance(e, BonusEarned | SwapOffered) for e in events)
    assert game.racks == [tiles("RR")] and game.to_move == 0


# --- end of the game ---------------------------------------------------------------------


def test_immediate_win() -> None:
    game = started([["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    game.scores[0] = [17, 18, 18, 18, 18, 18]
    game.scores[1] = [18, 18, 18, 18, 18, 17]
    put(game, {(-1, 0): "R"})
    events = game.play_text("RG F6 F7")
    assert events[-1] == GameEnded("immediate_win", [[0], [1]], 0)
    assert game.over and game.to_move == 0 and game.view().to_move is None
    with pytest.raises(GameOver):
        game.play_text("BB A2 A3")
    assert game.legal_moves() == []


def test_board_full_ends_the_game_at_once() -> None:
    game = started([["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    # Cover every cell but F6 and F7 (symbols that score nothing next to a tile RG... any).
    for h in game.area.cells:
        if h not in ((0, 0), (1, 0)) and game.area.index[h] not in game.start_cells:
            game.put(h, Colour.YELLOW)
    events = game.play_text("RG F6 F7")
    assert isinstance(events[-1], GameEnded) and events[-1].reason == "board_full"
    assert game.over


def test_out_of_tiles_ends_the_game() -> None:
    game = started([["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    game.bag = Bag([])
    game.racks[1] = []
    events = game.play_text("RG F6 F7")
    assert isinstance(events[-1], GameEnded) and events[-1].reason == "out_of_tiles"


def test_ranking_from_sorted_scores_with_ties() -> None:
    # Side 0 sorted [5, 5, 6, 8, 11, 18]; side 1 [4, 5, 9, 12, 18, 18]: 5 > 4 decides.
    assert rank([[5, 5, 8, 6, 18, 11], [12, 4, 9, 5, 18, 18]]) == [[0], [1]]
    # Equal lowest: the next lowest decides.
    assert rank([[3, 4, 9, 9, 9, 9], [3, 5, 0 + 5, 5, 5, 5]]) == [[1], [0]]
    # Equal lists share a place; the next place follows.
    assert rank([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1], [0, 9, 9, 9, 9, 9]]) == [[0, 1], [2]]
    # An immediate winner ranks first even on equal lists.
    assert rank([[18] * 6, [18] * 6], winner=1) == [[1], [0]]


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("RG A1 A2", "occupied"),  # A1 is the red start symbol
        ("RG F6 F8", "not_adjacent"),
        ("RG F6 F6", "same_cell"),
        ("RG L1 L2", "outside_area"),
        ("YY A2 A3", "tile_not_on_rack"),
        ("RG F6 F7", "first_round"),
        ("swap", "swap_not_offered"),
        ("RX A2 A3", "unknown_colour"),
        ("RG A2", "cannot_parse"),
        ("hello", "cannot_parse"),
    ],
)
def test_rejected_moves_say_why_and_change_nothing(move: str, reason: str) -> None:
    game = new_game(2, [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    before = (game.view(0), game.view(1), game.bag.order(), game.record())
    with pytest.raises((IllegalMove, NotationError)) as info:
        game.play_text(move)
    assert info.value.reason == reason
    assert (game.view(0), game.view(1), game.bag.order(), game.record()) == before


def test_not_your_turn() -> None:
    game = new_game(2, [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    with pytest.raises(NotYourTurn) as info:
        game.play_text("YY J1 J2", seat=1)
    assert info.value.reason == "not_your_turn"


def test_rack_slots_in_chat() -> None:
    game = new_game(2, [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    move = game.parse("1 A2 A3", seat=0)
    assert game.parse("RG A2 A3") == move
    with pytest.raises(NotationError) as info:
        game.parse("7 A2 A3", seat=0)
    assert info.value.reason == "bad_slot"


def test_turn_events_in_order() -> None:
    game = new_game(2, [["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    events = game.play_text("RG A2 A3")
    assert kinds(events) == ["Placed", "Scored", "Refilled", "TurnStarted"]
    assert events[-1] == TurnStarted(1)


def test_placing_again_tells_a_bonus_placement_that_bonus_owed_no_longer_shows() -> None:
    # Issue 48: at the last bonus placement owed, ``bonus_owed`` is already 0.
    game = started([["RG", "BB", "OY", "PP", "RY", "GB"], ["YY", "RO", "GP", "BO", "RP", "GG"]])
    put(game, {(-1, 0): "R"})
    game.scores[0][R.index] = 17
    assert not game.placing_again
    game.play_text("RG F6 F7")  # red reaches 18: one bonus placement
    assert game.to_move == 0 and game.bonus_owed == 0 and game.placing_again
    game.play_text("PP A2 A3")  # the bonus placement, earning nothing: the turn ends
    assert game.to_move == 1 and not game.placing_again
