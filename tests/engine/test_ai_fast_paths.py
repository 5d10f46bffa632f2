"""The computer players' quick paths against the general ones they stand in for: the quiet
play of play-outs against :meth:`GenialGame.play`, and the values over empty pairs
(:class:`EdgePoints`) against :func:`tile_values` and :func:`best_spot`, which look at every
cell and neighbour, on positions of random games of every setup; each with the C loops
(engine/ai/kernel.py) and with the pure-Python ones."""

from __future__ import annotations

import random

import pytest

from engine.ai import kernel
from engine.ai.evaluation import (
    EdgeValues,
    Weights,
    best_spot,
    first_round_cells,
    gain_tables,
    monotone_rows,
    padded_rows,
    tile_values,
)
from engine.ai.genial_players import (
    _allowed_pairs,
    _empty_pairs,
    greedy_spot,
    pick_best,
    top_placements,
)
from engine.genial import EMPTY, GenialGame
from engine.moves import KEEP, SWAP, Placement, SwapChoice

SETUPS = [(1, "solo"), (2, "standard"), (3, "standard"), (4, "standard"), (4, "team")]


@pytest.fixture(params=["c", "python"], autouse=True)
def loops(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test once with the C loops and once with the pure-Python ones."""
    if request.param == "python":
        monkeypatch.setattr(kernel, "kernel", None)
    elif kernel.kernel is None:
        pytest.fail("the C loops were not built (pip install -e . compiles them)")
    return str(request.param)


def state(game: GenialGame) -> tuple[object, ...]:
    """Everything of a position the rules read, the points on empty cells included."""
    points = game.colour_points()
    empty = [i for i, k in enumerate(game.board) if k == EMPTY]
    return (
        list(game.board),
        [[column[i] for i in empty] for column in points],
        sorted(game.empty_edges),
        [list(r) for r in game.racks],
        game.bag.order(),
        [list(s) for s in game.scores],
        game.to_move,
        game.awaiting,
        game.over,
        game.winner,
        game.bonus_owed,
        list(game.has_placed),
        set(game.start_touched),
    )


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_quiet_play_leaves_the_position_play_leaves(players: int, mode: str) -> None:
    swaps = 0
    # Ten games: random 2-player games seldom offer a swap (seeds 2, 8 and 9 of these).
    for seed in range(10):
        game = GenialGame(players, mode, seed=seed)
        rng = random.Random(seed)
        while not game.over:
            # Swap whenever offered in odd games, keep in even ones: both paths are taken.
            move = rng.choice(game.legal_moves())
            if isinstance(move, SwapChoice):
                move = SWAP if seed % 2 else KEEP
            quiet = game.copy()
            game.play(move)
            if isinstance(move, SwapChoice):
                quiet.swap_quietly(move.swap)
                swaps += move.swap
            else:
                assert isinstance(move, Placement)
                quiet.play_spot(quiet._layout.where[move])
            assert state(quiet) == state(game)
    if players == 2:
        assert swaps  # the quiet swap was taken (random 4-seat games seldom offer one)


def positions(players: int, mode: str, seed: int) -> list[GenialGame]:
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    out = []
    while not game.over:
        if game.awaiting == "place" and all(game.has_placed):
            out.append(game.copy())
        game.play(rng.choice(game.legal_moves()))
    return out


#: Tables of the players' own weights, of no bonus, and one that falls as points grow (a
#: negative bonus), which the sparse values may not rely on.
WEIGHTS = [Weights(), Weights(bonus_points=0.0), Weights(tau_share=0.2, bonus_points=-30.0)]


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_values_over_empty_pairs_are_those_over_every_cell(players: int, mode: str) -> None:
    rng = random.Random(players)
    checked = {True: 0, False: 0}
    for game in positions(players, mode, seed=players + 40)[::3]:
        setup = game.setup
        pairs = _empty_pairs(game)
        for weights in WEIGHTS:
            track = tuple(rng.randrange(setup.cap + 1) for _ in range(6))
            tables = gain_tables(track, setup, weights)
            monotone = monotone_rows(track, setup, weights)
            fast = EdgeValues(pairs, padded_rows(track, setup, weights), monotone)
            points = game.cell_points()
            expected = tile_values(game.board, game.area, points, tables, setup.cap)
            assert fast.tile_values() == expected
            for kind in range(21):
                spot = best_spot(game.board, game.area, points, tables, setup.cap, kind)
                assert fast.best_spot(kind, game.area.neighbours) == spot
            checked[monotone] += 1
    # Solo has no bonus placements, so no weights make its tables fall.
    assert checked[True] > 5 and (checked[False] > 5 or mode == "solo")


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_first_round_values_over_the_allowed_pairs_are_those_with_the_limit(
    players: int, mode: str
) -> None:
    # The reply of a seat that has not placed yet must touch an untouched start symbol
    # (RULES.md 2.3): the pairs with a cell next to one stand in for ``allowed``.
    checked = 0
    for seed in range(8):
        game = GenialGame(players, mode, seed=seed)
        rng = random.Random(seed)
        while not game.over and not all(game.has_placed):
            if game.awaiting == "place":
                setup = game.setup
                allowed = first_round_cells(game.board, game.area, game.start_cells)
                pairs = _allowed_pairs(game, allowed)
                points = game.cell_points()
                for weights in WEIGHTS:
                    track = tuple(rng.randrange(setup.cap + 1) for _ in range(6))
                    tables = gain_tables(track, setup, weights)
                    monotone = monotone_rows(track, setup, weights)
                    fast = EdgeValues(pairs, padded_rows(track, setup, weights), monotone)
                    expected = tile_values(
                        game.board, game.area, points, tables, setup.cap, allowed
                    )
                    assert fast.tile_values() == expected
                    for kind in range(21):
                        spot = best_spot(
                            game.board, game.area, points, tables, setup.cap, kind, allowed
                        )
                        assert fast.best_spot(kind, game.area.neighbours) == spot
                    checked += 1
            game.play(rng.choice(game.legal_moves()))
    assert checked >= 8 * 3 * players


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_the_quick_greedy_choice_is_the_general_one(players: int, mode: str) -> None:
    for game in positions(players, mode, seed=players + 50)[::2]:
        for seed in range(3):
            expected = pick_best(top_placements(game, Weights()), random.Random(seed))
            assert greedy_spot(game, Weights(), random.Random(seed)).placement == expected


def test_the_greedy_choice_in_the_first_round_keeps_to_the_start_symbols() -> None:
    game = GenialGame(2, seed=3)
    spot = greedy_spot(game, Weights(), random.Random(1))
    assert spot.placement == pick_best(top_placements(game, Weights()), random.Random(1))
    start = set(game.start_cells)
    assert {spot.cell1, spot.cell2} & {j for s in start for j in game.area.neighbours[s]}
