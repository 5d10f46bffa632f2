"""The greedy play-out of the expert and master players in C (engine/ai/_kernel.c's
play_out) against the Python loop: the same placements one by one, the same scores and end,
the same draws of the random generator; and one placement checked against the rules'
own :meth:`GenialGame.play`."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from engine.ai import kernel
from engine.ai.chances import raw_wins
from engine.ai.evaluation import DEFAULT_WEIGHTS, KIND_COLOURS
from engine.ai.genial_expert import _position_args
from engine.ai.genial_players import (
    _LAYOUT_TABLES,
    _ROW_TABLES,
    Deal,
    Lookahead,
    _play_out_fast,
    greedy_spot,
    lookahead_spot,
    play_out,
    rank_placements,
    redeal,
)
from engine.genial import KIND_OF, GenialGame, PlacementSpot
from engine.moves import Placement

SETUPS = [(2, "standard"), (3, "standard"), (4, "standard"), (4, "team"), (1, "solo")]
T = TypeVar("T")
#: The C loops as built (a test may set ``kernel.kernel`` to None for a while).
BUILT = kernel.kernel


def in_c_and_python(monkeypatch: pytest.MonkeyPatch, run: Callable[[], T]) -> list[T]:
    """What ``run`` gives with the C loop, then without it (the pure-Python loop)."""
    fast = BUILT
    assert fast is not None
    got = []
    for way in (fast, None):
        monkeypatch.setattr(kernel, "kernel", way)
        got.append(run())
    monkeypatch.setattr(kernel, "kernel", fast)
    return got


def positions(players: int, mode: str, seed: int, every: int) -> Iterator[GenialGame]:
    """Every ``every``-th position of a greedy game (swaps decided at random), from its
    first move to its end."""
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    n = 0
    while not game.over:
        if game.awaiting == "swap":
            game.swap_quietly(rng.random() < 0.5)
            continue
        if n % every == 0:
            yield game
        game.play_spot(greedy_spot(game, DEFAULT_WEIGHTS, rng))
        n += 1


def dealt_starts(
    players: int, mode: str, seed: int, every: int, deal: int
) -> Iterator[tuple[GenialGame, PlacementSpot]]:
    """For each of :func:`positions` where a placement is due: the mover's unseen tiles
    dealt anew (generator seeded ``deal``) and greedy's best placement on that deal."""
    for game in positions(players, mode, seed, every):
        if game.awaiting == "swap":
            continue
        world = redeal(game, game.to_move, random.Random(deal))
        yield world, world._layout.where[rank_placements(world)[0][0]]


def python_trace(
    world: GenialGame,
    spot: PlacementSpot,
    steps: int,
    rng: random.Random,
    look: Lookahead | None = None,
) -> tuple[list[tuple[int, int, int, int]], GenialGame]:
    """The Python loop's placements (cell, cell, colour, colour) and where it stops: greedy
    ones, or with ``look`` the lookahead's."""
    g = world.copy()
    g.play_spot(spot)
    trace = [(spot.cell1, spot.cell2, spot.first, spot.second)]
    made = 0
    while not g.over and made < steps:
        if g.awaiting == "swap":
            g.swap_quietly(True)
            continue
        if look is None:
            s = greedy_spot(g, DEFAULT_WEIGHTS, rng)
        else:
            s = lookahead_spot(g, DEFAULT_WEIGHTS, look)
        trace.append((s.cell1, s.cell2, s.first, s.second))
        g.play_spot(s)
        made += 1
    return trace, g


def c_trace(
    world: GenialGame, spot: PlacementSpot, steps: int, rng: random.Random
) -> tuple[list[tuple[int, int, int, int]], tuple[int, list[list[int]], bool, int | None]]:
    """The C loop's placements (the first one included) and where it stops."""
    fast = kernel.kernel
    assert fast is not None
    trace: list[tuple[int, int, int, int]] = []
    first = (spot.cell1, spot.cell2, spot.first, spot.second)
    made, end = _play_out_fast(fast, world, first, steps, rng, DEFAULT_WEIGHTS, trace)
    return trace, (made, end.scores, end.over, end.winner)


def first_round(players: int, mode: str, seed: int) -> Iterator[GenialGame]:
    """Each position of a game before every seat has placed, the first placements made at
    random among the allowed ones (so that different start symbols are taken)."""
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    while not all(game.has_placed):
        yield game
        game.play(rng.choice(game.legal_placements()))


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_the_c_play_out_makes_the_python_placements(players: int, mode: str) -> None:
    compared = 0
    for seed in (1, 2):
        for game in positions(players, mode, seed, 5):
            if not all(game.has_placed) or game.awaiting == "swap":
                continue
            world = redeal(game, game.to_move, random.Random(seed))
            for p, _ in rank_placements(world)[:2]:
                spot = world._layout.where[p]
                before = (world.board.copy(), [c.copy() for c in world._points])
                py_rng, c_rng = random.Random(7), random.Random(7)
                expected, end = python_trace(world, spot, 60, py_rng)
                got, (made, scores, over, winner) = c_trace(world, spot, 60, c_rng)
                assert got == expected
                assert made == len(expected) - 1
                assert (scores, over, winner) == (end.scores, end.over, end.winner)
                assert c_rng.random() == py_rng.random()  # the same draws, no more
                assert (world.board, world._points) == before  # the world is left as it was
                compared += 1
    assert compared >= 10


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_the_c_play_out_plays_the_first_round_as_python_does(players: int, mode: str) -> None:
    # Issue 50: the C loop plays the first round too (RULES.md 2.3), so master's first move
    # costs what its later ones do. Each seat's first placement must touch a start symbol no
    # tile touches yet: the C loop must make Python's placements one by one there too,
    # where nearly every placement ties for best (one draw among many).
    compared = 0
    for seed in (1, 2, 3):
        for game in first_round(players, mode, seed):
            world = redeal(game, game.to_move, random.Random(seed))
            for p, _ in rank_placements(world)[:3]:
                spot = world._layout.where[p]
                for steps in (60, 2):
                    py_rng, c_rng = random.Random(seed), random.Random(seed)
                    expected, end = python_trace(world, spot, steps, py_rng)
                    got, (made, scores, over, winner) = c_trace(world, spot, steps, c_rng)
                    assert got == expected
                    assert made == len(expected) - 1
                    assert (scores, over, winner) == (end.scores, end.over, end.winner)
                    assert c_rng.random() == py_rng.random()
                    compared += 1
                # Every first placement touched a start symbol that none touched before it.
                touched: set[int] = set(world.start_touched)
                near = world._layout.near_start
                for i, j, _, _ in expected[: players - sum(world.has_placed)]:
                    fresh = (set(near[i]) | set(near[j])) - touched
                    assert len(fresh) == 1
                    touched |= fresh
    assert compared >= 12


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_play_outs_are_the_pure_python_play_outs(
    players: int, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From every stage, the first round included (C plays it too where built), and
    # stopped early as well as played to the end.
    for world, spot in dealt_starts(players, mode, 3, 4, 5):
        for steps in (60, 2):

            def end(
                world: GenialGame = world, spot: PlacementSpot = spot, steps: int = steps
            ) -> tuple[object, ...]:
                rng = random.Random(11)
                e = play_out(world, spot, steps, rng, DEFAULT_WEIGHTS)
                return (e.scores, e.over, e.winner, e.ranking(), rng.random())

            ends = in_c_and_python(monkeypatch, end)
            assert ends[0] == ends[1]


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_a_deal_plays_out_as_play_out_does(
    players: int, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 50: master hands each deal to the C loop once and plays it out from many first
    # placements; every play-out must still be play_out's (the first round included), and
    # the deal itself the same with and without the kernel.
    fast = kernel.kernel
    assert fast is not None
    compared = 0
    for game in positions(players, mode, 6, 5):
        if game.awaiting == "swap":
            continue

        def dealt(game: GenialGame = game) -> GenialGame:
            return redeal(game, game.to_move, random.Random(8))

        worlds = in_c_and_python(monkeypatch, dealt)
        assert [w.racks for w in worlds] == [worlds[0].racks] * 2
        assert [w.bag.order() for w in worlds] == [worlds[0].bag.order()] * 2
        world = worlds[0]
        for way in (fast, None):
            monkeypatch.setattr(kernel, "kernel", way)
            deal = Deal(world, DEFAULT_WEIGHTS)
            for p, _ in rank_placements(world)[:3]:
                spot = world._layout.where[p]
                for steps in (60, 3):
                    ends = []
                    for run in (deal.play_out, None):
                        rng = random.Random(13)
                        if run is None:
                            e = play_out(world, spot, steps, rng, DEFAULT_WEIGHTS)
                        else:
                            e = run(spot, steps, rng)
                        ends.append((e.scores, e.over, e.winner, rng.random()))
                    assert ends[0] == ends[1]
                    compared += 1
    assert compared >= 30


@pytest.mark.parametrize("look", [None, Lookahead()])
def test_a_start_read_once_plays_out_as_play_out_does_each_time(look: Lookahead | None) -> None:
    # The kernel's start() reads a deal once; play_out_from() plays out a copy of it, and the
    # lookahead keeps the next seat's best on each pair from the start. Played out from
    # several first placements, in turn and twice over, each play-out must be play_out's
    # placement for placement: nothing a play-out changes may reach the start.
    fast = kernel.kernel
    assert fast is not None
    compared = 0
    for world, _ in dealt_starts(2, "standard", 4, 6, 2):
        args = _position_args(fast, world, DEFAULT_WEIGHTS)
        start = fast.start(*args)
        look_args = None if look is None else look.args()
        spots = [world._layout.where[p] for p, _ in rank_placements(world)[:3]]
        for spot in spots * 2:
            first = (spot.cell1, spot.cell2, spot.first, spot.second)
            traces = []
            for run in (fast.play_out_from, None):
                trace: list[tuple[int, int, int, int]] = []
                getrandbits = random.Random(3).getrandbits
                if run is None:
                    end = fast.play_out(*args, first, 60, getrandbits, trace, look_args)
                else:
                    end = run(start, first, 60, getrandbits, trace, look_args)
                traces.append((trace, end))
            assert traces[0] == traces[1]
            assert len(traces[0][0]) > 1
            compared += 1
    assert compared >= 12


def test_a_bad_start_is_an_error_not_a_crash() -> None:
    fast = kernel.kernel
    assert fast is not None
    game = next(g for g in positions(2, "standard", 1, 1) if all(g.has_placed))
    args = _position_args(fast, game, DEFAULT_WEIGHTS)
    start = fast.start(*args)
    occupied = next(i for i, c in enumerate(game.board) if c >= 0)
    empty = next(i for i, c in enumerate(game.board) if c < 0)
    getrandbits = random.Random(0).getrandbits
    with pytest.raises(ValueError):
        fast.play_out_from(args[0], None, 5, getrandbits, None)  # a layout, not a start
    with pytest.raises(ValueError, match="empty cells"):  # a placement on a covered cell
        fast.play_out_from(start, (occupied, empty, 0, 0), 5, getrandbits, None)
    with pytest.raises(ValueError):
        fast.play_out_from(start, None, 5, getrandbits, None, (0, 0.5))  # no candidates
    with pytest.raises(ValueError):
        fast.start(*args[:2], game.board[:-1], *args[3:])  # a board of another size
    assert fast.play_out_from(start, None, 5, getrandbits, None)[0] == 5  # still plays


def test_the_c_shuffle_is_random_shuffle() -> None:
    # redeal shuffles the unseen tiles in C where the kernel is built: the same order and
    # the same draws as random.Random.shuffle (CPython's own, the reference).
    fast = kernel.kernel
    assert fast is not None
    for n in (0, 1, 2, 3, 7, 64, 120):
        for seed in range(25):
            by_python, by_c = list(range(n)), list(range(n))
            r1, r2 = random.Random(seed), random.Random(seed)
            r1.shuffle(by_python)
            fast.shuffle(by_c, r2.getrandbits)
            assert by_c == by_python
            assert r1.getstate() == r2.getstate()
    with pytest.raises(ValueError):  # bits out of the range asked for
        fast.shuffle([1, 2, 3], lambda k: 1 << k)
    with pytest.raises(TypeError):
        fast.shuffle((1, 2, 3), random.Random(0).getrandbits)


def test_one_placement_scores_as_the_rules_say() -> None:
    # steps=0: only the given placement, as GenialGame.play (the checked road, with its
    # events) plays it: the points of every line, the marks and bonus placements, the turn.
    checked = 0
    for players, mode in SETUPS:
        for game in positions(players, mode, 4, 3):
            if not all(game.has_placed) or game.awaiting == "swap":
                continue
            for p, _ in rank_placements(game)[:3]:
                spot = game._layout.where[p]
                ruled = game.copy()
                ruled.play(p)
                _, (made, scores, over, winner) = c_trace(game, spot, 0, random.Random(0))
                assert made == 0
                assert scores == ruled.scores
                assert (over, winner) == (ruled.over, ruled.winner)
                checked += 1
    assert checked >= 50


def test_bad_input_is_an_error_not_a_crash() -> None:
    fast = kernel.kernel
    assert fast is not None
    game = next(g for g in positions(2, "standard", 1, 1) if all(g.has_placed))
    spot = game._layout.where[rank_placements(game)[0][0]]
    _play_out_fast(fast, game, None, 0, random.Random(0), DEFAULT_WEIGHTS)
    setup = game.setup
    tables, rows = _LAYOUT_TABLES[setup.radius], _ROW_TABLES[(setup, DEFAULT_WEIGHTS)]
    rules = (2, False, setup.cap, setup.marks, True, True, setup.rack_size)
    racks = [[KIND_OF[t] for t in r] for r in game.racks]
    bag = [KIND_OF[t] for t in game.bag.order()]
    occupied = next(i for i, c in enumerate(game.board) if c >= 0)

    def run(**change: object) -> object:
        args: dict[str, object] = {
            "layout": tables,
            "rows": rows,
            "board": game.board,
            "points": game._points,
            "empty": game.empty_edges,
            "racks": racks,
            "bag": bag,
            "scores": game.scores,
            "rules": rules,
            "turn": (game.to_move, 0, False, None),
            "first": (spot.cell1, spot.cell2, spot.first, spot.second),
            "steps": 5,
            "getrandbits": random.Random(0).getrandbits,
            "trace": None,
        }
        args.update(change)
        return fast.play_out(*args.values())

    assert run()  # the unchanged call plays
    with pytest.raises(ValueError):
        run(board=game.board[:-1])  # a board of another size
    with pytest.raises(ValueError):
        run(first=(occupied, spot.cell2, 0, 0))  # a placement on a covered cell
    with pytest.raises(ValueError):
        run(scores=[[99] * 6, [0] * 6])  # a score beyond the cap
    with pytest.raises(ValueError):
        run(empty=[10**6])  # an edge that does not exist
    with pytest.raises(ValueError):
        run(racks=[[KIND_OF[t] for t in game.racks[0]] * 2, racks[1]])  # 12 tiles on a rack
    with pytest.raises(ValueError):
        run(layout=rows)  # the tables swapped
    with pytest.raises(TypeError):
        run(getrandbits=None)
    with pytest.raises(ZeroDivisionError):  # an error in the generator is passed on
        run(getrandbits=lambda k: 1 // 0, steps=60)
    turn = (game.to_move, 0, False)
    with pytest.raises(ValueError):  # the first round: one seat's placed of two
        run(turn=(*turn, ((True,), [[1, 2]])))
    with pytest.raises(ValueError):  # a start symbol's cell off the board
        run(turn=(*turn, ((True, False), [[10**6]])))
    with pytest.raises(ValueError):  # seven start symbols
        run(turn=(*turn, ((True, False), [[1]] * 7)))
    with pytest.raises(TypeError):
        run(turn=(*turn, "first round"))
    with pytest.raises(IndexError):  # a first placement with every start symbol touched
        run(turn=(*turn, ((False, False), [])))
    with pytest.raises(ValueError):  # 3 kinds of tile, not 21
        fast.layout([0], [1], [[0], [0]], [()] * 12, KIND_COLOURS[:3])


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_the_chances_from_the_first_round_are_the_pure_python_ones(
    players: int, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The review's chances to win play every deal to the end: from the first round on too
    # in C now, with the wins of the Python loop.
    for game in first_round(players, mode, 4):
        moves = [p for p, _ in rank_placements(game)[:2]]

        def wins(game: GenialGame = game, moves: list[Placement] = moves) -> list[list[float]]:
            return raw_wins(game, moves, samples=6, seed=3)

        by_way = in_c_and_python(monkeypatch, wins)
        assert by_way[0] == by_way[1]
