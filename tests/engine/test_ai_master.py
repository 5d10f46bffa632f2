"""The master level of Genial (engine/ai/master.py): legal, reproducible, from the view alone,
and its leaves follow the ranking rule (the lowest colour, then the next lowest)."""

from __future__ import annotations

import random

from engine.ai import choose_move
from engine.ai.master import MasterConfig, _by_rule, leaf_value
from engine.genial import GenialGame
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
