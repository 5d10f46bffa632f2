"""Ratings: updates checked against Weng & Lin's Plackett–Luce formulas worked out by hand,
ties, computer levels, people who left, solo and aborted games, and a rebuild from the
records that equals the ladder kept game by game.

The expected numbers come from the paper's Algorithm 4 (as openskill documents it) for
players who all start at openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
(tau is added to sigma in quadrature before the game).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from bot.community.ratings import (
    GLOBAL,
    Ladder,
    RatedGame,
    SeatResult,
    Standing,
    computer_key,
    from_table,
    ladder_scope,
    points,
    rebuild,
)
from bot.core.table import Options, Seat, Table

MU = 25.0
SIGMA = 25.0 / 3
BETA = 25.0 / 6
TAU = 25.0 / 300
# The prior's variance once tau is added, before any game: (25/3)^2 + (25/300)^2.
S2 = SIGMA**2 + TAU**2


def two_sides_equal(per_side: int) -> tuple[float, float, float]:
    """Weng & Lin Algorithm 4 for two sides of ``per_side`` newcomers each, one winning:
    the winner's and the loser's new mu, and everybody's new sigma.

    Both sides are equally strong, so every probability of being ranked first among the
    remaining sides is 1/2: the winner's Omega is 1/2 and Delta 1/4 (one term); the loser's
    Omega is -1/2 and Delta 1/4 (the winner's term; its own term, p = 1, adds nothing).
    Each player takes sigma_i^2 / sigma_team^2 of the side's change.
    """
    team_var = per_side * S2
    c = math.sqrt(2 * (team_var + BETA**2))
    omega = 0.5 * team_var / c
    gamma = math.sqrt(team_var) / c
    delta = 0.25 * team_var / c**2 * gamma
    share = S2 / team_var
    sigma = math.sqrt(S2) * math.sqrt(1 - share * delta)
    return MU + share * omega, MU - share * omega, sigma


def seat(player: str, side: int, place: int, lowest: int = 10, left: bool = False) -> SeatResult:
    return SeatResult(player, side, place, lowest, left)


def game(*seats: SeatResult, chat: str = "g1", at: float = 1.0, mode: str = "standard",
         kind: str = "genial") -> RatedGame:  # fmt: skip
    return RatedGame(chat, kind, mode, at, tuple(seats))


def test_the_hand_worked_numbers_themselves() -> None:
    # The formula above, evaluated by hand once: c^2 = 2 * (69.4514 + 17.3611) = 173.625,
    # Omega * sigma^2 / c = 0.5 * 69.4514 / 13.1767 = 2.6354;
    # Delta = 0.25 * 0.4 * (8.3338 / 13.1767) = 0.063246, sigma = 8.3338 * sqrt(0.93675).
    win, lose, sigma = two_sides_equal(1)
    assert win == pytest.approx(27.6354, abs=1e-4)
    assert lose == pytest.approx(22.3646, abs=1e-4)
    assert sigma == pytest.approx(8.0659, abs=1e-4)


def test_a_two_player_game() -> None:
    ladder = rebuild([game(seat("ann", 0, 1, 12), seat("bob", 1, 2, 7))])
    win, lose, sigma = two_sides_equal(1)
    ann = ladder.standing("ann", "genial", "g1")
    bob = ladder.standing("bob", "genial", "g1")
    assert ann is not None and bob is not None
    assert (ann.mu, ann.sigma) == pytest.approx((win, sigma))
    assert (bob.mu, bob.sigma) == pytest.approx((lose, sigma))
    assert (ann.games, ann.wins, ann.best, bob.games, bob.wins, bob.best) == (1, 1, 12, 1, 0, 7)
    # Shown conservatively: 1000 + 25 * (27.6354 - 3 * 8.0659) = 1085.94 -> 1086.
    assert ann.points == 1086
    assert bob.points == round(1000 + 25 * (lose - 3 * sigma)) == 954


def test_a_team_game_rates_the_two_teams() -> None:
    # Seats 1+3 (side 0) beat seats 2+4 (side 1).
    ladder = rebuild(
        [
            game(
                seat("ann", 0, 1), seat("bob", 1, 2), seat("cat", 0, 1), seat("dan", 1, 2),
                mode="team",
            )
        ]
    )  # fmt: skip
    win, lose, sigma = two_sides_equal(2)
    # By hand: team variance 138.9028, c = sqrt(312.5278) = 17.6784, each player gets half
    # of Omega = 0.5 * 138.9028 / 17.6784 = 3.9287; Delta = 0.25 * 0.44444 * 0.66667.
    assert win == pytest.approx(26.9643, abs=1e-4)
    assert sigma == pytest.approx(8.3338 * math.sqrt(1 - 0.5 * 0.0740741), abs=1e-4)
    for name, mu in (("ann", win), ("cat", win), ("bob", lose), ("dan", lose)):
        s = ladder.standing(name, "genial", "g1")
        assert s is not None
        assert (s.mu, s.sigma) == pytest.approx((mu, sigma)), name
    assert [s.player for s in ladder.top("genial", "g1")][:2] == ["ann", "cat"]


def test_a_tie_between_equals_moves_no_mean() -> None:
    # Both share first place: each one's Omega is (1 - 1/2)/2 - (1/2)/2 = 0, and Delta is
    # (1/4)/2 + (1/4)/2 = 1/4, as for the winner of a decided game.
    ladder = rebuild([game(seat("ann", 0, 1), seat("bob", 1, 1))])
    _, _, sigma = two_sides_equal(1)
    for name in ("ann", "bob"):
        s = ladder.standing(name, "genial", "g1")
        assert s is not None
        assert (s.mu, s.sigma) == pytest.approx((MU, sigma))
        assert s.wins == 1  # a shared first place is a win


def test_a_tie_for_second_in_three() -> None:
    ladder = rebuild([game(seat("ann", 0, 1), seat("bob", 1, 2), seat("cat", 2, 2))])
    ann, bob, cat = (ladder.standing(p, "genial", "g1") for p in ("ann", "bob", "cat"))
    assert ann is not None and bob is not None and cat is not None
    assert bob.mu == pytest.approx(cat.mu)  # tied, so equal
    assert ann.mu > MU > bob.mu


def test_computer_levels_are_rated_players() -> None:
    easy, hard = computer_key("easy"), computer_key("hard")
    ladder = rebuild(
        [
            game(seat("ann", 0, 1), seat(easy, 1, 2), at=1),
            game(seat(hard, 0, 1), seat("ann", 1, 2), at=2),
        ]
    )
    board = {s.player: s for s in ladder.top("genial", "g1")}
    assert set(board) == {"ann", easy, hard}
    assert board[easy].computer and not board["ann"].computer
    assert (board[easy].games, board[easy].wins, board[hard].wins) == (1, 0, 1)
    assert board[easy].mu < MU < board[hard].mu
    assert [s.player for s in ladder.top("genial", "g1", computers=False)] == ["ann"]


def test_a_game_of_computers_alone_is_not_rated() -> None:
    ladder = rebuild([game(seat(computer_key("easy"), 0, 1), seat(computer_key("hard"), 1, 2))])
    assert ladder.top("genial", "g1") == []


def test_a_person_who_left_loses_whatever_the_seat_reached() -> None:
    # Cat's seat came first, finished by a computer after she left: she is rated last,
    # below both who stayed, and as she would be had her seat come last outright.
    left = rebuild([game(seat("ann", 0, 2), seat("bob", 1, 3), seat("cat", 2, 1, left=True))])
    last = rebuild([game(seat("ann", 0, 1), seat("bob", 1, 2), seat("cat", 2, 3))])
    cat = left.standing("cat", "genial", "g1")
    assert cat is not None and cat.wins == 0 and cat.games == 1
    for name in ("ann", "bob", "cat"):
        a, b = left.standing(name, "genial", "g1"), last.standing(name, "genial", "g1")
        assert a is not None and b is not None
        assert (a.mu, a.sigma) == pytest.approx((b.mu, b.sigma)), name
    assert cat.mu < MU


def test_a_two_player_game_left_is_a_win_for_the_other() -> None:
    ladder = rebuild([game(seat("ann", 0, 1, left=True), seat("bob", 1, 2))])
    win, lose, _ = two_sides_equal(1)
    ann, bob = ladder.standing("ann", "genial", "g1"), ladder.standing("bob", "genial", "g1")
    assert ann is not None and bob is not None
    assert (ann.mu, bob.mu) == pytest.approx((lose, win))
    assert (ann.wins, bob.wins) == (0, 1)


def test_solo_games_are_personal_bests_not_ratings() -> None:
    ladder = rebuild(
        [
            game(seat("ann", 0, 1, 14), mode="solo", at=1),
            game(seat("ann", 0, 1, 21), mode="solo", at=2),
            game(seat("ann", 0, 1, 9), mode="solo", at=3),
        ]
    )
    assert ladder.top("genial", "g1") == [] and ladder.top("genial") == []
    best = ladder.solo_best("ann", "g1")
    assert best is not None and (best.games, best.best) == (3, 21)
    assert ladder.solo_best("ann") == best  # global too


def test_a_solo_game_left_is_no_personal_best() -> None:
    """A person who leaves a solo game hands it to a computer: its result (21 here) is the
    computer's, so the best stays the 14 Ann made herself, in one game."""
    ladder = rebuild(
        [
            game(seat("ann", 0, 1, 14), mode="solo", at=1),
            game(seat("ann", 0, 1, 21, left=True), mode="solo", at=2),
        ]
    )
    best = ladder.solo_best("ann", "g1")
    assert best is not None and (best.games, best.best) == (1, 14)


def test_ratings_per_chat_and_global_and_per_game() -> None:
    ladder = rebuild(
        [
            game(seat("ann", 0, 1), seat("bob", 1, 2), chat="g1", at=1),
            game(seat("ann", 0, 2), seat("cat", 1, 1), chat="g2", at=2),
            game(seat("bob", 0, 1), seat("cat", 1, 2), chat="g2", at=3, kind="spezial"),
        ]
    )
    assert {s.player for s in ladder.top("genial", "g1")} == {"ann", "bob"}
    assert {s.player for s in ladder.top("genial", "g2")} == {"ann", "cat"}
    assert {s.player for s in ladder.top("genial", GLOBAL)} == {"ann", "bob", "cat"}
    assert {s.player for s in ladder.top("spezial")} == {"bob", "cat"}
    ann = ladder.standing("ann", "genial")
    assert ann is not None and (ann.games, ann.wins) == (2, 1)
    # In g1 ann played once and won: exactly the hand-worked first game.
    ann1 = ladder.standing("ann", "genial", "g1")
    assert ann1 is not None and ann1.mu == pytest.approx(two_sides_equal(1)[0])
    assert len(ladder.history("ann", "genial")) == 2
    assert ladder.history("ann", "genial", "g1") == [1086]


def test_the_shown_number() -> None:
    assert points(MU, SIGMA) == 1000  # a newcomer
    assert points(25.0, 1.0) == 1550  # average and settled
    assert points(30.0, 2.0) == 1600


def _random_games(n: int, seed: int) -> list[RatedGame]:
    rng = random.Random(seed)
    people = ["ann", "bob", "cat", "dan", "eve"]
    out = []
    for k in range(n):
        mode = rng.choice(["standard", "standard", "team", "solo"])
        count = {"standard": rng.randint(2, 4), "team": 4, "solo": 1}[mode]
        players = rng.sample([*people, computer_key("easy"), computer_key("hard")], count)
        sides = count if mode != "team" else 2
        order = list(range(sides))
        rng.shuffle(order)
        seats = tuple(
            SeatResult(p, i % 2 if mode == "team" else i, order[i % sides] + 1,
                       rng.randint(0, 18), left=rng.random() < 0.1 and mode != "solo")
            for i, p in enumerate(players)
        )  # fmt: skip
        kind = "genial" if mode != "standard" or rng.random() < 0.7 else "spezial"
        out.append(RatedGame(rng.choice(["g1", "g2"]), kind, mode, 1000.0 + k, seats))
    return out


def test_rebuild_equals_the_ladder_kept_game_by_game() -> None:
    games = _random_games(60, seed=5)
    kept = Ladder()
    for g in games:
        kept.apply(g)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)  # as a store may list them
    rebuilt = rebuild(shuffled)
    assert rebuilt == kept
    assert rebuilt.top("genial") and rebuilt.solo  # the games did rate something
    assert rebuild(games[:30]) != kept


# --- from a stored table -------------------------------------------------------------------


def _record(shared: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((shared / "examples" / f"{name}.json").read_text())
    return data


def _table(record: dict[str, Any], seats: list[Seat], team: bool = False) -> dict[str, Any]:
    options = Options(team=team)
    return Table("g1", status="playing", seats=seats, options=options, record=record).to_dict()


def test_from_a_finished_two_player_table(shared: Path) -> None:
    # RECORD.md's expected result for example 01: seat 1 wins, 5 against 4 in the lowest
    # colour.
    table = _table(
        _record(shared, "01-genial-standard-2p"),
        [Seat("Ann", user="u1"), Seat("Easy", level="easy")],
    )
    rated = from_table(table, finished_at=50.0)
    assert rated == RatedGame(
        "g1", "genial", "standard", 50.0,
        (SeatResult("u1", 0, 1, 5), SeatResult("computer:easy", 1, 2, 4)),
    )  # fmt: skip


def test_from_a_finished_team_table_with_a_seat_left(shared: Path) -> None:
    # Example 05: team 2 (seats 2 and 4) wins 16 to 13. Seat 4's person left.
    seats = [
        Seat("Ann", user="u1"),
        Seat("Bob", user="u2"),
        Seat("Cat", user="u3"),
        Seat("Dan", level="hard", left=True),
    ]
    table = _table(_record(shared, "05-genial-team-4p"), seats, team=True)
    rated = from_table(table, 9.0, left_by={3: "u4"})
    assert rated is not None and rated.mode == "team"
    assert rated.seats == (
        SeatResult("u1", 0, 2, 13),
        SeatResult("u2", 1, 1, 16),
        SeatResult("u3", 0, 2, 13),
        SeatResult("u4", 1, 1, 16, left=True),
    )
    # Dan's team won, but Dan left: Bob's win is Bob's alone.
    ladder = rebuild([rated])
    assert {s.player for s in ladder.top("genial", "g1") if s.wins} == {"u2"}
    # Without knowing who left, the seat is rated for nobody (not for the computer).
    unknown = from_table(table, 9.0)
    assert unknown is not None and [s.player for s in unknown.seats] == ["u1", "u2", "u3"]


def test_aborted_and_empty_tables_are_not_rated(shared: Path) -> None:
    record = _record(shared, "01-genial-standard-2p")
    record["moves"] = record["moves"][:20]  # stopped by /abort
    seats = [Seat("Ann", user="u1"), Seat("Bob", user="u2")]
    assert from_table(_table(record, seats), 1.0) is None
    assert from_table(_table(_record(shared, "01-genial-standard-2p"), seats) | {"record": None},
                      1.0) is None  # fmt: skip


def test_a_solo_table_is_a_personal_best(shared: Path) -> None:
    # Example 06's lowest colour at the end, from its expected.json (11).
    expected = json.loads((shared / "examples" / "06-genial-solo-1p.expected.json").read_text())
    lowest = min(expected["scores"][0].values())
    rated = from_table(_table(_record(shared, "06-genial-solo-1p"), [Seat("Ann", user="u1")]), 3.0)
    assert rated is not None and rated.mode == "solo" and not rated.rated
    ladder = rebuild([rated])
    assert ladder.top("genial") == []
    best = ladder.solo_best("u1", "g1")
    assert best is not None and best.best == lowest


def test_seats_must_match_the_record(shared: Path) -> None:
    table = _table(_record(shared, "01-genial-standard-2p"), [Seat("Ann", user="u1")])
    with pytest.raises(ValueError, match="1 seats for a game of 2 players"):
        from_table(table, 1.0)


def test_one_level_at_two_seats_takes_the_mean_of_its_seats() -> None:
    easy = computer_key("easy")
    both = rebuild([game(seat("ann", 0, 1), seat(easy, 1, 2), seat(easy, 2, 3))])
    apart = rebuild([game(seat("ann", 0, 1), seat("e2", 1, 2), seat("e3", 2, 3))])
    s = both.standing(easy, "genial", "g1")
    second, third = apart.standing("e2", "genial", "g1"), apart.standing("e3", "genial", "g1")
    assert s is not None and second is not None and third is not None
    assert s.mu == pytest.approx((second.mu + third.mu) / 2)
    assert third.mu < s.mu < second.mu
    assert (s.games, s.wins) == (1, 0)  # one game, however many seats


# --- worked cases from Weng & Lin's Algorithm 4, arithmetic written out ------------------
#
# The model (bot/community/ratings.py): openskill's Plackett-Luce, mu 25, sigma 25/3, beta 25/6, tau
# 25/300. For teams q with sigma_q^2 (tau^2 added to each player's variance first) and
# ranks r(q):
#   c = sqrt(sum_q (sigma_q^2 + beta^2)),  C_q = {s : r(s) >= r(q)},
#   p_{i,q} = exp(mu_i / c) / sum_{s in C_q} exp(mu_s / c),
#   Omega_i = sigma_i^2 / c * sum_{q : r(q) <= r(i)} ([q = i] - p_{i,q}),
#   Delta_i = gamma_i * sigma_i^2 / c^2 * sum_{q : r(q) <= r(i)} p_{i,q} (1 - p_{i,q}),
#   gamma_i = sigma_i / c,  mu_i' = mu_i + Omega_i,  sigma_i' = sigma_i * sqrt(1 - Delta_i)
# (one player a team; no ties below, so every A_q is 1).


def test_a_four_player_game_worked_by_hand() -> None:
    """Four newcomers finish first to fourth. All means are equal, so every exp(mu/c) is
    the same and p_{i,q} is 1 over the size of C_q: 1/4, 1/3, 1/2, 1 for the teams
    placed first to fourth.

      first:  Omega sum = 1 - 1/4                     =   3/4;  Delta sum = 3/16
      second: Omega sum = (1 - 1/3) - 1/4             =  5/12;  Delta sum = 3/16 + 2/9 = 59/144
      third:  Omega sum = (1 - 1/2) - 1/4 - 1/3       = -1/12;  Delta sum = 59/144 + 1/4 = 95/144
      fourth: Omega sum = (1 - 1) - 1/4 - 1/3 - 1/2   = -13/12; Delta sum = 95/144 + 0 = 95/144
    """
    sums = [(3 / 4, 3 / 16), (5 / 12, 59 / 144), (-1 / 12, 95 / 144), (-13 / 12, 95 / 144)]
    assert sum(o for o, _ in sums) == pytest.approx(0.0)  # what one gains another loses
    # c^2 = 4 * (S2 + beta^2) = 4 * (69.451389 + 17.361111) = 347.25, c = 18.634645;
    # sigma^2 / c = 3.727004; gamma = 8.333750 / 18.634645 = 0.447218.
    c = math.sqrt(4 * (S2 + BETA**2))
    assert c**2 == pytest.approx(347.25)
    gamma = math.sqrt(S2) / c
    expected = [
        (MU + S2 / c * omega, math.sqrt(S2) * math.sqrt(1 - gamma * S2 / c**2 * delta))
        for omega, delta in sums
    ]
    # Evaluated once by hand from the lines above: mu 25 + 3.727004 * 3/4 = 27.795253, ...;
    # sigma = 8.333750 * sqrt(1 - 0.447218 * 0.200004 * 3/16) = 8.263572, ...
    assert expected == [
        pytest.approx((27.795253, 8.263572), abs=1e-6),
        pytest.approx((26.552918, 8.179618), abs=1e-6),
        pytest.approx((24.689416, 8.084128), abs=1e-6),
        pytest.approx((20.962413, 8.084128), abs=1e-6),
    ]
    names = ["ann", "bob", "cat", "dan"]
    ladder = rebuild([game(*(seat(p, n, n + 1) for n, p in enumerate(names)))])
    for name, (mu, sigma) in zip(names, expected, strict=True):
        s = ladder.standing(name, "genial", "g1")
        assert s is not None
        assert (s.mu, s.sigma) == pytest.approx((mu, sigma), rel=1e-9), name
    # Shown: 1000 + 25 * (27.795253 - 3 * 8.263572) = 1075.11 -> 1075, and so on.
    assert [s.points for s in ladder.top("genial", "g1")] == [1075, 1050, 1011, 918]
    assert [s.player for s in ladder.top("genial", "g1")] == names


def test_a_second_two_player_game_worked_by_hand() -> None:
    """Ann beat Bob in their first game (27.635389 and 22.364611, both sigma 8.065901:
    two_sides_equal); in the second Bob wins. Now the means differ, so the win was not
    even odds, and tau is added again to a sigma that already moved."""
    win, lose, sigma = two_sides_equal(1)
    assert (win, lose, sigma) == pytest.approx((27.635389, 22.364611, 8.065901), abs=1e-6)
    # Each one's variance before game 2: 8.065901^2 + (1/12)^2 = 65.065710.
    var = sigma**2 + TAU**2
    assert var == pytest.approx(65.065710, abs=1e-6)
    c = math.sqrt(2 * (var + BETA**2))  # sqrt(2 * (65.065710 + 17.361111)) = 12.839534
    assert c == pytest.approx(12.839534, abs=1e-6)
    # Bob (winner) is first: C = {Bob, Ann}; Ann (second) has C = {Ann} too, where her p is 1.
    # p_bob = 1 / (1 + exp((27.635389 - 22.364611) / 12.839534)) = 1 / (1 + e^0.410512)
    p_bob = 1 / (1 + math.exp((win - lose) / c))
    assert p_bob == pytest.approx(0.398789, abs=1e-6)
    p_ann = 1 - p_bob  # Ann's p among both
    # Bob: Omega = var / c * (1 - p_bob); Ann: Omega = var / c * (0 - p_ann) + (1 - 1).
    # Both Deltas: gamma * var / c^2 * p_bob * p_ann (Ann's own term p = 1 adds 0).
    gain = var / c * p_ann  # 5.067607 * 0.601211 = 3.046699
    assert gain == pytest.approx(3.046699, abs=1e-6)
    delta = math.sqrt(var) / c * var / c**2 * p_bob * p_ann
    new_sigma = math.sqrt(var) * math.sqrt(1 - delta)
    assert (lose + gain, win - gain, new_sigma) == pytest.approx(
        (25.411309, 24.588691, 7.822887), abs=1e-6
    )
    ladder = rebuild(
        [
            game(seat("ann", 0, 1), seat("bob", 1, 2), at=1),
            game(seat("ann", 0, 2), seat("bob", 1, 1), at=2),
        ]
    )
    ann, bob = ladder.standing("ann", "genial", "g1"), ladder.standing("bob", "genial", "g1")
    assert ann is not None and bob is not None
    assert (bob.mu, bob.sigma) == pytest.approx((lose + gain, new_sigma), rel=1e-9)
    assert (ann.mu, ann.sigma) == pytest.approx((win - gain, new_sigma), rel=1e-9)
    # 1000 + 25 * (25.411309 - 3 * 7.822887) = 1048.57 -> 1049; Ann 1028.
    assert (bob.points, ann.points) == (1049, 1028)
    assert ladder.history("ann", "genial", "g1") == [1086, 1028]
    assert ladder.history("bob", "genial", "g1") == [954, 1049]


def test_one_level_at_two_seats_takes_the_mean_sigma_too() -> None:
    # The easy level finishes second and third of four (the four-player case above, where
    # second and third end with different sigmas): its rating is the mean of both seats',
    # sigma as well as mu, not the larger or the first.
    easy = computer_key("easy")
    ladder = rebuild(
        [game(seat("ann", 0, 1), seat(easy, 1, 2), seat(easy, 2, 3), seat("dan", 3, 4))]
    )
    s = ladder.standing(easy, "genial", "g1")
    assert s is not None
    assert s.mu == pytest.approx((26.552918 + 24.689416) / 2, abs=1e-6)
    assert s.sigma == pytest.approx((8.179618 + 8.084128) / 2, abs=1e-6)
    assert (s.games, s.wins, s.best) == (1, 0, 10)


def test_a_game_every_person_left_has_no_winner() -> None:
    # Both people left and computers finished both seats: each is rated alone, last, so
    # they share the last place, and that shared place is no win for either.
    ladder = rebuild([game(seat("ann", 0, 1, left=True), seat("bob", 1, 2, left=True))])
    _, _, sigma = two_sides_equal(1)
    for name in ("ann", "bob"):
        s = ladder.standing(name, "genial", "g1")
        assert s is not None, name
        assert (s.games, s.wins) == (1, 0), name
        # A tie between equals (test_a_tie_between_equals_moves_no_mean).
        assert (s.mu, s.sigma) == pytest.approx((MU, sigma)), name


def test_equal_points_more_games_first() -> None:
    # The ladder's order: points, then more games first, then the key. Ann and Bob show
    # 1000 + 25 * (27 - 3 * 8) = 1075; Bob has played three games, Ann one, so Bob is
    # above her although "ann" sorts first; Dan has Bob's points and games: after "bob".
    ladder = Ladder()
    ladder.boards[("g1", "genial")] = {
        "ann": Standing("ann", 27.0, 8.0, games=1),
        "bob": Standing("bob", 27.0, 8.0, games=3),
        "cat": Standing("cat", 27.0, 7.8, games=1),  # 1000 + 25 * 3.6 = 1090
        "dan": Standing("dan", 27.0, 8.0, games=3),
    }
    top = ladder.top("genial", "g1")
    assert [(s.player, s.points, s.games) for s in top] == [
        ("cat", 1090, 1),
        ("bob", 1075, 3),
        ("dan", 1075, 3),
        ("ann", 1075, 1),
    ]


def test_tables_of_inline_messages_share_one_ladder() -> None:
    """Two Telegram inline messages are two tables with no chat: their games go on the
    ladder ``inline`` together (issue 49), not on one ladder per message."""
    ladder = rebuild(
        [
            game(seat("ann", 0, 1, 12), seat("bob", 1, 2, 7), chat="inline~0123456789abcdef"),
            game(seat("ann", 0, 1, 12), seat("cat", 1, 2, 7), chat="inline~fedcba9876543210"),
        ]
    )
    assert ladder.top("genial", "inline~0123456789abcdef") == []
    ann = ladder.standing("ann", "genial", "inline")
    assert ann is not None and (ann.games, ann.wins) == (2, 2)
    # Bob's one game: the hand-worked loser's numbers, 954 shown (test_a_two_player_game).
    bob = ladder.standing("bob", "genial", "inline")
    assert bob is not None and bob.points == 954
    assert ladder_scope("inline~0123456789abcdef") == "inline"
    # Ids without a ladder's name keep their own chat's ladder.
    assert [ladder_scope(c) for c in ("-100123", "~web", "g1~")] == ["-100123", "~web", "g1~"]
