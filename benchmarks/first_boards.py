"""The late 4-player positions whose first board issue 50 times (item 3): a Genial game after
60 random placements and a Genial Spezial game after 40, both from seed 7. One definition for
``bench_cold_board.py``, ``bench_instructions.py`` (whose processes import it as
``benchmarks.first_boards``) and ``bench_deflate.py``, so the three measure the same boards;
``bench_phone.py`` plays its Genial positions with the same loop.
"""

from __future__ import annotations

import random

from engine.genial import GenialGame
from engine.moves import KEEP
from engine.spezial import SpezialGame


def genial_game(players: int, seed: int, placements: int) -> GenialGame:
    """A Genial game of ``players`` after ``placements`` random placements drawn from
    ``seed`` (fewer if it ends first), every offered swap declined."""
    game, rng, placed = GenialGame(players, seed=seed), random.Random(seed), 0
    while not game.over and placed < placements:
        if game.awaiting == "swap":
            game.play(KEEP)
            continue
        game.play(game.random_placement(rng))
        placed += 1
    return game


def genial_late() -> GenialGame:
    """A 4-player Genial game after 60 random placements (every offered swap declined)."""
    return genial_game(4, 7, 60)


def spezial_late() -> SpezialGame:
    """A 4-player Genial Spezial game after 40 random placements."""
    game, rng = SpezialGame(4, seed=7), random.Random(7)
    for _ in range(40):
        if game.over:
            break
        game.play(game.random_placement(rng))
    return game
