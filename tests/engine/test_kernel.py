"""The C loops of engine/ai/_kernel.c: built by the install, and the players' moves with
them are the moves of the pure-Python players (the values themselves are checked against
the general every-cell code in test_ai_fast_paths.py, once with each)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.ai import choose_move, kernel
from engine.ai.evaluation import (
    DEFAULT_WEIGHTS,
    KIND_COLOURS,
    NO_ROOM,
    best_distribution,
    expected_best,
    padded_rows,
)
from engine.genial import GenialGame
from tests.engine.expert_fixture import FIXTURE, move_text, positions

ENTRIES: list[dict[str, Any]] = [
    e for e in json.loads(FIXTURE.read_text()) if e["game"] == "genial"
]


def test_the_install_built_the_c_loops() -> None:
    # pip install -e . compiles them on any machine with a C compiler (CI's has one); a
    # silent build failure would leave every other test here comparing Python with Python.
    assert kernel.active()
    assert kernel.kernel is not None


@pytest.mark.parametrize("entry", ENTRIES[::3], ids=lambda e: f"{e['players']}-{e['mode']}")
def test_the_moves_are_the_pure_python_moves(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def chosen() -> dict[str, str]:
        out = {}
        for n, game in positions(entry):
            move = choose_move(game.view(game.to_move), "expert", entry["seed"] * 1000 + n)
            out[str(n)] = move_text(game, move)
        return out

    with_c = chosen()
    monkeypatch.setattr(kernel, "kernel", None)
    assert chosen() == with_c == entry["quick"]


def test_values_on_a_board_worked_out_by_hand() -> None:
    # Four empty cells in a row, 0-1-2-3 (pairs 0-1, 1-2, 2-3). A red hex (colour 0)
    # scores 2 on cell 0 and 1 on cell 2; an orange one (1) scores 3 on cell 1.
    fast = kernel.kernel
    assert fast is not None
    points = [[2, 0, 1, 0], [0, 3, 0, 0], *([0] * 4 for _ in range(4))]
    low, high = [0, 1, 2], [1, 2, 3]
    neighbours = [[1, -1], [0, 2], [1, 3], [2, -1]]
    t = padded_rows((0,) * 6, GenialGame(2, seed=1).setup, DEFAULT_WEIGHTS)
    values = fast.tile_values(points, low, high, t, KIND_COLOURS)
    assert values is not None
    by_kind = dict(zip(KIND_COLOURS, values, strict=True))
    assert by_kind[(0, 0)] == t[0][2]  # red-red on 0-1: 2 + 0 (1-2 and 2-3 give 1)
    assert by_kind[(1, 1)] == t[1][3]  # orange-orange on 0-1 or 1-2
    assert by_kind[(0, 1)] == t[0][2] + t[1][3]  # red on 0, orange on 1
    assert by_kind[(2, 3)] == 0.0  # nothing scores in those colours
    assert fast.best_spot(points, low, high, t, 0, 1, neighbours) == (0, 1)
    assert fast.best_spot(points, low, high, t, 1, 0, neighbours) == (1, 0)
    # Orange-orange is as good on 0-1 as on 1-2, either way round: the first by the cell
    # of its first hex (0), then by direction.
    assert fast.best_spot(points, low, high, t, 1, 1, neighbours) == (0, 1)
    best, tied = fast.greedy_tied(points, low, high, t, [(0, 1, 0), (0, 1, 1), (1, 1, 0)])
    assert best == t[0][2] + t[1][3]
    assert tied == [(0, 0, best)]
    assert fast.tile_values(points, [], [], t, KIND_COLOURS) is None


def test_bad_input_is_an_error_not_a_crash() -> None:
    fast = kernel.kernel
    assert fast is not None
    padded = padded_rows((0,) * 6, GenialGame(2, seed=1).setup, DEFAULT_WEIGHTS)
    points = [[0] * 4 for _ in range(6)]
    with pytest.raises(IndexError):
        fast.tile_values(points, [0], [9], padded, KIND_COLOURS)
    with pytest.raises(ValueError):
        fast.tile_values(points, [0, 1], [2], padded, KIND_COLOURS)
    with pytest.raises(ValueError):
        fast.greedy_tied(points, [0], [1], padded, [(0, 7, 0)])


def test_the_best_of_a_draw_worked_out_by_hand() -> None:
    # One tile each of three kinds worth 3, 1 and 2, one drawn: each is the best a third of
    # the time; the expected best is (3 + 1 + 2) / 3. Two drawn: the 3 is among them two
    # times in three, else the 2 is.
    fast = kernel.kernel
    assert fast is not None
    d = fast.best_distribution([3.0, 1.0, 2.0], [1, 1, 1], 1)
    assert d is not None
    assert [k for k, _ in d] == [0, 2, 1]
    assert [round(p, 12) for _, p in d] == [round(1 / 3, 12)] * 3
    assert fast.expected_best([3.0, 1.0, 2.0], [1, 1, 1], 1, NO_ROOM, NO_ROOM) == pytest.approx(2)
    assert fast.expected_best([3.0, 1.0, 2.0], [1, 1, 1], 2, NO_ROOM, NO_ROOM) == pytest.approx(
        3 * 2 / 3 + 2 * 1 / 3
    )
    # A tile worth 2.5 already held: a drawn 3 beats it a third of the time.
    assert fast.expected_best([3.0, 1.0, 2.0], [1, 1, 1], 1, 2.5, NO_ROOM) == pytest.approx(
        3 / 3 + 2.5 * 2 / 3
    )
    assert fast.best_distribution([1.0], [0], 3) == []


def test_draws_are_the_pure_python_draws() -> None:
    fast = kernel.kernel
    assert fast is not None
    rng = random.Random(5)
    for _ in range(400):
        kinds = rng.randrange(1, 22)
        values = [rng.choice([0.0, 0.5, 1.0, rng.random() * 9 - 2]) for _ in range(kinds)]
        counts = [rng.choice([0, 1, 2, 5, 6]) for _ in range(kinds)]
        draws = rng.randrange(0, 8)
        known = rng.choice([NO_ROOM, 0.0, rng.random() * 5])
        assert fast.best_distribution(values, counts, draws) == pure_distribution(
            values, counts, draws
        )
        assert fast.expected_best(values, counts, draws, known, NO_ROOM) == pure_expected(
            values, counts, draws, known
        )
    # Too many tiles for exact doubles: left to Python's integers.
    assert fast.best_distribution([1.0, 2.0], [10**6, 10**6], 400) is None


def pure_distribution(values: list[float], counts: list[int], draws: int) -> object:
    saved = kernel.kernel
    kernel.kernel = None
    try:
        return best_distribution(values, counts, draws)
    finally:
        kernel.kernel = saved


def pure_expected(values: list[float], counts: list[int], draws: int, known: float) -> object:
    saved = kernel.kernel
    kernel.kernel = None
    try:
        return expected_best(values, counts, draws, known)
    finally:
        kernel.kernel = saved
