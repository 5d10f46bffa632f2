"""Invariants over random legal games of every mode (hypothesis chooses seeds and moves)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.genial import EMPTY, GenialGame
from engine.hexgrid import distance
from engine.moves import KEEP, SWAP, Placement
from engine.notation import format_genial_move, parse_genial_move
from engine.tiles import Bag, tile_set

SETUPS = [(1, "solo"), (2, "standard"), (3, "standard"), (4, "standard"), (4, "team")]


def play_random(game: GenialGame, rng: random.Random, check: object = None) -> list[GenialGame]:
    """Play to the end choosing uniformly among the legal moves; return every position."""
    positions = [game.copy()]
    while not game.over:
        move = rng.choice(game.legal_moves())
        game.play(move)
        positions.append(game.copy())
        assert len(positions) < 400, "a game must end"
    return positions


def adjacent_empty_pair_exists(game: GenialGame) -> bool:
    board = game.board
    return any(board[i] == EMPTY and board[j] == EMPTY for i, j in game.area.edges)


@settings(max_examples=25, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(setup: tuple[int, str], seed: int) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    positions = play_random(game, random.Random(seed))
    cap = game.setup.cap
    previous = None
    for pos in positions:
        # All 120 tiles are accounted for: bag + racks + the board (two cells a tile).
        on_board = sum(1 for k in pos.board if k != EMPTY) - 6
        assert on_board % 2 == 0
        held = len(pos.bag) + sum(len(r) for r in pos.racks)
        assert held + on_board // 2 == 120
        assert Counter(pos.bag.order()) + Counter(t for r in pos.racks for t in r) <= Counter(
            tile_set()
        )
        for side in pos.scores:
            assert all(0 <= v <= cap for v in side)
        if previous is not None:
            for a, b in zip(previous.scores, pos.scores, strict=True):
                assert all(x <= y for x, y in zip(a, b, strict=True)), "a score went down"
        previous = pos
    end = positions[-1]
    assert end.over and end.end_reason is not None
    if end.end_reason == "board_full":
        assert not adjacent_empty_pair_exists(end)
    if end.end_reason == "immediate_win":
        assert end.winner is not None and min(end.scores[end.winner]) == cap
    ranking = end.ranking()
    assert ranking is not None
    assert sorted(s for place in ranking for s in place) == list(range(game.sides))


@settings(max_examples=15, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1))
def test_replay_of_the_record_reproduces_the_game(setup: tuple[int, str], seed: int) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    stop = rng.randrange(5, 80)
    while not game.over and game.version < stop:
        game.play(rng.choice(game.legal_moves()))
    record = game.record()
    bag = [t for t in game.initial_bag]
    again = GenialGame.replay(mode, players, record["moves"], bag=bag)  # type: ignore[arg-type]
    for seat in [None, *range(players)]:
        assert again.view(seat) == game.view(seat)
    assert again.bag.order() == game.bag.order()
    assert again.board_summary() == game.board_summary()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 30))
def test_a_view_never_reveals_other_racks_or_the_draw_order(seed: int, steps: int) -> None:
    game = GenialGame(3, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        game.play(rng.choice(game.legal_moves()))
    view = game.view(0)
    # Deal what seat 0 cannot see differently: other racks and bag shuffled together.
    other = game.copy()
    pool = other.bag.order() + other.racks[1] + other.racks[2]
    rng.shuffle(pool)
    n1, n2 = len(other.racks[1]), len(other.racks[2])
    other.racks[1], other.racks[2] = pool[:n1], pool[n1 : n1 + n2]
    other.bag = Bag(pool[n1 + n2 :])
    assert other.view(0) == view
    assert view.rack == tuple(game.racks[0])
    spectator = game.view(None)
    assert spectator.rack is None
    assert sum(spectator.unseen.values()) == len(game.bag) + sum(len(r) for r in game.racks)


@settings(max_examples=20, deadline=None)
@given(setup=st.sampled_from(SETUPS[1:]), seed=st.integers(0, 2**32 - 1))
def test_notation_round_trips_for_every_legal_move(setup: tuple[int, str], seed: int) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 40)):
        if game.over:
            return
        game.play(rng.choice(game.legal_moves()))
    moves = game.legal_moves()
    assert len(set(m.canonical() if isinstance(m, Placement) else m for m in moves)) == len(moves)
    for move in moves:
        text = format_genial_move(move, game.area)
        assert parse_genial_move(text, game.area) == move
        assert parse_genial_move(text.lower().replace(" ", " , ", 1), game.area) == move


def test_swap_choices_are_the_legal_moves_while_a_swap_is_due() -> None:
    for seed in range(200):
        game = GenialGame(2, seed=seed)
        rng = random.Random(seed)
        while not game.over and game.awaiting != "swap":
            game.play(rng.choice(game.legal_moves()))
        if game.awaiting == "swap":
            assert game.legal_moves() == [SWAP, KEEP]
            return
    raise AssertionError("no swap was offered in 200 random games")


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 12))
def test_legal_placements_are_exactly_the_placements_that_pass_the_checks(
    seed: int, steps: int
) -> None:
    game = GenialGame(2, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return
        game.play(rng.choice(game.legal_moves()))
    if game.awaiting != "place":
        return
    area = game.area
    brute = set()
    for a in area.cells:
        for b in area.cells:
            for tile in set(game.racks[game.to_move]):
                move = Placement(tile.first, tile.second, a, b)
                try:
                    game.check(move)
                except ValueError:
                    continue
                brute.add(move.canonical())
    assert brute == set(game.legal_placements())
    assert brute == {m for m, _ in game.placements_with_points()}


@settings(max_examples=15, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40))
def test_a_determinisation_agrees_with_the_view_it_came_from(
    setup: tuple[int, str], seed: int, steps: int
) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        game.play(rng.choice(game.legal_moves()))
    seat = game.to_move
    view = game.view(seat)
    sample = GenialGame.from_view(view, random.Random(seed + 1))
    # The same position as far as the seat can tell, and the hidden tiles are the unseen ones.
    assert sample.view(seat) == view
    hidden = Counter(sample.bag.order())
    for s, rack in enumerate(sample.racks):
        if s != seat:
            hidden.update(rack)
    assert dict(hidden) == view.unseen
    assert sample.legal_moves() == game.legal_moves()


@settings(max_examples=25, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 70))
def test_legal_placements_pass_the_checks_in_every_mode(
    setup: tuple[int, str], seed: int, steps: int
) -> None:
    # Every placement of every rack tile, both ways round, on every two cells next to each
    # other (other pairs fail the adjacency check, shown for two players above).
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return
        game.play(rng.choice(game.legal_moves()))
    if game.awaiting != "place":
        return
    cells = game.area.cells
    brute = set()
    for a in cells:
        for b in cells:
            if distance(a, b) != 1:
                continue
            for tile in set(game.racks[game.to_move]):
                move = Placement(tile.first, tile.second, a, b)
                try:
                    game.check(move)
                except ValueError:
                    continue
                brute.add(move.canonical())
    listed = game.legal_placements()
    assert len(listed) == len(set(listed)), "a placement is listed twice"
    assert brute == set(listed)
    assert brute == {m for m, _ in game.placements_with_points()}
    assert brute == {s.placement for s in game.placement_spots()}
