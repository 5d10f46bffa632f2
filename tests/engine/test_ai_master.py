"""The master level of Genial: a legal move, the same move for the same seed, and a move
that depends on the seat's view alone (not on where the unseen tiles lie), in the end game
where its play-outs over deals of the unseen tiles run."""

from __future__ import annotations

import dataclasses
import random

from engine.ai import choose_move
from engine.ai.master import DEFAULT_MASTER, master_move
from engine.genial import GenialGame
from engine.moves import Placement
from tests.engine.test_ai import canonical, legal_set
from tests.engine.test_ai_expert import end_game

#: A small budget keeps the test fast; the search is the same.
SMALL = dataclasses.replace(DEFAULT_MASTER, budget=1500, candidates=6)


def test_master_plays_a_legal_reproducible_move_from_the_view_alone() -> None:
    game = end_game(5, 30)
    seat = game.to_move
    view = game.view(seat)
    move = master_move(view, random.Random(3), SMALL)
    assert isinstance(move, Placement) and canonical(move) in legal_set(game)
    assert master_move(view, random.Random(3), SMALL) == move
    # The same view built from a game whose unseen tiles lie elsewhere gives the same move.
    other = GenialGame.from_view(view, random.Random(41))
    assert other.racks[1 - seat] != game.racks[1 - seat] or other.bag.order() != game.bag.order()
    assert master_move(other.view(seat), random.Random(3), SMALL) == move


def test_the_master_level_is_reachable_with_a_deadline() -> None:
    game = end_game(6, 24)
    move = choose_move(game.view(game.to_move), "master", 1, deadline=0.0)
    assert canonical(move) in legal_set(game)
