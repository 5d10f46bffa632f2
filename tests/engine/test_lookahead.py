"""Master's play-out policy that looks one placement ahead (issue 50,
engine/ai/genial_expert.py's :func:`lookahead_spot` and the C loop's ``lookahead_c``): each
choice worked out again from the rules' own moves, and the C loop's placements one by one
against the Python loop's."""

from __future__ import annotations

import random

import pytest

from engine.ai import kernel
from engine.ai.evaluation import DEFAULT_WEIGHTS, Weights
from engine.ai.genial_expert import _position_args
from engine.ai.genial_players import (
    Deal,
    Lookahead,
    _play_out_fast,
    lookahead_spot,
    play_out,
    rank_placements,
    redeal,
)
from engine.genial import GenialGame
from engine.moves import Placement
from tests.engine.test_playout import SETUPS, dealt_starts, positions, python_trace

BUILT = kernel.kernel


def best_reply(game: GenialGame, placement: Placement) -> float | None:
    """The next seat's best placement value after ``placement``, from the rules' own play
    and the list of every legal placement; None where the turn does not simply pass to it."""
    after = game.copy()
    after.play(placement)
    nxt = (game.to_move + 1) % game.players
    if after.over or after.awaiting != "place" or after.to_move != nxt:
        return None
    ranked = rank_placements(after, DEFAULT_WEIGHTS)
    return max(0.0, ranked[0][1]) if ranked else 0.0


def test_the_choice_is_greedy_s_value_less_the_reply_worked_out_by_the_rules() -> None:
    # Where every seat has placed and the turn passes straight on, the reply lookahead_spot
    # counts must be the next seat's best over all its legal placements after the real move
    # (GenialGame.play, then every placement ranked): the choice is the best of value -
    # weight * reply over greedy's best k, the first of equal ones.
    checked = changed = 0
    for seed in (1, 2, 3):
        for game in positions(2, "standard", seed, 3):
            if not all(game.has_placed) or game.awaiting != "place":
                continue
            look = Lookahead(candidates=6, reply=0.5)
            top = rank_placements(game, DEFAULT_WEIGHTS)[:6]
            where = game._layout.where
            worked = []
            for p, value in top:
                reply = best_reply(game, p)
                if reply is None:
                    break
                worked.append((value - 0.5 * reply, p))
            if len(worked) < len(top) or len(worked) < 2:
                continue
            best = max(a for a, _ in worked)
            expected = next(p for a, p in worked if a == best)
            got = lookahead_spot(game, DEFAULT_WEIGHTS, look)
            assert got == where[expected]
            checked += 1
            changed += expected != top[0][0]
    assert checked >= 20
    assert changed >= 3  # the reply does move the choice off greedy's best


def test_without_a_reply_weight_or_an_opponent_it_is_greedy_s_first() -> None:
    for players, mode in SETUPS:
        for game in positions(players, mode, 4, 7):
            if game.awaiting == "swap":
                continue
            first = game._layout.where[rank_placements(game, DEFAULT_WEIGHTS)[0][0]]
            assert lookahead_spot(game, DEFAULT_WEIGHTS, Lookahead(8, 0.0)) == first
            assert lookahead_spot(game, DEFAULT_WEIGHTS, Lookahead(1, 0.5)) == first
            if players == 1:  # the solo game: no next seat to reply
                assert lookahead_spot(game, DEFAULT_WEIGHTS, Lookahead(8, 5.0)) == first


@pytest.mark.parametrize(("players", "mode"), SETUPS)
@pytest.mark.parametrize("look", [Lookahead(), Lookahead(3, 1.0), Lookahead(24, 0.25)])
def test_the_c_loop_makes_the_python_placements(players: int, mode: str, look: Lookahead) -> None:
    # From every stage, the first round included, to the end and stopped early: the C loop
    # finds the reply without scanning the board per candidate, and must still choose what
    # the Python loop chooses, placement by placement, and draw nothing.
    fast = BUILT
    assert fast is not None
    compared = 0
    for world, spot in dealt_starts(players, mode, 5, 4, 3):
        for steps in (60, 2):
            before = (world.board.copy(), [c.copy() for c in world._points])
            expected, end = python_trace(world, spot, steps, random.Random(9), look)
            trace: list[tuple[int, int, int, int]] = []
            c_rng = random.Random(9)
            first = (spot.cell1, spot.cell2, spot.first, spot.second)
            made, got = _play_out_fast(
                fast, world, first, steps, c_rng, DEFAULT_WEIGHTS, trace, look
            )
            assert trace == expected
            assert made == len(expected) - 1
            assert (got.scores, got.over, got.winner) == (end.scores, end.over, end.winner)
            assert c_rng.random() == random.Random(9).random()  # no draw
            assert (world.board, world._points) == before
            compared += 1
    assert compared >= 8


def test_a_deal_plays_the_lookahead_as_play_out_does(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = BUILT
    assert fast is not None
    look = Lookahead()
    compared = 0
    for game in positions(2, "standard", 6, 6):
        if game.awaiting == "swap":
            continue
        world = redeal(game, game.to_move, random.Random(8))
        ends = []
        for way in (fast, None):
            monkeypatch.setattr(kernel, "kernel", way)
            deal = Deal(world, DEFAULT_WEIGHTS)
            for p, _ in rank_placements(world)[:2]:
                spot = world._layout.where[p]
                e = deal.play_out(spot, 60, random.Random(1), look)
                f = play_out(world, spot, 60, random.Random(1), DEFAULT_WEIGHTS, look)
                assert (e.scores, e.over, e.winner) == (f.scores, f.over, f.winner)
                ends.append((e.scores, e.over, e.winner))
        monkeypatch.setattr(kernel, "kernel", fast)
        assert ends[: len(ends) // 2] == ends[len(ends) // 2 :]  # C and Python alike
        compared += 1
    assert compared >= 5


def test_a_lookahead_out_of_range_is_refused() -> None:
    for candidates, reply in ((0, 0.5), (65, 0.5), (8, -0.1), (8, float("nan"))):
        with pytest.raises(ValueError):
            Lookahead(candidates, reply)
    assert Lookahead(1, 0.0).args() == (1, 0.0)


def test_a_bad_lookahead_is_an_error_not_a_crash() -> None:
    fast = BUILT
    assert fast is not None
    game = next(g for g in positions(2, "standard", 1, 1) if all(g.has_placed))
    spot = game._layout.where[rank_placements(game)[0][0]]
    first = (spot.cell1, spot.cell2, spot.first, spot.second)
    rng = random.Random(0)
    for bad, error in (
        ((0, 0.5), ValueError),
        ((65, 0.5), ValueError),
        ((8, -1.0), ValueError),
        ((8, float("nan")), ValueError),
        ((8,), TypeError),
        ("8, 0.5", TypeError),
    ):
        with pytest.raises(error):
            fast.play_out(
                *_position_args(fast, game, DEFAULT_WEIGHTS), first, 5, rng.getrandbits, None, bad
            )


def test_values_below_zero_are_looked_at_placement_by_placement() -> None:
    # The C loop passes over the pairs whose best (values below 0 counted as 0) is below the
    # k-th best pair's. A bonus placement weighed at -30 points makes every placement that
    # reaches 18 worth less than nothing: the C loop must still choose what the Python
    # loop chooses, placement by placement, to the end of each play-out.
    fast = BUILT
    assert fast is not None
    weights = Weights(bonus_points=-30.0)
    look = Lookahead()
    compared = 0
    for world, spot in dealt_starts(2, "standard", 7, 3, 4):
        g = world.copy()
        g.play_spot(spot)
        expected = [(spot.cell1, spot.cell2, spot.first, spot.second)]
        while not g.over and len(expected) <= 60:
            if g.awaiting == "swap":
                g.swap_quietly(True)
                continue
            s = lookahead_spot(g, weights, look)
            expected.append((s.cell1, s.cell2, s.first, s.second))
            g.play_spot(s)
        trace: list[tuple[int, int, int, int]] = []
        first = expected[0]
        _play_out_fast(fast, world, first, 60, random.Random(1), weights, trace, look)
        assert trace == expected
        compared += 1
    assert compared >= 8


@pytest.mark.parametrize("look", [None, Lookahead()])
def test_points_beyond_the_padded_rows_are_an_error_not_a_crash(look: Lookahead | None) -> None:
    # The rows are padded past any count of points a board can hold; a caller that hands
    # the C loop more (on an empty cell's points) gets an IndexError, not a read past a row.
    fast = BUILT
    assert fast is not None
    game = next(g for g in positions(2, "standard", 1, 1) if all(g.has_placed))
    spot = game._layout.where[rank_placements(game)[0][0]]
    args = list(_position_args(fast, game, DEFAULT_WEIGHTS))
    empty = next(c for c, colour in enumerate(game.board) if colour < 0)
    points = [list(row) for row in game._points]
    points[0][empty] = 10**5
    args[3] = points
    first = (spot.cell1, spot.cell2, spot.first, spot.second)
    with pytest.raises(IndexError, match="padded"):
        fast.play_out(*args, first, 5, random.Random(0).getrandbits, None, look and look.args())
