"""Computer players for Genial: legal moves at every level, seeds, hidden information, and
positions where the right move is plain."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.ai import LEVELS, best_moves, choose_move
from engine.ai.evaluation import expected_best
from engine.cli import main
from engine.events import BonusEarned, Refilled
from engine.genial import GenialGame
from engine.hexgrid import Hex
from engine.moves import KEEP, SWAP, Placement, SwapChoice
from engine.tiles import Bag, Colour, Tile, parse_tile, tile_set

R, G = Colour.RED, Colour.GREEN
B = Colour.BLUE
SETUPS = [("standard", 2), ("standard", 3), ("standard", 4), ("team", 4), ("solo", 1)]


def legal_set(game: GenialGame) -> set[Placement | SwapChoice]:
    return {m.canonical() if isinstance(m, Placement) else m for m in game.legal_moves()}


def canonical(move: object) -> object:
    return move.canonical() if isinstance(move, Placement) else move


def positions(mode: str, players: int, seed: int, every: int) -> Iterator[GenialGame]:
    """Positions of a game driven by greedy and random players in turn (so bonus
    placements and swap offers come up), every ``every``-th move."""
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    n = 0
    while not game.over:
        if n % every == 0:
            yield game
        level = "greedy" if n % 3 else "random"
        game.play(choose_move(game.view(game.to_move), level, rng.getrandbits(32)))
        n += 1


# --- legality -------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "players"), SETUPS)
def test_every_level_plays_legal_moves(mode: str, players: int) -> None:
    seen = Counter[str]()
    for game in positions(mode, players, seed=players * 7 + len(mode), every=3):
        legal = legal_set(game)
        view = game.view(game.to_move)
        seen[game.awaiting or ""] += 1
        for level in ("random", "greedy"):
            for seed in (1, 2):
                assert canonical(choose_move(view, level, seed)) in legal
        if seen["place"] % 6 == 1 or game.awaiting == "swap":
            assert canonical(choose_move(view, "strong", 5)) in legal
    assert seen["place"] >= 10


def test_bonus_placements_and_swaps_are_legal() -> None:
    """Positions in the middle of a turn (a bonus placement owed) and swap decisions, from
    greedy games, where they come up often."""
    kinds = Counter[str]()
    for seed in range(3):
        game = GenialGame(2, seed=seed)
        rng = random.Random(seed)
        last_seat = None
        while not game.over:
            view = game.view(game.to_move)
            mid_turn = game.awaiting == "place" and last_seat == game.to_move and game.moves
            kind = "swap" if game.awaiting == "swap" else "bonus" if mid_turn else ""
            if kind:
                kinds[kind] += 1
                legal = legal_set(game)
                for level in LEVELS:
                    assert canonical(choose_move(view, level, 3)) in legal
            last_seat = game.to_move
            events = game.play(choose_move(view, "greedy", rng.getrandbits(32)))
            if any(isinstance(e, Refilled) for e in events):
                last_seat = None
    assert kinds["swap"] > 0 and kinds["bonus"] > 0


# --- seeds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_a_seed_makes_the_choice_reproducible(level: str) -> None:
    game = GenialGame(2, seed=11)
    rng = random.Random(11)
    for _ in range(7):
        game.play(rng.choice(game.legal_moves()))
    view = game.view(game.to_move)
    first = [choose_move(view, level, seed) for seed in range(5)]
    again = [choose_move(view, level, seed) for seed in range(5)]
    assert first == again


def test_random_level_varies_with_the_seed() -> None:
    view = GenialGame(2, seed=3).view(0)
    assert len({choose_move(view, "random", seed) for seed in range(20)}) > 1


# --- hidden information ---------------------------------------------------------------------


def draw_positions(game: GenialGame) -> list[list[int]]:
    """For each seat, the positions in the initial draw order of the tiles it drew, by
    replaying the game's moves (which must hold no swap)."""
    replayed = GenialGame(game.players, game.mode, game.initial_bag)
    size = replayed.setup.rack_size
    drawn = [list(range(s * size, (s + 1) * size)) for s in range(game.players)]
    front = size * game.players
    for text in game.moves:
        assert text != "swap"
        for event in replayed.play_text(text):
            if isinstance(event, Refilled):
                drawn[event.seat] += range(front, front + event.drawn)
                front += event.drawn
    return drawn


def hide_elsewhere(game: GenialGame, seat: int, rng: random.Random) -> list[Tile]:
    """The initial draw order with every tile ``seat`` has not seen (other racks, the bag)
    moved to a random position among those same tiles' positions."""
    bag = list(game.initial_bag)
    drawn = draw_positions(game)
    unseen = list(range(sum(len(d) for d in drawn), len(bag)))
    for other, positions_ in enumerate(drawn):
        if other == seat:
            continue
        still = Counter(game.racks[other])
        for i in positions_:
            if still[bag[i]]:
                still[bag[i]] -= 1
                unseen.append(i)
    tiles = [bag[i] for i in unseen]
    rng.shuffle(tiles)
    for i, t in zip(unseen, tiles, strict=True):
        bag[i] = t
    return bag


def keep_always_game(seed: int, moves: int) -> GenialGame:
    game = GenialGame(2, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        seed = rng.getrandbits(32)
        view = game.view(game.to_move)
        game.play(KEEP if game.awaiting == "swap" else choose_move(view, "greedy", seed))
    return game


@pytest.mark.parametrize("moves", [0, 9])
def test_where_unseen_tiles_lie_does_not_change_the_move(
    moves: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = keep_always_game(21, moves)
    seat = game.to_move
    rng = random.Random(4)
    for _ in range(20):
        bag = hide_elsewhere(game, seat, rng)
        try:
            other = GenialGame.replay(game.mode, game.players, game.moves, bag)
        except ValueError:
            continue  # the opponent's swap offers changed with its rack: try another deal
        if other.racks[1 - seat] != game.racks[1 - seat]:
            break
    else:
        pytest.fail("no other deal of the unseen tiles replays the same moves")
    assert other.bag.order() != game.bag.order()
    assert other.racks[seat] == game.racks[seat]
    for level in LEVELS:
        for seed in (0, 1):
            assert choose_move(game.view(seat), level, seed) == choose_move(
                other.view(seat), level, seed
            )
    # The command line decides from the view alone too.
    outputs = []
    for g in (game, other):
        path = tmp_path / f"record{len(outputs)}.json"
        path.write_text(json.dumps(g.record()), encoding="utf-8")
        outputs.append(path)
    for level in LEVELS:
        printed = []
        for path in outputs:
            assert main(["ai", str(path), "--level", level, "--seed", "7"]) == 0
            printed.append(capsys.readouterr().out)
        assert printed[0] == printed[1]
        move = game.parse(printed[0].strip())
        assert canonical(move) in legal_set(game)


# --- positions where the right move is plain --------------------------------------------------


def set_rack(game: GenialGame, seat: int, names: list[str]) -> None:
    """Give ``seat`` exactly these tiles, taken from the bag (its old rack goes back)."""
    pool = game.bag.order() + game.racks[seat]
    tiles = [parse_tile(n) for n in names]
    for t in tiles:
        pool.remove(t)
    game.racks[seat] = tiles
    game.bag = Bag(pool)


def bag_with(first: list[str]) -> list[Tile]:
    rest = tile_set()
    tiles = [parse_tile(n) for n in first]
    for t in tiles:
        rest.remove(t)
    return tiles + rest


@pytest.mark.parametrize("level", ["greedy", "strong", "expert"])
def test_completes_a_colour_to_18_for_the_bonus(level: str) -> None:
    # Seat 0 has three reds in a row from the red start symbol (A1): a red hex at A4 scores 3.
    game = GenialGame(2, bag=bag_with(["RR"]))
    game.play(Placement(R, R, Hex(1, -5), Hex(2, -5)))  # A2 A3
    game.play(game.legal_moves()[0])
    assert game.to_move == 0 and game.awaiting == "place"
    # Green is lowest, and no tile on the rack shows green: the lowest colour cannot move.
    game.scores[0] = [15, 2, 10, 10, 10, 10]
    set_rack(game, 0, ["RB", "BY", "OY", "OP", "YP", "BO"])
    move = choose_move(game.view(0), level, 1)
    events = game.play(move)
    assert game.scores[0][R.index] == 18
    assert any(isinstance(e, BonusEarned) and e.colour is R for e in events)


@pytest.mark.parametrize("level", ["greedy", "strong", "expert"])
def test_swaps_a_rack_that_cannot_help_the_lowest_colours(level: str) -> None:
    game = GenialGame(2, seed=5)
    game.scores[0] = [18, 4, 4, 4, 4, 4]  # red is full: red tiles are worth nothing more
    set_rack(game, 0, ["GB", "RR", "RR", "RR", "RR", "RR"])
    game.play(Placement(G, B, Hex(4, -5), Hex(4, -4)))  # next to the green start symbol
    assert game.awaiting == "swap"
    assert choose_move(game.view(0), level, 1) == SWAP


def test_best_moves_are_legal_and_ranked() -> None:
    game = GenialGame(2, bag=bag_with(["RR"]))
    game.play(Placement(R, R, Hex(1, -5), Hex(2, -5)))
    game.play(game.legal_moves()[0])
    game.scores[0] = [15, 2, 10, 10, 10, 10]
    set_rack(game, 0, ["RB", "BY", "OY", "OP", "YP", "BO"])
    view = game.view(0)
    top = best_moves(view, 5)
    assert len(top) == 5
    values = [v for _, v in top]
    assert values == sorted(values, reverse=True)
    legal = legal_set(game)
    assert all(canonical(m) in legal for m, _ in top)
    # The best hint is the one that completes red.
    first = top[0][0]
    assert isinstance(first, Placement) and R in (first.first, first.second)


def test_best_moves_ranks_the_swap_decision() -> None:
    game = GenialGame(2, seed=5)
    game.scores[0] = [18, 4, 4, 4, 4, 4]
    set_rack(game, 0, ["GB", "RR", "RR", "RR", "RR", "RR"])
    game.play(Placement(G, B, Hex(4, -5), Hex(4, -4)))
    top = best_moves(game.view(0))
    assert [m for m, _ in top] == [SWAP, KEEP]


# --- bad calls ------------------------------------------------------------------------------


def test_bad_calls_raise_value_error() -> None:
    game = GenialGame(2, seed=1)
    with pytest.raises(ValueError, match="unknown level"):
        choose_move(game.view(0), "genius")
    with pytest.raises(ValueError, match="not to move"):
        choose_move(game.view(1))
    with pytest.raises(ValueError, match="spectator"):
        choose_move(game.view(None))
    over = dataclasses.replace(game.view(0), over=True, to_move=None)
    with pytest.raises(ValueError, match="over"):
        best_moves(over)


# --- the exact expectation used by the strong player ------------------------------------------


def test_expected_best_matches_a_count_by_hand() -> None:
    # Pool: one tile worth 3, two worth 1. Draw 2 of the 3 (3 equally likely pairs):
    # {3,1}, {3,1}, {1,1} -> best 3, 3, 1 -> mean 7/3.
    assert expected_best([3.0, 1.0], [1, 2], 2) == pytest.approx(7 / 3)
    # With a known tile worth 2 on the rack: best of 2 and one draw (3 w.p. 1/3, else 1).
    assert expected_best([3.0, 1.0], [1, 2], 1, known=2.0) == pytest.approx(3 / 3 + 2 * 2 / 3)
    assert expected_best([3.0], [0], 2, known=1.5) == 1.5


def test_a_deadline_still_gives_a_legal_move() -> None:
    game = GenialGame(4, "team", seed=3)
    rng = random.Random(3)
    for _ in range(12):
        game.play(rng.choice(game.legal_moves()))
    move = choose_move(game.view(game.to_move), "strong", 1, deadline=0.0)
    assert canonical(move) in legal_set(game)
