"""Positions and the expert's recorded moves in them, for the test that a faster expert
chooses exactly the moves of the old one (tests/engine/test_ai_expert_moves.py).

The positions are prefixes of games played with fixed seeds by a random player and by the
greedy one (between them every phase: the first round, swaps, bonus placements, marks, a
full board). The fixture
``data/expert_moves.json`` was written by ``python -m tests.engine.expert_fixture`` run on
main at commit ef52061 (before the expert was made cheaper): for every position, the move
the expert chose with its seed, in record notation, with its own budget (``expert``) and
with the tiny budget of the engine tests (``quick``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.ai import choose_move, genial_players, spezial_players
from engine.genial import GenialGame
from engine.notation import format_genial_move, format_spezial_placement
from engine.spezial import SpezialGame
from tests.engine.conftest import QUICK_EXPERT, QUICK_SPEZIAL_EXPERT

FIXTURE = Path(__file__).parent / "data" / "expert_moves.json"

#: (game, players, mode, game seeds, every n-th position)
SETUPS: tuple[tuple[str, int, str | None, tuple[int, ...], int], ...] = (
    ("genial", 2, "standard", (1, 2, 3, 4, 21, 22, 23, 24), 2),
    ("genial", 3, "standard", (5, 6, 25), 4),
    ("genial", 4, "standard", (7, 8, 27), 5),
    ("genial", 4, "team", (9, 10, 29), 5),
    ("genial", 1, "solo", (11, 31), 3),
    ("spezial", 2, None, (12, 13, 32, 33), 3),
    ("spezial", 3, None, (15, 35), 4),
    ("spezial", 4, None, (14, 34), 5),
)


def new_game(game: str, players: int, mode: str | None, seed: int) -> Any:
    if game == "genial":
        return GenialGame(players, mode, seed=seed)
    return SpezialGame(players, seed=seed)


def played_moves(game_name: str, players: int, mode: str | None, seed: int) -> list[str]:
    """A whole game in record notation: random legal moves for odd seeds, the greedy
    player's for even ones (its games reach high scores, marks and bonus placements)."""
    game = new_game(game_name, players, mode, seed)
    rng = random.Random(seed)
    while not game.over:
        if seed % 2:
            game.play(rng.choice(game.legal_moves()))
        else:
            game.play(choose_move(game.view(game.to_move), "greedy", rng.getrandbits(32)))
    return list(game.moves)


def positions(entry: dict[str, Any]) -> Iterator[tuple[int, Any]]:
    """Every ``every``-th position of a recorded game: (move number, game)."""
    game = new_game(entry["game"], entry["players"], entry["mode"], entry["seed"])
    for n, text in enumerate(entry["moves"]):
        if n % entry["every"] == 0:
            yield n, game.copy()
        game.play_text(text)


def move_text(game: Any, move: Any) -> str:
    if isinstance(game, GenialGame):
        return format_genial_move(move, game.area)
    return format_spezial_placement(move, game.area)


def expert_moves(entry: dict[str, Any]) -> dict[str, str]:
    """The expert's move in each position of ``entry``, by move number."""
    chosen = {}
    for n, game in positions(entry):
        move = choose_move(game.view(game.to_move), "expert", entry["seed"] * 1000 + n)
        chosen[str(n)] = move_text(game, move)
    return chosen


@contextmanager
def quick_budget() -> Iterator[None]:
    """The expert with the tiny budget of tests/engine/conftest.py (play-outs from the first
    move, on full-size boards), instead of its own."""
    saved = genial_players.DEFAULT_EXPERT, spezial_players.DEFAULT_SPEZIAL_EXPERT
    genial_players.DEFAULT_EXPERT = QUICK_EXPERT
    spezial_players.DEFAULT_SPEZIAL_EXPERT = QUICK_SPEZIAL_EXPERT
    try:
        yield
    finally:
        genial_players.DEFAULT_EXPERT, spezial_players.DEFAULT_SPEZIAL_EXPERT = saved


def record() -> list[dict[str, Any]]:
    out = []
    for game_name, players, mode, seeds, every in SETUPS:
        for seed in seeds:
            entry: dict[str, Any] = {
                "game": game_name,
                "players": players,
                "mode": mode,
                "seed": seed,
                "every": every,
                "moves": played_moves(game_name, players, mode, seed),
            }
            entry["expert"] = expert_moves(entry)
            with quick_budget():
                entry["quick"] = expert_moves(entry)
            out.append(entry)
            print(game_name, players, mode, seed, len(entry["expert"]), flush=True)
    return out


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(record(), indent=0) + "\n")
