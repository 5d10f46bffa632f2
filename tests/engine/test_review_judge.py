"""One judge for the review, /hint and the puzzles, and accuracy from the chance to win
(issue 47)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from engine.accuracy import game_accuracy, move_accuracy, volatility
from engine.ai import best_moves, choose_move
from engine.ai.chances import calibrated, chances_after, finished
from engine.genial import GenialGame
from engine.moves import Placement
from engine.notation import format_genial_move
from engine.record import Record, new_game
from engine.review import PlacementReview, review_game, review_move, turn_of_chances

DATA = Path(__file__).parent / "data"


def newcomer() -> Record:
    """A 2-player game (seed 6) where seat 0 played /hint's first placement at every move
    against the expert. At move 25 (index 24) the hint PP D6 E6 completed purple and earned
    a bonus placement, RY D7 E7 (index 25); the review before issue 47 called PP D6 E6 a
    costly placement, "best RY D7 E7: 4 points less", the issue's newcomer case."""
    return Record.from_dict(json.loads((DATA / "newcomer_hints.json").read_text()))


def test_the_newcomer_who_followed_the_hints_made_no_costly_placement() -> None:
    record = newcomer()
    game = new_game(record)
    assert isinstance(game, GenialGame)
    for text in record.moves:  # the record is what /hint said, move by move
        if game.to_move == 0 and game.awaiting == "place":
            hinted = best_moves(game.view(0), 1)[0][0]
            assert isinstance(hinted, Placement)
            assert format_genial_move(hinted.canonical(), game.area) == text
        game.play_text(text)
    assert list(record.moves[24:26]) == ["PP D6 E6", "RY D7 E7"]
    review = review_game(record)
    earned = review.placement(24)
    bonus = review.placement(25)
    assert (earned.seat, bonus.seat) == (0, 0)  # the same seat: a bonus placement
    assert earned.best == "PP D6 E6" and earned.drop == 0 and earned.accurate
    own = [p for p in review.placements if p.seat == 0]
    assert all(p.played == p.best and p.drop == 0 for p in own)
    assert review.seats[0].costliest == ()
    assert review.seats[0].accuracy == 100


def positions(count: int) -> list[tuple[GenialGame, Placement]]:
    """``count`` seeded positions of 2, 3 and 4 players with a placement due, each with a
    random legal placement of the seat to move."""
    found = []
    for seed in range(count):
        players = 2 + seed % 3
        game = GenialGame(players, seed=seed)
        rng = random.Random(seed)
        for n in range(rng.randrange(60)):
            if game.over:
                break
            game.play(choose_move(game.view(game.to_move), "greedy", seed * 100 + n))  # type: ignore[arg-type]
        if game.over or game.awaiting != "place":
            continue
        legal = [m for m in game.legal_moves() if isinstance(m, Placement)]
        found.append((game, rng.choice(legal)))
    return found


def test_the_reviews_best_placement_is_hints_first_in_200_positions() -> None:
    asked = positions(240)[:200]
    assert len(asked) == 200
    for game, played in asked:
        hint = best_moves(game.view(game.to_move), 1)[0][0]
        assert isinstance(hint, Placement)
        review = review_move(game, played, samples=2)
        assert isinstance(review, PlacementReview)
        assert review.best == format_genial_move(hint.canonical(), game.area)
        # Playing the hint itself is never a mistake.
        again = review_move(game, hint, samples=2)
        assert isinstance(again, PlacementReview)
        assert again.played == again.best and again.drop == 0


def test_a_move_that_ends_the_game_has_its_exact_result() -> None:
    record = newcomer()
    game = new_game(record)
    assert isinstance(game, GenialGame)
    for text in record.moves[:-1]:
        game.play_text(text)
    last = game.parse(record.moves[-1], None)
    (after,) = chances_after(game, [last], samples=4)
    assert after == (1.0, 0.0)  # seat 0 won this game (its last move ended it)


def test_calibrated_chances_with_temperature_one_are_the_smoothed_shares() -> None:
    # 30 of 40 play-outs won, smoothed by half a play-out: 30.5 / 41 against 10.5 / 41.
    assert calibrated([30, 10], 40, 1.0) == pytest.approx((30.5 / 41, 10.5 / 41))
    # T = 2 halves the log-odds: sqrt(30.5) : sqrt(10.5).
    a, b = math.sqrt(30.5), math.sqrt(10.5)
    assert calibrated([30, 10], 40, 2.0) == pytest.approx((a / (a + b), b / (a + b)))


def test_a_shared_first_place_shares_the_win() -> None:
    class Over:
        sides = 3

        def ranking(self) -> list[list[int]]:
            return [[0, 2], [1]]

    assert finished(Over()) == (0.5, 0.0, 0.5)  # type: ignore[arg-type]


def test_accuracy_follows_lichess_formula() -> None:
    # No drop: 103.1668 - 3.1669 = 99.9999.
    assert move_accuracy(50, 50) == pytest.approx(99.9999)
    assert move_accuracy(40, 60) == pytest.approx(99.9999)  # better than best: no drop
    # A drop of 10 points: 103.1668 * e^-0.4354 - 3.1669 = 103.1668 * 0.647011 - 3.1669.
    assert move_accuracy(60, 50) == pytest.approx(63.583, abs=0.01)
    assert move_accuracy(100, 0) == 0.0  # below 0: clamped
    # The game: the mean of the weighted mean (75) and the harmonic mean (2 / (1/100 +
    # 1/50) = 66.67).
    assert game_accuracy([100, 50], [1, 1]) == pytest.approx((75 + 200 / 3) / 2)
    # Equal weights of 12 and 0.5: a volatile move counts 24 times as much.
    assert game_accuracy([100, 50], [12, 0.5]) == pytest.approx(((1200 + 25) / 12.5 + 200 / 3) / 2)
    assert game_accuracy([], []) is None


def test_volatility_is_the_windows_deviation_clamped() -> None:
    flat = [50.0] * 30  # window 3 (30 points / 10): no deviation, clamped up to 0.5
    assert volatility(flat, 10) == 0.5
    swing = [50.0] * 28 + [20.0, 80.0]  # the last window 50, 20, 80: sd sqrt(600) = 24.5
    assert volatility(swing, 29) == 12.0  # clamped down to 12
    mild = [50.0] * 27 + [47.0, 50.0, 53.0]  # window 47, 50, 53: sd sqrt(6)
    assert volatility(mild, 29) == pytest.approx(math.sqrt(6))


def test_the_game_turned_where_a_sides_chance_fell_most() -> None:
    # From 50/50: side 1 falls 10 at move 0, side 0 falls 30 at move 1, 5 at move 2.
    chances = [(0.6, 0.4), (0.3, 0.7), (0.25, 0.75)]
    assert turn_of_chances(chances) == (1, 0)
    assert turn_of_chances([(0.5, 0.5)]) is None  # nobody's chance fell
    # Of equal falls the earliest.
    assert turn_of_chances([(0.4, 0.6), (0.5, 0.5), (0.4, 0.6)]) == (0, 0)
