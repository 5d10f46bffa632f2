"""Computer players for Genial Spezial: legal placements at every level, golden colours,
seeds, and a position where the right move is plain."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.ai import LEVELS, best_moves, choose_move
from engine.cli import main
from engine.hexgrid import Hex, distance
from engine.moves import SpezialPlacement
from engine.spezial import SpezialGame, board_layout
from engine.tiles import Colour


def positions(players: int, seed: int, every: int) -> Iterator[SpezialGame]:
    """Positions of a game driven by greedy and random players in turn."""
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    n = 0
    while not game.over:
        if n % every == 0:
            yield game
        level = "greedy" if n % 3 else "random"
        game.play(choose_move(game.view(game.to_move), level, rng.getrandbits(32)))
        n += 1


def covers_golden(move: SpezialPlacement) -> int:
    golden = board_layout().golden
    return (move.cell1 in golden) + (move.cell2 in golden)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_level_plays_legal_placements(players: int) -> None:
    checked = 0
    for game in positions(players, seed=players, every=5):
        legal = {m.canonical().cells for m in game.legal_moves()}
        view = game.view(game.to_move)
        levels = LEVELS if checked % 4 == 0 else ("random", "greedy")
        for level in levels:
            move = choose_move(view, level, checked)
            assert isinstance(move, SpezialPlacement)
            assert move.canonical().cells in legal
            # Every golden space covered gets a colour named, and the engine accepts it.
            assert len(move.golden) == covers_golden(move)
            game.copy().play(move)
        checked += 1
    assert checked >= 8


def test_golden_point_goes_to_the_lowest_colour() -> None:
    game = SpezialGame(2, seed=4)
    layout = board_layout()
    towers = set(game.towers())

    def quiet(h: Hex) -> bool:  # a cell no tower touches
        return h in layout.area and h not in towers and all(n not in towers for n in h.neighbours())

    cell, partner = next(
        (g, n)
        for g in sorted(layout.golden)
        if quiet(g)
        for n in g.neighbours()
        if quiet(n) and n not in layout.golden
    )
    game.scores[0] = [3, 1, 2, 5]  # B G O P: green is lowest
    hints = {frozenset(m.cells): m for m, _ in best_moves(game.view(0), 1000)}
    move = hints[frozenset((cell, partner))]
    assert move.golden == (Colour.GREEN,)
    game.play(move)
    assert game.scores[0] == [3, 2, 2, 5]


@pytest.mark.parametrize("level", LEVELS)
def test_a_seed_makes_the_choice_reproducible(level: str) -> None:
    game = SpezialGame(3, seed=2)
    rng = random.Random(2)
    for _ in range(12):
        game.play(game.random_placement(rng))
    view = game.view(game.to_move)
    assert [choose_move(view, level, s) for s in range(3)] == [
        choose_move(view, level, s) for s in range(3)
    ]


@pytest.mark.parametrize("level", ["greedy", "strong", "expert"])
def test_takes_two_towers_with_one_tile(level: str) -> None:
    # On the empty board a tile between two towers three cells apart touches both: it scores
    # both tokens at once, and nothing else scores at all.
    game = SpezialGame(2, seed=8)
    move = choose_move(game.view(0), level, 1)
    points = game.points_of(move)
    assert sum(points.values()) >= 2
    towers = list(game.towers())
    touched = {t for t in towers for h in move.cells if distance(h, t) == 1}
    assert len(touched) >= 2


def test_best_moves_are_ranked() -> None:
    game = SpezialGame(2, seed=8)
    top = best_moves(game.view(0), 4)
    values = [v for _, v in top]
    assert len(top) == 4 and values == sorted(values, reverse=True)
    assert sum(game.points_of(top[0][0]).values()) >= 2


def test_bad_calls_raise_value_error() -> None:
    game = SpezialGame(2, seed=1)
    with pytest.raises(ValueError, match="not to move"):
        choose_move(game.view(1))
    with pytest.raises(ValueError, match="spectator"):
        choose_move(game.view(None), "strong")


def test_ai_command_on_a_spezial_record(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((shared / "examples" / "07-spezial-2p.json").read_text("utf-8"))
    record["moves"] = record["moves"][:9]
    path = tmp_path / "spezial.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    game = SpezialGame.replay(2, record["moves"], record["tokens"])
    for level in LEVELS:
        assert main(["ai", str(path), "--level", level, "--seed", "1"]) == 0
        game.copy().play_text(capsys.readouterr().out.strip())  # raises if illegal


def test_a_deadline_still_gives_a_legal_placement() -> None:
    game = SpezialGame(2, seed=3)
    move = choose_move(game.view(0), "strong", 1, deadline=0.0)
    game.play(move)  # raises if illegal
