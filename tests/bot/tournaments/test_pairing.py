"""Pairings and standings against rounds worked out by hand (bot/tournaments/pairing.py)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from bot.tournaments.pairing import (
    Result,
    order,
    places_from_scores,
    round_robin,
    standings,
    swiss_pairs,
    swiss_tables,
    table_sizes,
)


def win(a: str, b: str) -> Result:
    return Result((a, b), (1, 2))


def draw(a: str, b: str) -> Result:
    return Result((a, b), (1, 1))


def test_points_at_tables_of_two_three_and_four() -> None:
    four = Result(("A", "B", "C", "D"), (1, 2, 3, 4))
    assert [four.points(p) for p in "ABCD"] == [1, F(2, 3), F(1, 3), 0]
    tied = Result(("A", "B", "C"), (1, 1, 3))
    assert [tied.points(p) for p in "ABC"] == [F(3, 4), F(3, 4), 0]
    assert win("A", "B").points("A") == 1 and win("A", "B").points("B") == 0
    assert draw("A", "B").points("B") == F(1, 2)


def test_places_from_scores_share_ties() -> None:
    assert places_from_scores([7, 9, 7, 3]) == (2, 1, 2, 4)


def test_tie_breaks_on_a_hand_worked_table() -> None:
    # A beats B, C draws D; A beats C, B beats D; D beats A, B beats C; E has three byes.
    results = [
        win("A", "B"),
        draw("C", "D"),
        win("A", "C"),
        win("B", "D"),
        win("D", "A"),
        win("B", "C"),
    ]
    lines = standings(["A", "B", "C", "D"], results, [])
    got = {x.player: (x.rank, x.points, x.buchholz, x.sonneborn) for x in lines}
    # Points A 2, B 2, C 1/2, D 3/2. Buchholz: A 2+1/2+3/2 = 4, B 2+3/2+1/2 = 4,
    # C 3/2+2+2 = 11/2, D 1/2+2+2 = 9/2. Sonneborn-Berger: A 2 + 1/2 = 5/2, B 3/2 + 1/2 = 2,
    # C half of D's 3/2 = 3/4, D half of C's 1/2 + A's 2 = 9/4.
    assert got == {
        "A": (1, 2, 4, F(5, 2)),
        "B": (2, 2, 4, 2),
        "D": (3, F(3, 2), F(9, 2), F(9, 4)),
        "C": (4, F(1, 2), F(11, 2), F(3, 4)),
    }
    assert [x.player for x in lines] == ["A", "B", "D", "C"]


def test_a_bye_scores_a_win_and_no_tie_break() -> None:
    lines = standings(["A", "B", "E"], [win("A", "B")], ["E"])
    got = {x.player: (x.rank, x.points, x.buchholz, x.sonneborn, x.byes) for x in lines}
    # A and E both 1 point; A's Buchholz is B's 0, E's nothing: equal, one shared rank.
    assert got["A"] == (1, 1, 0, 0, 0)
    assert got["E"] == (1, 1, 0, 0, 1)
    assert got["B"] == (3, 0, 1, 0, 0)


def test_tie_breaks_at_tables_of_three() -> None:
    results = [
        Result(("A", "B", "C"), (1, 2, 3)),
        Result(("D", "E", "F"), (1, 2, 3)),
        Result(("A", "D", "B"), (2, 1, 3)),
        Result(("C", "E", "F"), (1, 1, 3)),
    ]
    lines = {x.player: x for x in standings(list("ABCDEF"), results, [])}
    # A: 1 + 1/2; B: 1/2 + 0; C: 0 + 3/4; D: 1 + 1; E: 1/2 + 3/4; F: 0.
    assert [lines[p].points for p in "ABCDEF"] == [F(3, 2), F(1, 2), F(3, 4), 2, F(5, 4), 0]
    # A's Buchholz: the average of B and C (5/8), then of D and B (5/4).
    assert lines["A"].buchholz == F(15, 8)
    # A's Sonneborn-Berger: (1 x 1/2 + 1 x 3/4) / 2, then (0 x 2 + 1 x 1/2) / 2.
    assert lines["A"].sonneborn == F(7, 8)
    assert lines["D"].rank == 1 and lines["F"].rank == 6


def test_monrad_round_one_and_two_by_hand() -> None:
    field = list("ABCDEFGH")  # rated A highest
    rating = {p: 2000 - 10 * i for i, p in enumerate(field)}
    pairs, bye = swiss_pairs(order(field, [], [], rating), [], [])
    assert pairs == [("A", "B"), ("C", "D"), ("E", "F"), ("G", "H")] and bye is None
    results = [win(a, b) for a, b in pairs]
    pairs, bye = swiss_pairs(order(field, results, [], rating), results, [])
    # Winners A, C, E, G pair among themselves by rating, then the losers; both of each
    # pair sat first equally often (A and C once, B and D never): the higher-ranked first.
    assert pairs == [("A", "C"), ("E", "G"), ("B", "D"), ("F", "H")]


def test_backtracking_avoids_the_repeat_greedy_pairing_would_make() -> None:
    results = [win("C", "D")]
    pairs, _ = swiss_pairs(["A", "B", "C", "D"], results, [])
    # A with B would leave C and D, who met: A plays C, B plays D.
    assert pairs == [("A", "C"), ("B", "D")]


def test_a_repeat_only_when_none_can_be_avoided() -> None:
    results = [win("A", "B"), win("C", "D"), win("A", "C"), win("B", "D"), win("A", "D")]
    pairs, _ = swiss_pairs(["A", "B", "C", "D"], results, [])
    # A has met everyone: one repeat at least; B-C have not met, so the one repeat is A-D.
    assert sorted(map(sorted, pairs)) == [["A", "D"], ["B", "C"]]


@pytest.mark.parametrize("winner", ["first", "higher", "lower"])
def test_five_rounds_of_eight_never_repeat_a_pairing(winner: str) -> None:
    field = list("ABCDEFGH")
    rating = {p: 2000 - 10 * i for i, p in enumerate(field)}
    results: list[Result] = []
    for _ in range(5):
        pairs, bye = swiss_pairs(order(field, results, [], rating), results, [])
        assert bye is None and len(pairs) == 4
        assert sorted(itertools.chain(*pairs)) == field
        for a, b in pairs:
            if winner == "first":
                results.append(win(a, b))
            else:
                hi, lo = sorted((a, b), key=field.index)
                results.append(win(hi, lo) if winner == "higher" else win(lo, hi))
    met = [frozenset(r.players) for r in results]
    assert len(met) == 20 and len(set(met)) == 20


@pytest.mark.parametrize("n", [5, 7])
def test_byes_go_to_different_players(n: int) -> None:
    field = [chr(ord("A") + i) for i in range(n)]
    results: list[Result] = []
    byes: list[str] = []
    for r in range(5):
        ranked = order(field, results, byes, {})
        pairs, bye = swiss_pairs(ranked, results, byes)
        assert bye is not None
        if r == 0:
            assert bye == field[-1]  # the lowest-ranked
        byes.append(bye)
        results += [win(a, b) for a, b in pairs]
    assert len(set(byes)) == 5


@pytest.mark.parametrize(
    ("n", "size", "sizes", "byes"),
    [
        (8, 4, [4, 4], 0),
        (9, 4, [3, 3, 3], 0),
        (10, 4, [4, 3, 3], 0),
        (7, 3, [4, 3], 0),
        (6, 4, [3, 3], 0),
        (5, 4, [4], 1),
        (5, 3, [4], 1),
        (2, 3, [], 2),
    ],
)
def test_table_sizes(n: int, size: int, sizes: list[int], byes: int) -> None:
    assert table_sizes(n, size) == (sizes, byes)


def test_tables_of_four_by_score_groups() -> None:
    field = list("ABCDEFGH")
    rating = {p: 2000 - 10 * i for i, p in enumerate(field)}
    tables, byes = swiss_tables(order(field, [], [], rating), [], [], 4)
    assert tables == [("A", "B", "C", "D"), ("E", "F", "G", "H")] and byes == []
    results = [Result(t, (1, 2, 3, 4)) for t in tables]
    tables, byes = swiss_tables(order(field, results, [], rating), results, [], 4)
    # Order by points: A E (1), B F (2/3), C G (1/3), D H (0). Every candidate met A or E:
    # the first who met fewest joins, so the two winners and two seconds sit together.
    assert [set(t) for t in tables] == [set("AEBF"), set("CGDH")]
    # Those who sat first in round one (A, E, C... the heads) sit later now.
    assert tables[0][:2] == ("B", "F")


def test_tables_of_three_give_a_bye_to_the_lowest() -> None:
    tables, byes = swiss_tables(list("ABCDE"), [], [], 3)
    assert tables == [("A", "B", "C", "D")] and byes == ["E"]


@pytest.mark.parametrize("n", [4, 5, 6])
def test_round_robin_pairs_everyone_once(n: int) -> None:
    field = [chr(ord("A") + i) for i in range(n)]
    rounds = round_robin(field)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset(p) for r, _ in rounds for p in r]
    assert len(pairs) == n * (n - 1) // 2 == len(set(pairs))
    byes = [bye for _, bye in rounds if bye is not None]
    assert sorted(byes) == (field if n % 2 else [])


def test_a_repeat_left_at_the_last_table_is_swapped_away_between_neighbours() -> None:
    # D and E met: the greedy fill seats A B C, leaving D E F together. Swapping the
    # nearest in rank across the two tables (C and D) leaves nobody who met.
    tables, byes = swiss_tables(list("ABCDEF"), [Result(("D", "E"), (1, 2))], [], 3)
    assert [set(t) for t in tables] == [set("ABD"), set("CEF")] and byes == []
