"""The expert's review of a game and the puzzle chooser (engine/review.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.ai import best_moves, choose_move
from engine.cli import main
from engine.genial import GenialGame
from engine.hexgrid import Hex
from engine.moves import Placement
from engine.record import Record, replay
from engine.review import (
    PUZZLE_GAP,
    GameReview,
    PlacementReview,
    find_puzzles,
    lowest_points,
    puzzle_at,
    puzzle_position,
    review_game,
    review_move,
    solves,
    turning_point,
)
from engine.tiles import Colour
from tests.engine.helpers import new_game, put, skip_first_round

P, R, B = Colour.PURPLE, Colour.RED, Colour.BLUE
OTHER_RACK = ["RG", "RG", "BO", "BO", "YY", "YY"]


def winning_position() -> GenialGame:
    """Seat 0 has 18 in every colour but purple (14) and the only purple tile on its rack;
    a purple line of four on row F ends in an empty cell at (1, 0), so a purple there scores
    4 points along the line: 14 + 4 = 18 in every colour, the immediate win."""
    game = new_game(2, [["PP", "RG", "RG", "BO", "BO", "YY"], OTHER_RACK])
    put(game, {(-4, 0): "R", (-3, 0): "P", (-2, 0): "P", (-1, 0): "P", (0, 0): "P"})
    skip_first_round(game)
    game.scores[0] = [18, 18, 18, 18, 18, 14]
    return game


def far_red_green(game: GenialGame) -> Placement:
    # Red and green are full already, so this scores nothing anywhere.
    return Placement(R, Colour.GREEN, Hex(0, 4), Hex(1, 4))


def test_a_placement_that_misses_the_win_costs_the_purple_it_left() -> None:
    game = winning_position()
    review = review_move(game, far_red_green(game))
    assert isinstance(review, PlacementReview)
    assert review.after_played == review.before == (18, 18, 18, 18, 18, 14)
    # The expert takes the win: purple reaches 18.
    assert review.after_best == (18, 18, 18, 18, 18, 18)
    assert review.best.startswith("PP")
    # Lowest colour 14: colours count up to 20, so 6 × 18 against 5 × 18 + 14.
    assert review.cost == 4
    assert review.gained_best == (0, 0, 0, 0, 0, 4)
    # The immediate win is a chance of exactly 1; the other side has scored nothing, so the
    # win only waits a turn: the chance lost rounds to no point and the placement is accurate.
    assert review.chance_best == 1.0
    assert review.drop == 0 and review.accurate


def test_playing_the_first_hint_costs_nothing() -> None:
    game = winning_position()
    best = best_moves(game.view(0), 1)[0][0]
    review = review_move(game, best)
    assert isinstance(review, PlacementReview)
    assert review.played == review.best
    assert review.cost == 0 and review.drop == 0 and review.accurate
    assert review.chance_played == review.chance_best == 1.0  # it wins at once


def test_points_far_above_the_lowest_colour_count_for_nothing() -> None:
    # Lowest colour 2, so colours count up to 8: 15 → 18 in red is worth nothing.
    review = PlacementReview(0, 0, 0, "a", "b", (15, 2, 3, 4, 5, 6), (15, 2, 3, 4, 5, 6),
                             (18, 2, 3, 4, 5, 6))  # fmt: skip
    assert review.cost == 0
    # 2 → 5 in green counts in full (the lowest colour).
    review = PlacementReview(0, 0, 0, "a", "b", (15, 2, 3, 4, 5, 6), (18, 2, 3, 4, 5, 6),
                             (15, 5, 3, 4, 5, 6))  # fmt: skip
    assert review.cost == 3


def test_the_review_sees_only_the_movers_view() -> None:
    game = GenialGame(3, seed=5)
    rng = random.Random(1)
    for _ in range(14):
        game.play(choose_move(game.view(game.to_move), "greedy", rng.randrange(99)))
    seat = game.to_move
    move = choose_move(game.view(seat), "random", 3)
    # The same position with the tiles this seat has not seen dealt elsewhere.
    other = GenialGame.from_view(game.view(seat), random.Random(42))
    assert other.racks != game.racks
    assert review_move(game, move, seed=9) == review_move(other, move, seed=9)


def play(levels: list[str], seed: int) -> Record:
    game = GenialGame(len(levels), seed=seed)
    n = 0
    while not game.over:
        seat = game.to_move
        game.play(choose_move(game.view(seat), levels[seat], seed * 1000 + n))
        n += 1
    return Record.from_dict(game.record())


def test_experts_play_near_perfectly_and_random_players_do_not() -> None:
    experts = review_game(play(["expert", "expert"], 3))
    # (The tests' expert is the quick one of tests/engine/conftest.py.)
    assert all(s.accuracy >= 85 for s in experts.seats)
    randoms = review_game(play(["random", "random"], 3))
    assert all(s.accuracy <= 75 for s in randoms.seats)
    assert min(s.accuracy for s in experts.seats) >= max(s.accuracy for s in randoms.seats) + 10
    # The costliest placements are the seat's own, costliest first, all with a drop in the
    # chance to win.
    for seat in randoms.seats:
        costs = [randoms.placement(n).loss for n in seat.costliest]
        assert len(costs) == 3 and costs == sorted(costs, reverse=True) and costs[-1] > 0
        assert all(randoms.placement(n).seat == seat.seat for n in seat.costliest)


def test_a_four_player_record_is_reviewed_move_by_move(shared: Path) -> None:
    data = json.loads((shared / "examples" / "04-genial-standard-4p.json").read_text())
    # Two play-outs a position: what is counted here does not depend on how many.
    review = review_game(Record.from_dict(data), samples=2)
    decisions = [n for n, m in enumerate(data["moves"]) if m in ("swap", "keep")]
    assert [s.number for s in review.swaps] == decisions
    assert len(review.placements) + len(review.swaps) == len(data["moves"])
    assert len(review.lowest) == len(data["moves"])
    assert sum(s.placements for s in review.seats) == len(data["moves"]) - len(decisions)
    assert GameReview.from_dict(json.loads(json.dumps(review.to_dict()))) == review


def test_theturning_point_is_the_biggest_swing_between_winner_and_runner_up() -> None:
    # Side 1 wins, side 0 is second; margins 0, 0, -1, 2, 1: the swing of 3 at move 3.
    lowest = [(0, 0), (1, 1), (2, 1), (2, 4), (3, 4)]
    assert turning_point([[1], [0]], lowest) == 3
    assert turning_point(None, lowest) is None
    assert turning_point([[0, 1]], lowest) == 3  # a tie: the first two listed


def test_the_command_line_prints_the_review(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(shared / "examples" / "01-genial-standard-2p.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {s["seat"] for s in out["seats"]} == {0, 1}
    assert all(0 <= s["accuracy"] <= 100 for s in out["seats"])
    assert all(p["cost"] >= 0 for p in out["placements"])


def test_the_command_line_rejects_a_bad_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "genial", "players": 2, "moves": ["ZZ A1 A2"]}')
    assert main(["review", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "move 1" in captured.err


# --- the puzzle --------------------------------------------------------------------------


def blue_line(length: int) -> GenialGame:
    """Seat 0's lowest colour is blue (2, every other 10) and its only blue tile is BB. A
    blue line runs along row F from (-3, 0), blocked by red at (-4, 0)."""
    game = new_game(2, [["BB", "RR", "GG", "OO", "YY", "RG"], OTHER_RACK])
    put(game, {(-4, 0): "R"} | {(q, 0): "B" for q in range(-3, -3 + length)})
    skip_first_round(game)
    game.scores[0] = [10, 10, 2, 10, 10, 10]
    return game


def test_a_long_line_makes_a_puzzle_with_the_gap_worked_out_by_hand() -> None:
    game = blue_line(7)  # (-3, 0) to (3, 0)
    puzzle = puzzle_at(game)
    assert puzzle is not None
    # A blue on (4, 0) scores the line (7) and the blue start symbol at (5, 0) (1); every
    # free neighbour of (4, 0) touches one more blue (the line or the start symbol): 9.
    assert puzzle.points == 9 and puzzle.lowest == ("B",) and puzzle.seat == 0
    assert game.area.label(Hex(4, 0)) in puzzle.answer.split()[1:]
    # Elsewhere the best is two cells under (or over) the line touching two blues each: 4.
    assert puzzle.gap == 5
    blue = B
    for partner in (Hex(4, -1), Hex(5, -1), Hex(3, 1), Hex(4, 1)):
        assert solves(game, puzzle, Placement(blue, blue, Hex(4, 0), partner))
    assert not solves(game, puzzle, Placement(blue, blue, Hex(0, 1), Hex(1, 1)))


def test_a_short_line_is_no_puzzle() -> None:
    # A line of four: 4 + 1 at its end against 2 + 2 under it, a gap of 1.
    assert puzzle_at(blue_line(4)) is None


def test_a_puzzle_needs_a_placement_due() -> None:
    game = blue_line(7)
    game.awaiting = "swap"
    assert puzzle_at(game) is None


def test_a_genial_spezial_record_is_reviewed_too(shared: Path) -> None:
    data = json.loads((shared / "examples" / "07-spezial-2p.json").read_text())
    review = review_game(Record.from_dict(data))
    assert review.colours == ("B", "G", "O", "P") and review.swaps == ()
    # No chances in Genial Spezial: the turning point is the lowest colour's.
    assert review.chances is None and review.turned_side is None
    final = replay(Record.from_dict(data))
    assert review.turning_point == turning_point(final.ranking(), review.lowest)
    assert len(review.placements) == len(data["moves"])
    assert all(len(p.before) == 4 and p.cost >= 0 for p in review.placements)
    assert all(p.chance_played is None for p in review.placements)


@pytest.mark.parametrize("players", [2, 4])
def test_a_placements_lowest_points_are_what_playing_it_scores(players: int) -> None:
    # The puzzle search plays each placement quietly; the full play scores the same.
    game = GenialGame(players, seed=players + 70)
    rng = random.Random(players)
    checked = 0
    while not game.over:
        if game.awaiting == "swap":
            game.play(rng.choice(game.legal_moves()))
            continue
        if len(game.cell_order) % 9 == 0:
            side = game.side_of(game.to_move)
            low = min(game.scores[side])
            for p in game.legal_placements()[::7]:
                trial = game.copy()
                trial.play(p)
                after = trial.scores[side]
                scored = sum(
                    a - b for a, b in zip(after, game.scores[side], strict=True) if b == low
                )
                assert lowest_points(game, p) == scored
                checked += 1
        game.play(game.random_placement(rng))
    assert checked > 50


def test_every_puzzle_beats_every_other_placement_by_the_margin() -> None:
    """Issue 44, item 18: each placement of a puzzle position either scores as much as the
    answer (a right answer too) or at least PUZZLE_GAP less, placements sharing a cell with
    the answer included; each placement scored by playing it on a copy. Greedy game 1's
    move 40 was a puzzle (GG F6 G7, 9 in green) while GY G7 H7 scores 6 there."""
    for players, seed in ((3, 1), (2, 7), (2, 8), (3, 4)):
        game = GenialGame(players, seed=seed)
        n = 0
        while not game.over:
            game.play(choose_move(game.view(game.to_move), "greedy", seed * 1000 + n))
            n += 1
        record = Record.from_dict(game.record())
        for found in find_puzzles(record):
            position = puzzle_position(record, found)
            side = position.side_of(position.to_move)
            track = position.scores[side]
            lowest = [i for i, v in enumerate(track) if v == min(track)]
            for p in position.legal_placements():
                trial = position.copy()
                trial.play(p)
                points = sum(trial.scores[side][i] - track[i] for i in lowest)
                assert points == found.points or points <= found.points - PUZZLE_GAP


def test_of_equal_swings_the_turning_point_is_the_earliest() -> None:
    # Side 0 wins, side 1 is second; margins 3, 0, 3: swings of 3 after moves 0, 1 and 2.
    lowest = [(3, 0), (4, 4), (7, 4)]
    assert turning_point([[0], [1]], lowest) == 0
    # A later bigger swing wins over an earlier smaller one: margins 1, 3, -1.
    assert turning_point([[0], [1]], [(1, 0), (3, 0), (3, 4)]) == 2


def _placement(number: int, seat: int, best_red: int) -> PlacementReview:
    """A placement that scored nothing where the expert's scored ``best_red`` in red: its
    cost is ``best_red`` (every colour at 0 before, all within 6 of the lowest)."""
    zeros = (0,) * 6
    return PlacementReview(number, seat, seat, "x", "y", zeros, zeros, (best_red, 0, 0, 0, 0, 0))


def test_a_seats_costliest_are_three_of_cost_above_zero_costliest_first() -> None:
    from engine.review import _seat_review

    placements = [
        _placement(0, 0, 3),
        _placement(1, 1, 4),
        _placement(2, 0, 5),
        _placement(3, 1, 0),  # the expert's own move: no cost
        _placement(4, 0, 1),
        _placement(6, 0, 0),
        _placement(8, 0, 2),
    ]
    assert [p.cost for p in placements] == [3, 4, 5, 0, 1, 0, 2]
    ada = _seat_review(0, placements, ())
    # Costs 5, 3, 2 (the 1 is the fourth); accurate: cost 0 or 1 (moves 4 and 6).
    assert ada.costliest == (2, 0, 8)
    assert (ada.placements, ada.accurate, ada.accuracy) == (5, 2, 40)
    bob = _seat_review(1, placements, ())
    # Bob's move 3 cost nothing: it is no costly placement, though fewer than three are.
    assert bob.costliest == (1,)


def test_a_moves_review_by_default_is_the_experts_with_seed_zero_as_move_zero() -> None:
    """review_move's defaults, as its signature gives them: number 0, the expert, seed 0;
    a number given is the review's."""
    from engine.spezial import SpezialGame

    spezial = SpezialGame(2, seed=3)
    rng = random.Random(2)
    for _ in range(6):
        spezial.play(rng.choice(spezial.legal_moves()))
    move = rng.choice(spezial.legal_moves())
    review = review_move(spezial, move)
    assert review == review_move(spezial, move, number=0, level="expert", seed=0)
    assert review.number == 0
    assert review_move(spezial, move, number=7).number == 7
    genial = GenialGame(2, seed=5)
    for n in range(8):
        genial.play(choose_move(genial.view(genial.to_move), "greedy", n))
    move = choose_move(genial.view(genial.to_move), "random", 3)
    review = review_move(genial, move, samples=24)
    assert review == review_move(genial, move, samples=24, seed=0)
    # The seed is the play-outs' (the chances differ with another): 0 is the default.
    assert review != review_move(genial, move, samples=24, seed=1)
    assert review_move(genial, move, number=5, samples=8).number == 5


def test_a_placement_not_in_the_review_is_a_key_error_naming_it(shared: Path) -> None:
    data = json.loads((shared / "examples" / "07-spezial-2p.json").read_text())
    review = review_game(Record.from_dict(data))
    with pytest.raises(KeyError) as raised:
        review.placement(len(data["moves"]))
    assert raised.value.args == (len(data["moves"]),)


def test_the_turn_of_the_chances_worked_out_by_hand() -> None:
    from engine.review import turn_of_chances

    # Side 0: 50 (an equal share), 60, 30, 35; side 1: 50, 40, 70, 65. The falls: side 1
    # by 10 after move 0, side 0 by 30 after move 1, side 1 by 5 after move 2.
    assert turn_of_chances([(0.6, 0.4), (0.3, 0.7), (0.35, 0.65)]) == (1, 0)
    # A fall of half a point is a fall too: side 0 goes from 50 to 49.5.
    assert turn_of_chances([(0.495, 0.505)]) == (0, 0)
    # Nobody's chance ever fell (all stay at an equal share), or no move: none.
    assert turn_of_chances([(0.5, 0.5), (0.5, 0.5)]) is None
    assert turn_of_chances([]) is None


def test_a_swing_of_one_is_a_turning_point_and_no_swing_is_none() -> None:
    # Side 0 wins, side 1 second: margins 1, 1: the one swing (0 to 1) after move 0.
    assert turning_point([[0], [1]], [(1, 0), (2, 1)]) == 0
    # Margins 0, 0: the lead never changed.
    assert turning_point([[0], [1]], [(0, 0), (1, 1)]) is None


def test_a_placement_that_cost_one_point_is_among_the_costliest() -> None:
    from engine.review import _seat_review

    # Cost above 0 makes a placement costly: 1 counts (and is still accurate).
    ada = _seat_review(0, [_placement(0, 0, 1), _placement(2, 0, 0)], ())
    assert ada.costliest == (0,)
    assert (ada.placements, ada.accurate) == (2, 2)


def _chanced(number: int, best: float, played: float) -> PlacementReview:
    """Seat 0's placement number ``number`` with the chances after the best and the played."""
    zeros = (0,) * 6
    return PlacementReview(number, 0, 0, "x", "y", zeros, zeros, zeros, played, best)


def test_a_seats_game_accuracy_weighs_each_move_by_the_chance_around_it() -> None:
    """Worked by hand from engine/accuracy.py's formulas (lichess's)."""
    import math

    from engine.review import _seat_review

    def accuracy(drop: float) -> float:
        return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))

    # Side 0's chance: 50 (an equal share), then 60, 60, 40, 40 after moves 0 to 3. Five
    # points, so a window of 2: move 0's weight is the spread of 50 and 60 (5), move 2's
    # that of 60 and 40 after it (10).
    chances = [(0.6, 0.4), (0.6, 0.4), (0.4, 0.6), (0.4, 0.6)]
    a0, a2 = accuracy(0), accuracy(20)
    weighted = (a0 * 5 + a2 * 10) / 15
    harmonic = 2 / (1 / a0 + 1 / a2)
    seat = _seat_review(0, [_chanced(0, 0.6, 0.6), _chanced(2, 0.6, 0.4)], (), chances)
    assert seat.score == pytest.approx((weighted + harmonic) / 2, abs=1e-9)
    # A placement of accuracy 0 (from a sure win to a sure loss) counts 0 in the weighted
    # mean and 1 in the harmonic one: (0 + 1) / 2.
    lost = _seat_review(0, [_chanced(0, 1.0, 0.0)], (), [(0.0, 1.0)])
    assert lost.score == pytest.approx(0.5, abs=1e-9)


def test_a_seats_missed_swaps_are_its_own_that_differ_from_the_experts() -> None:
    from engine.review import SwapReview, _seat_review

    swaps = [
        SwapReview(3, 0, "swap", "keep"),
        SwapReview(5, 1, "keep", "swap"),
        SwapReview(7, 0, "keep", "keep"),
    ]
    assert _seat_review(0, [], swaps).swaps_missed == (3,)
    assert _seat_review(1, [], swaps).swaps_missed == (5,)


def test_a_games_review_by_default_is_seeded_with_zero(shared: Path) -> None:
    data = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    record = Record.from_dict({**data, "moves": data["moves"][:3]})  # finished or not
    review = review_game(record, samples=16)
    assert review == review_game(record, samples=16, seed=0)
    # The seed is the play-outs' (another gives other chances): 0 is the default.
    assert review != review_game(record, samples=16, seed=1)


def test_each_move_of_a_games_review_is_seeded_with_the_seed_plus_its_number(
    shared: Path,
) -> None:
    data = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    record = Record.from_dict({**data, "moves": data["moves"][:4]})
    review = review_game(record, samples=16, seed=5)
    before = replay(Record.from_dict({**data, "moves": data["moves"][:2]}))
    assert isinstance(before, GenialGame)
    third = review_move(before, before.parse(data["moves"][2]), number=2, seed=7, samples=16)
    assert review.placement(2) == third
    # The graph keeps each side's chance after each move, to 4 places: the mover's side's
    # is the chance of the placement played.
    assert review.chances is not None and len(review.chances) == 4
    for p in review.placements:
        assert p.chance_played is not None and 0 < p.chance_played < 1
        assert review.chances[p.number][p.side] == round(p.chance_played, 4)
    # The game turned where a side's chance fell most (turn_of_chances, worked by hand above).
    from engine.review import turn_of_chances

    turned = turn_of_chances(review.chances)
    assert turned is not None and (review.turning_point, review.turned_side) == turned
    assert turned[0] != turned[1]  # a move number that is no side's: the two not swapped
    assert review.mode == "standard"


def test_a_swap_decisions_chances_are_played_out_like_a_placements(shared: Path) -> None:
    """Example 01's move 17 is a swap: the chances after it are played out like a
    placement's, over the review's samples and seeded with the seed plus its number."""
    from engine.ai.chances import chances_after

    data = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    assert data["moves"][17] == "swap"
    review = review_game(Record.from_dict({**data, "moves": data["moves"][:18]}), samples=8, seed=5)
    before = replay(Record.from_dict({**data, "moves": data["moves"][:17]}))
    assert isinstance(before, GenialGame)
    (after,) = chances_after(before, [before.parse("swap")], 8, 5 + 17)
    assert review.chances is not None
    assert review.chances[17] == tuple(round(c, 4) for c in after)


def test_a_solo_games_review_has_the_six_colours_and_the_solo_mode(shared: Path) -> None:
    data = json.loads((shared / "examples" / "06-genial-solo-1p.json").read_text())
    review = review_game(Record.from_dict({**data, "moves": data["moves"][:2]}), samples=8)
    assert review.mode == "solo" and review.players == 1
    assert sorted(review.colours) == ["B", "G", "O", "P", "R", "Y"]


def test_a_record_without_moves_has_no_turning_point(shared: Path) -> None:
    data = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    review = review_game(Record.from_dict({**data, "moves": []}), samples=8)
    assert (review.placements, review.chances, review.turning_point) == ((), (), None)
    assert review.turned_side is None


def test_the_best_placements_chance_is_the_same_played_or_compared() -> None:
    """Every placement is played out over the same deals (the samples and the seed asked):
    the judge's first placement, played, has the chance it has as the best beside another
    placement played."""
    from engine.ai.judge import judge

    genial = GenialGame(2, seed=5)
    for n in range(8):
        genial.play(choose_move(genial.view(genial.to_move), "greedy", n))
    best = judge(genial.view(genial.to_move))[0].placement
    other = choose_move(genial.view(genial.to_move), "random", 3)
    played = review_move(genial, best, samples=24, seed=7)
    compared = review_move(genial, other, samples=24, seed=7)
    assert played.played == played.best == compared.best != compared.played
    assert played.chance_played == played.chance_best == compared.chance_best


def test_a_genial_spezial_move_that_is_the_experts_is_its_own_best() -> None:
    """Genial Spezial: the expert's own move played is the best, and cost nothing."""
    from engine.spezial import SpezialGame

    spezial = SpezialGame(2, seed=3)
    rng = random.Random(2)
    for _ in range(6):
        spezial.play(rng.choice(spezial.legal_moves()))
    move = choose_move(spezial.view(spezial.to_move), "expert", 4)
    review = review_move(spezial, move, seed=4)
    assert review.best == review.played and review.after_best == review.after_played
    assert review.cost == 0 and review.chance_played is None


def test_reviews_without_chances_or_a_turning_point_read_back_from_their_json(
    shared: Path,
) -> None:
    """A review is stored as its JSON: a Genial Spezial review (no chances anywhere, no
    turned side) and one of a record without moves (no turning point) read back whole."""
    spezial = json.loads((shared / "examples" / "07-spezial-2p.json").read_text())
    review = review_game(Record.from_dict({**spezial, "moves": spezial["moves"][:4]}))
    assert review.chances is None and review.turned_side is None
    assert [p.chance_played for p in review.placements] == [None] * 4
    assert GameReview.from_dict(json.loads(json.dumps(review.to_dict()))) == review
    genial = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    empty = review_game(Record.from_dict({**genial, "moves": []}), samples=8)
    assert (empty.turning_point, empty.turned_side) == (None, None)
    assert GameReview.from_dict(json.loads(json.dumps(empty.to_dict()))) == empty
