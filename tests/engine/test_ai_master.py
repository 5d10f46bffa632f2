"""The master level of Genial (engine/ai/master.py): legal, reproducible, from the view alone,
and its leaves follow the ranking rule (the lowest colour, then the next lowest)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.ai import choose_move, master
from engine.ai.genial_players import Deal, Ending, Lookahead, StrongSearch, _standing, strong_search
from engine.ai.master import MasterConfig, _by_rule, leaf_value
from engine.genial import EMPTY, GenialGame
from tests.engine.conftest import QUICK_MASTER_SEARCH
from tests.engine.test_ai import hide_elsewhere, keep_always_game


def test_master_move_is_legal_and_the_same_for_the_same_seed() -> None:
    game = keep_always_game(5, 12)
    view = game.view(game.to_move)
    moves = [choose_move(view, "master", seed) for seed in (0, 1, 0, 1)]
    assert moves[0] == moves[2] and moves[1] == moves[3]
    assert all(m in game.legal_moves() for m in moves)


def test_master_move_does_not_depend_on_where_the_unseen_tiles_lie() -> None:
    game = keep_always_game(21, 9)
    seat = game.to_move
    rng = random.Random(4)
    others = []
    for _ in range(20):
        try:
            other = GenialGame.replay(
                game.mode, game.players, game.moves, hide_elsewhere(game, seat, rng)
            )
        except ValueError:
            continue  # the opponent's swap offers changed with its rack
        if other.racks[1 - seat] != game.racks[1 - seat]:
            others.append(other)
        if len(others) == 2:
            break
    assert others
    for other in others:
        assert other.racks[seat] == game.racks[seat]
        for seed in (0, 3):
            assert choose_move(other.view(seat), "master", seed) == choose_move(
                game.view(seat), "master", seed
            )


def test_leaves_follow_the_ranking_rule() -> None:
    game = GenialGame(2, seed=1)
    # Side 0 sorted 3,5,9,9,9,9; side 1 sorted 3,6,6,6,6,6: level lowest, side 1 ahead on
    # the next lowest although side 0 has more points in all.
    game.scores[0] = [3, 9, 9, 5, 9, 9]
    game.scores[1] = [6, 6, 3, 6, 6, 6]
    assert _by_rule(game, 0) == -1
    assert _by_rule(game, 1) == 1
    config = MasterConfig(lead=2.0)
    plain = MasterConfig(lead=0.0)
    assert leaf_value(game, 1, config) - leaf_value(game, 1, plain) == 2.0
    assert leaf_value(game, 0, config) - leaf_value(game, 0, plain) == -2.0
    game.scores[1] = [3, 9, 9, 5, 9, 9]
    assert _by_rule(game, 0) == 0


def test_a_finished_two_side_leaf_counts_the_win_by_the_ranking_rule() -> None:
    """Won: the standing plus ``win``; lost: minus it; a shared first place: the standing
    alone; a side with every colour at the cap wins whatever the sorted scores say."""
    setup = GenialGame(2, seed=1).setup
    config = MasterConfig(win=4.0)
    level, ahead = [3, 9, 9, 5, 9, 9], [6, 6, 3, 6, 6, 6]  # ahead on the next lowest

    def leaf(scores: list[list[int]], winner: int | None, side: int) -> float:
        return leaf_value(Ending(setup, scores, True, winner), side, config)

    def standing(scores: list[list[int]], side: int) -> float:
        return _standing(Ending(setup, scores, True, None), side, config.strong.weights)

    scores = [level, ahead]
    assert leaf(scores, None, 1) == standing(scores, 1) + 4.0
    assert leaf(scores, None, 0) == standing(scores, 0) - 4.0
    tied = [level, list(reversed(level))]
    assert leaf(tied, None, 0) == standing(tied, 0) == leaf(tied, None, 1) == 0.0
    capped = [[18] * 6, [18] * 6]  # level by the sorted scores, side 1 there first
    assert leaf(capped, 1, 1) == standing(capped, 1) + 4.0
    assert leaf(capped, 1, 0) == standing(capped, 0) - 4.0


def _counted_play_outs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each play-out of a deal from now on."""
    calls: list[int] = []
    played = Deal.play_out

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return played(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Deal, "play_out", counted)
    return calls


def test_master_plays_out_from_the_first_move_unless_given_a_later_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = GenialGame(4, seed=3)
    # The 4-player board: a hexagon of radius 7 (3 * 7 * 8 + 1 = 169 cells) less its six
    # start symbols, all empty at the first move: more than a 2-player game's 85.
    assert game.board.count(EMPTY) == 169 - 6
    view = game.view(game.to_move)
    calls = _counted_play_outs(monkeypatch)
    move = master.master_move(view, random.Random(5), replace(QUICK_MASTER_SEARCH, endgame=None))
    assert calls and move in game.legal_moves()
    calls.clear()
    later = replace(QUICK_MASTER_SEARCH, endgame=85)
    move = master.master_move(view, random.Random(5), later)
    assert not calls
    found = strong_search(view, later.strong, random.Random(5))
    assert isinstance(found, StrongSearch) and move == found.scored[0][1]


@pytest.mark.parametrize(
    ("built", "budget", "endgame", "shortlist", "first_round_share", "lookahead"),
    [(True, 50000, None, 16, 1.0, Lookahead(8, 0.5)), (False, 12500, 40, 16, 1.0, None)],
)
def test_master_without_the_kernel_spends_a_quarter_of_the_budget_in_the_endgame(
    monkeypatch: pytest.MonkeyPatch,
    built: bool,
    budget: int,
    endgame: int | None,
    shortlist: int,
    first_round_share: float,
    lookahead: Lookahead | None,
) -> None:
    """Issue 50: where the play-outs run in Python (no C kernel), master's full budget of
    50,000 simulated placements from the first move took a p95 of 4 s a move; there it
    spends 12,500 (a quarter) from 40 empty cells on, with greedy play-outs (the lookahead
    costs 2.6 times as much), with the kernel the whole budget from the first move."""
    from engine.ai import kernel

    monkeypatch.setattr(master, "DEFAULT_MASTER_SEARCH", MasterConfig())
    monkeypatch.setattr(kernel, "kernel", kernel.kernel if built else None)
    if built and kernel.kernel is None:
        pytest.fail("the C kernel is not built here (pip install -e . builds it)")
    seen: list[MasterConfig] = []

    def spy(view: object, rng: random.Random, config: MasterConfig) -> object:
        seen.append(config)
        return "chosen"

    monkeypatch.setattr(master, "master_move", spy)
    game = keep_always_game(5, 12)
    assert choose_move(game.view(game.to_move), "master", 1) == "chosen"
    assert [(c.budget, c.endgame) for c in seen] == [(budget, endgame)]
    # The whole budget in the first round too: a quarter there lost master games (issue 50).
    assert (seen[0].shortlist, seen[0].first_round_share) == (shortlist, first_round_share)
    assert seen[0].lookahead == lookahead
    assert seen[0].depth == 60  # nothing else differs


def _play_outs(monkeypatch: pytest.MonkeyPatch, game: GenialGame, config: MasterConfig) -> int:
    """How many play-outs master makes for the seat to move in ``game``."""
    calls = _counted_play_outs(monkeypatch)
    master.master_move(game.view(game.to_move), random.Random(2), config)
    monkeypatch.undo()
    return len(calls)


def test_the_first_round_spends_a_share_of_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 50: while a seat other than the mover has not placed yet, master may spend a
    share of the budget (by default the whole: the C loop plays the first round too)."""
    # Two candidates, one halving round, play-outs of 6 placements: each deal costs
    # 2 * 6 = 12 simulated placements, so a budget of 240 is 20 deals, 40 play-outs.
    config = replace(
        QUICK_MASTER_SEARCH,
        shortlist=2,
        budget=240,
        depth=6,
        min_samples=1,
        max_samples=10**6,
        first_round_share=1.0,
    )
    first = GenialGame(2, seed=3)  # seat 0's first move: seat 1 has not placed
    assert _play_outs(monkeypatch, first, config) == 40
    assert _play_outs(monkeypatch, first, replace(config, first_round_share=0.25)) == 10  # 60
    second = first.copy()
    second.play(choose_move(first.view(0), "greedy", 1))
    while second.to_move != 1:  # a bonus placement or a swap of seat 0
        view = second.view(second.to_move)
        second.play(choose_move(view, "greedy", 1))
    # Seat 1's first move: every other seat has placed, so the whole budget.
    assert _play_outs(monkeypatch, second, replace(config, first_round_share=0.25)) == 40
