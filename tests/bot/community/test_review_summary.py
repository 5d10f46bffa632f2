"""What /review says and shows, from a review worked out by hand (bot/community/reviews.py):
the game's three costliest placements as boards, each person's costliest placements and
the swap decisions that differed from the expert's, in the right words."""

from __future__ import annotations

import pytest

from bot.community.reviews import costliest_for, summary
from bot.words.texts import Texts
from engine.review import GameReview, PlacementReview, SeatReview, SwapReview

ZEROS = (0,) * 6


def placement(number: int, seat: int, best_red: int) -> PlacementReview:
    """A placement that scored nothing where the expert's scored ``best_red`` in red
    (every colour at 0 before): it costs ``best_red`` points."""
    return PlacementReview(
        number, seat, seat, f"p{number}", f"b{number}", ZEROS, ZEROS, (best_red, 0, 0, 0, 0, 0)
    )


def hand_review() -> GameReview:
    placements = (
        placement(0, 0, 2),
        placement(1, 1, 4),
        placement(2, 0, 1),
        placement(3, 1, 0),
        placement(4, 0, 5),
    )
    swaps = (
        SwapReview(5, 1, "keep", "swap"),  # Bob kept where swapping was better
        SwapReview(6, 0, "swap", "keep"),  # Ada swapped where keeping was better
        SwapReview(7, 0, "keep", "keep"),
    )
    seats = (
        SeatReview(0, 3, 1, (4, 0), (6,)),
        SeatReview(1, 2, 1, (1,), (5,)),
    )
    lowest = ((0, 0),) * 8
    return GameReview(
        "genial", None, 2, ("R", "G", "B", "O", "Y", "P"), placements, swaps, seats, lowest, 1
    )


def test_the_games_three_costliest_placements_costliest_first() -> None:
    review = hand_review()
    # Costs: move 4: 5, move 1: 4, move 0: 2, move 2: 1, move 3: 0.
    assert [p.number for p in costliest_for(review, None)] == [4, 1, 0]
    assert [p.number for p in costliest_for(review, 0)] == [4, 0]
    assert [p.number for p in costliest_for(review, 1)] == [1]
    # Only two placements cost anything (moves 0 and 1; move 3 cost 0): two boards.
    few = hand_review()
    few = GameReview(
        few.game,
        few.mode,
        few.players,
        few.colours,
        (*few.placements[:2], few.placements[3]),
        few.swaps,
        few.seats,
        few.lowest,
        few.turning_point,
    )
    assert [p.number for p in costliest_for(few, None)] == [1, 0]


def test_the_summary_tells_costs_swaps_and_the_turn() -> None:
    lines = summary(hand_review(), ["Ada", "Bob"], Texts("en"))
    assert lines[1:-1] == [
        "Ada: accuracy 33% (1 of 3 placements)",
        "  move 5: played p4, best b4: 5 points less",
        "  move 1: played p0, best b0: 2 points less",
        "  move 7: swapped where keeping the tiles was better",
        "Bob: accuracy 50% (1 of 2 placements)",
        "  move 2: played p1, best b1: 4 points less",
        "  move 6: kept the tiles where swapping was better",
        "The game turned at move 2, where the winner's lead over the runner-up in the lowest"
        " colour changed most: Bob played p1.",
    ]


def test_a_swap_decision_that_turned_the_game_and_the_closing_note() -> None:
    """Without chances a game that turned at a swap decision (move 6, Bob's) says only
    where; the last line explains accuracy in the lowest-colour sense (with chances: as
    lichess computes it)."""
    from dataclasses import replace

    lines = summary(replace(hand_review(), turning_point=5), ["Ada", "Bob"], Texts("en"))
    assert lines[-2:] == [
        "The game turned at move 6: there the winner's lead over the runner-up in the lowest"
        " colour changed most.",
        "Accuracy: placements within 1 point of the expert's move, counting a colour's points"
        " only up to 6 above the lowest colour.",
    ]


def test_where_the_chance_to_win_fell_most_at_a_swap_decision_and_in_a_team_game() -> None:
    """With chances the turn names whose chance fell, from what to what (per cent, rounded:
    an equal share before the first move); at a swap decision no placement is named; in a
    team game the side is the team."""
    from dataclasses import replace

    # Move 6 (number 5, Bob's swap decision): side 1 fell from 62.5 % to 12.5 %.
    # (Row k: after move number k; 62.5 and 12.5 round to even.)
    chances = ((0.5, 0.5),) * 4 + ((0.375, 0.625),) + ((0.875, 0.125),) * 3
    review = replace(hand_review(), chances=chances, turning_point=5, turned_side=1)
    lines = summary(review, ["Ada", "Bob"], Texts("en"))
    assert lines[-2:] == [
        "The game turned at move 6: Bob's chance to win fell from 62% to 12%.",
        "Accuracy: how little the placements lowered the chance to win against the expert's"
        " best (100% if never), as lichess computes it from winning chances.",
    ]
    team = replace(review, mode="team", players=4)
    lines = summary(team, ["Ada", "Bob", "Cy", "Di"], Texts("en"))
    assert lines[-2] == "The game turned at move 6: Bob & Di's chance to win fell from 62% to 12%."


def test_a_costly_placement_with_chances_names_the_lowest_colours_where_they_differ() -> None:
    from bot.community.reviews import costly_lines

    # 0.75 against 0.5: 25 points lower; the lowest colour 0 after it, 1 after the best.
    p = PlacementReview(
        3, 0, 0, "RR A1 A2", "RG B1 B2", ZEROS, (2, 0, 0, 0, 0, 0), (1, 1, 1, 1, 1, 1),
        chance_played=0.5, chance_best=0.75,
    )  # fmt: skip
    assert costly_lines(p, Texts("en")) == [
        "  move 4: played 🟥🟥 A1 A2, best 🟥🟩 B1 B2: chance to win 25 points lower",
        "    lowest colour 0 instead of 1",
    ]


def test_sides_are_seats_or_the_teams_of_seats_one_and_three_two_and_four() -> None:
    from dataclasses import replace

    from bot.community.reviews import seat_names, side_names

    names = ["Ada", "Bob", "Cy", "Di"]
    en = Texts("en")
    assert side_names(replace(hand_review(), mode="team"), names, en) == ["Ada & Cy", "Bob & Di"]
    assert side_names(hand_review(), names, en) == names
    assert side_names(replace(hand_review(), mode="solo"), ["Ada"], en) == ["Ada"]
    row = {"seats": [{"name": "Ada"}, {"name": ""}, "damaged", {"user": "u-di"}]}
    assert seat_names(row, en) == ["Ada", "Seat 2", "Seat 3", "Seat 4"]
    assert seat_names({}, en) == []


def test_one_line_a_move_with_its_points_and_the_experts() -> None:
    from dataclasses import replace

    from bot.community.reviews import move_lines

    assert move_lines(hand_review(), ["Ada", "Bob"], Texts("en")) == [
        "Ada: p0 (no points); the expert: b0 (+2 red), 2 points more.",
        "Bob: p1 (no points); the expert: b1 (+4 red), 4 points more.",
        "Ada: p2 (no points); the expert: b2 (+1 red), 1 point more.",
        "Bob: p3 (no points); the expert: b3 (no points), no more in the lowest-colour sense.",
        "Ada: p4 (no points); the expert: b4 (+5 red), 5 points more.",
        "Bob: keep; the expert: swap.",
        "Ada: swap; the expert: keep.",
        "Ada: keep, as the expert would.",
    ]
    best = PlacementReview(0, 0, 0, "RG A1 A2", "RG A1 A2", ZEROS, (1, 0, 0, 0, 0, 2), ZEROS)
    same = replace(hand_review(), placements=(best,), swaps=(), lowest=((0, 0),))
    assert move_lines(same, ["Ada", "Bob"], Texts("en")) == [
        "Ada: \U0001f7e5\U0001f7e9 A1 A2 (+1 red, +2 purple), the expert's move too."
    ]


def test_a_genial_move_line_tells_the_chance_to_win_the_played_move_lost() -> None:
    """With chances (Genial) a move's line tells the percentage points of the chance to win
    it lost against the expert's (``round(100 * (best - played))``, never below 0), beside
    both placements' points; a move that loses none says so."""
    from dataclasses import replace

    from bot.community.reviews import move_lines

    before = (2, 1, 1, 1, 1, 1)
    # Move 1 (Ada): +1 red, +2 purple; the expert's +3 red. Chances 0.25 against 0.5:
    # 25 points lower.
    lost = PlacementReview(
        0, 0, 0, "RG A1 A2", "RR B1 B2", before, (3, 1, 1, 1, 1, 3), (5, 1, 1, 1, 1, 1),
        chance_played=0.25, chance_best=0.5,
    )  # fmt: skip
    # Move 2 (Bob): no points against +1 green, and 0.75 against 0.75: no better chance.
    even = PlacementReview(
        1, 1, 1, "OY C1 C2", "GG D1 D2", ZEROS, ZEROS, (0, 1, 0, 0, 0, 0),
        chance_played=0.75, chance_best=0.75,
    )  # fmt: skip
    # Move 3 (Ada): 0.5 against 0.49: the played move's chance is the higher, nothing lost.
    higher = PlacementReview(
        2, 0, 0, "BB E1 E2", "PP F1 F2", ZEROS, (0, 0, 1, 0, 0, 0), ZEROS,
        chance_played=0.5, chance_best=0.49,
    )  # fmt: skip
    review = replace(hand_review(), placements=(lost, even, higher), swaps=(), lowest=((0, 0),) * 3)
    assert move_lines(review, ["Ada", "Bob"], Texts("en")) == [
        "Ada: 🟥🟩 A1 A2 (+1 red, +2 purple); the expert: 🟥🟥 B1 B2"
        " (+3 red); chance to win 25 points lower.",
        "Bob: 🟧🟨 C1 C2 (no points); the expert: 🟩🟩 D1 D2 (+1 green), no better chance to win.",
        "Ada: 🟦🟦 E1 E2 (+1 blue); the expert: 🟪🟪 F1 F2 (no points), no better chance to win.",
    ]


def test_the_chart_reaches_the_top_of_the_games_score_track(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Score tracks go to 18, to 36 in the team and solo games (docs/reliability.md); a
    Genial Spezial chart reaches its highest lowest colour, at least 18."""
    from dataclasses import replace
    from typing import Any

    import render.review
    from bot.community.reviews import chart

    drawn: list[tuple[Any, ...]] = []

    def lowest_chart_png(lines: Any, names: Any, cap: int, title: str = "") -> bytes:
        drawn.append((lines, names, cap, title))
        return b"png"

    monkeypatch.setattr(render.review, "lowest_chart_png", lowest_chart_png)
    en, names = Texts("en"), ["Ada", "Bob", "Cy", "Di"]
    rows = ((1, 0), (3, 2), (4, 5))
    review = replace(hand_review(), lowest=rows)
    picture = chart(review, names, en)
    assert picture is not None and picture.filename == "review-lowest.png"
    assert picture.data == b"png"  # what the renderer drew
    assert drawn[-1] == ([[1, 3, 4], [0, 2, 5]], ["Ada", "Bob"], 18, "Lowest colour")
    chart(replace(review, mode="team"), names, en)
    assert drawn[-1][1:3] == (["Ada & Cy", "Bob & Di"], 36)
    chart(replace(review, mode="solo", lowest=((2,), (7,))), ["Ada"], en)
    assert drawn[-1][:3] == ([[2, 7]], ["Ada"], 36)
    chart(replace(review, game="spezial", lowest=((20, 1), (25, 2))), names, en)
    assert drawn[-1][2] == 25
    chart(replace(review, game="spezial"), names, en)
    assert drawn[-1][2] == 18
    assert chart(replace(review, lowest=()), names, en) is None


def test_the_chances_chart_draws_each_sides_chance_and_marks_where_the_game_turned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Genial review's chart is each side's chance to win in per cent: an equal share
    before the first move, then after every move; the turn is marked at its point, the
    move's number plus one (the first point being the start)."""
    from dataclasses import replace
    from typing import Any

    import render.review
    from bot.community.reviews import chart

    drawn: list[tuple[Any, ...]] = []

    def chances_chart_png(
        lines: Any, names: Any, title: str = "", team: bool = False, turned: Any = None
    ) -> bytes:
        drawn.append((lines, names, title, team, turned))
        return b"png"

    monkeypatch.setattr(render.review, "chances_chart_png", chances_chart_png)
    en, names = Texts("en"), ["Ada", "Bob", "Cy", "Di"]
    # After move 1: 75 % against 25 %; after move 2: 37.5 % against 62.5 %. The game
    # turned at move 2 (number 1, the chart's point 2): Ada's side fell from 75 to 37.5.
    chances = ((0.75, 0.25), (0.375, 0.625))
    review = replace(
        hand_review(), chances=chances, turning_point=1, turned_side=0, lowest=((0, 0),) * 2
    )
    picture = chart(review, names, en)
    assert picture is not None and picture.filename == "review-chances.png"
    assert picture.data == b"png"
    assert drawn[-1] == (
        [[50.0, 75.0, 37.5], [50.0, 25.0, 62.5]], ["Ada", "Bob"], "Chance to win", False, 2
    )  # fmt: skip
    chart(replace(review, mode="team", turning_point=0), names, en)
    assert drawn[-1][1:] == (["Ada & Cy", "Bob & Di"], "Chance to win", True, 1)
    chart(replace(review, turning_point=None, turned_side=None), names, en)
    assert drawn[-1][4] is None


def test_a_costly_placements_board_is_labelled_with_both_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The board before move 3 of a game, with the move played and the expert's outlined
    and labelled "played ..." and "best ..." (the record's notation); a Genial Spezial
    game has no such board."""
    from dataclasses import replace
    from typing import Any

    import render.review
    from bot.community.reviews import board
    from tests.bot.review_fixtures import greedy_game

    drawn: list[tuple[Any, ...]] = []

    def compared_board_png(view: Any, played: Any, best: Any, labels: Any, names: Any) -> bytes:
        drawn.append((view, played, best, labels, names))
        return b"png"

    monkeypatch.setattr(render.review, "compared_board_png", compared_board_png)
    record = greedy_game(players=2)
    third = record.moves[2]
    p = PlacementReview(2, 0, 0, third, third, ZEROS, ZEROS, ZEROS)
    picture = board(record, p, ["Ada", "Bob"], Texts("en"))
    assert picture is not None and picture.filename == "review-003.png"
    (view, played, best, labels, names) = drawn[-1]
    assert labels == (f"played {third}", f"best {third}")
    assert names == ["Ada", "Bob"] and played == best
    # The six symbols printed on the board and the two moves before it, two cells each;
    # a spectator's view, without a rack.
    assert len(view.board) == 6 + 4 and view.seat is None
    assert board(replace(record, game="spezial"), p, ["Ada", "Bob"], Texts("en")) is None
