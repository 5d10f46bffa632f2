"""The expert level: legal moves in every mode, its deals of the unseen tiles, its full
budget in the end game, and a deadline."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.ai import choose_move
from engine.ai.genial_players import ExpertConfig, expert_move, redeal
from engine.genial import EMPTY, GenialGame
from engine.moves import Placement, SwapChoice
from engine.spezial import SpezialGame
from tests.engine.test_ai import SETUPS, canonical, legal_set, positions


@pytest.mark.parametrize(("mode", "players"), SETUPS)
def test_expert_plays_legal_moves_in_every_mode(mode: str, players: int) -> None:
    checked = 0
    for game in positions(mode, players, seed=players * 5 + len(mode), every=7):
        move = choose_move(game.view(game.to_move), "expert", checked)
        assert canonical(move) in legal_set(game)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("players", [2, 3, 4])
def test_expert_plays_legal_spezial_placements(players: int) -> None:
    game = SpezialGame(players, seed=players + 20)
    rng = random.Random(players)
    checked = 0
    while not game.over:
        if len(game.moves) % 11 == 0:
            game.copy().play(choose_move(game.view(game.to_move), "expert", checked))
            checked += 1
        game.play(game.random_placement(rng))
    assert checked >= 3


def test_a_redeal_depends_on_the_view_alone() -> None:
    game = GenialGame(3, seed=17)
    rng = random.Random(17)
    for _ in range(10):
        game.play(rng.choice(game.legal_moves()))
    seat = game.to_move
    view = game.view(seat)
    # The same view with the unseen tiles lying elsewhere (other racks, another bag order).
    other = GenialGame.from_view(view, random.Random(99))
    assert other.racks != game.racks or other.bag.order() != game.bag.order()
    one = redeal(game, seat, random.Random(5))
    two = redeal(other, seat, random.Random(5))
    assert one.racks == two.racks and one.bag.order() == two.bag.order()
    # The own rack stays; the unseen tiles are exactly the view's, in racks of the same sizes.
    assert one.racks[seat] == game.racks[seat]
    assert [len(r) for r in one.racks] == [len(r) for r in game.racks]
    dealt = Counter(one.bag.order())
    for s, r in enumerate(one.racks):
        if s != seat:
            dealt.update(r)
    assert dealt == Counter(view.unseen)
    # Another seed deals differently.
    three = redeal(game, seat, random.Random(6))
    assert (three.racks, three.bag.order()) != (one.racks, one.bag.order())


def end_game(seed: int, empty: int) -> GenialGame:
    """A 2-player game played by greedy until at most ``empty`` cells are empty."""
    game = GenialGame(2, seed=seed)
    rng = random.Random(seed)
    while game.board.count(EMPTY) > empty or game.awaiting != "place":
        game.play(choose_move(game.view(game.to_move), "greedy", rng.getrandbits(32)))
    assert not game.over
    return game


def test_the_full_budget_plays_out_the_end_game_reproducibly() -> None:
    game = end_game(4, ExpertConfig().endgame)
    view = game.view(game.to_move)
    first = expert_move(view, random.Random(8), ExpertConfig())
    assert isinstance(first, Placement) and canonical(first) in legal_set(game)
    assert expert_move(view, random.Random(8), ExpertConfig()) == first


def test_the_expert_swap_decision_is_a_swap_choice() -> None:
    game = end_game(9, 60)
    while game.awaiting != "swap":
        if game.over:
            pytest.fail("no swap offer came up")
        game.play(choose_move(game.view(game.to_move), "greedy", 1))
    assert isinstance(choose_move(game.view(game.to_move), "expert", 1), SwapChoice)


def test_a_deadline_still_gives_a_legal_expert_move() -> None:
    game = end_game(6, 30)
    move = choose_move(game.view(game.to_move), "expert", 1, deadline=0.0)
    assert canonical(move) in legal_set(game)
    spezial = SpezialGame(2, seed=3)
    spezial.play(choose_move(spezial.view(0), "expert", 1, deadline=0.0))  # raises if illegal
