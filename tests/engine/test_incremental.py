"""The structures Genial keeps up to date as cells are covered (the empty pairs, the points
each colour would score on each empty cell, the start symbols touched) against the same
things counted from scratch on the board, after random moves, copies and rebuilt views.

The counts from scratch here walk the hex grid with :class:`Hex` steps and the rules'
wording only (RULES.md 2.4: the same symbols in a straight line from a hex, in each of its
directions, uninterrupted), sharing no table with the engine.
"""

from __future__ import annotations

import random
from itertools import groupby

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.genial import EMPTY, GenialGame
from engine.hexgrid import DIRECTIONS, Hex, distance

from .helpers import put

SETUPS = [(1, "solo"), (2, "standard"), (3, "standard"), (4, "standard"), (4, "team")]


def scratch_points(game: GenialGame) -> dict[Hex, tuple[int, ...]]:
    """For every empty cell, the points a symbol of each colour would score there."""
    colours = {h: k for h, k in zip(game.area.cells, game.board, strict=True) if k != EMPTY}
    out = {}
    for h in game.area.cells:
        if h in colours:
            continue
        pts = [0] * 6
        for dq, dr in DIRECTIONS:
            step = Hex(h.q + dq, h.r + dr)
            colour = colours.get(step)
            while step in colours and colours[step] == colour:
                assert colour is not None
                pts[colour] += 1
                step = Hex(step.q + dq, step.r + dr)
        out[h] = tuple(pts)
    return out


def scratch_empty_pairs(game: GenialGame) -> set[frozenset[Hex]]:
    empty = [h for h, k in zip(game.area.cells, game.board, strict=True) if k == EMPTY]
    return {frozenset((a, b)) for a in empty for b in empty if distance(a, b) == 1}


def assert_kept_structures_are_exact(game: GenialGame) -> None:
    cells = game.area.cells
    expected = scratch_points(game)
    table = game.cell_points()
    assert {cells[i]: pts for i, pts in enumerate(table) if pts is not None} == expected
    by_colour = game.colour_points()
    for h, pts in expected.items():
        assert tuple(by_colour[c][game.area.index[h]] for c in range(6)) == pts
    pairs = {
        frozenset((cells[i], cells[j])) for i, j in (game.area.edges[e] for e in game.empty_edges)
    }
    assert pairs == scratch_empty_pairs(game)
    assert len(game.empty_edges) == len(pairs), "an empty pair is listed twice"
    touched = {
        s
        for s in game.start_cells
        if any(
            distance(cells[s], cells[i]) == 1 for i in game.cell_order if i not in game.start_cells
        )
    }
    assert game.start_touched == touched


def play_one(game: GenialGame, rng: random.Random) -> None:
    game.play(rng.choice(game.legal_moves()))


def test_points_grow_at_both_ends_of_a_line_and_stop_at_other_colours() -> None:
    # Worked by hand on the 2-player board, well away from the start symbols.
    game = GenialGame(2, seed=1)
    put(game, {(0, 0): "R", (1, 0): "R"})
    red = 0
    points = {game.area.cells[i]: p for i, p in enumerate(game.cell_points()) if p is not None}
    assert points[Hex(2, 0)][red] == 2  # looks west along (1,0), (0,0)
    assert points[Hex(-1, 0)][red] == 2  # looks east along (0,0), (1,0)
    assert points[Hex(0, 1)][red] == 2  # north-west (0,0) and north-east (1,0), one each
    put(game, {(3, 0): "R"})
    points = {game.area.cells[i]: p for i, p in enumerate(game.cell_points()) if p is not None}
    assert points[Hex(2, 0)][red] == 3  # two to the west, one to the east
    assert points[Hex(4, 0)][red] == 1  # only (3, 0): (2, 0) is still empty
    put(game, {(2, 0): "R"})
    points = {game.area.cells[i]: p for i, p in enumerate(game.cell_points()) if p is not None}
    assert points[Hex(4, 0)][red] == 4  # the line (3,0) .. (0,0) joined up
    assert points[Hex(-1, 0)][red] == 4
    put(game, {(-1, 0): "G"})
    points = {game.area.cells[i]: p for i, p in enumerate(game.cell_points()) if p is not None}
    assert points[Hex(-2, 0)] == (0, 1, 0, 0, 0, 0)  # the green hex hides the red line


@settings(max_examples=20, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1))
def test_kept_structures_match_a_count_from_scratch_after_every_move(
    setup: tuple[int, str], seed: int
) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    assert_kept_structures_are_exact(game)
    while not game.over:
        play_one(game, rng)
        assert_kept_structures_are_exact(game)


@settings(max_examples=15, deadline=None)
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.integers(0, 2**32 - 1),
    split=st.integers(0, 60),
    steps=st.integers(1, 30),
)
def test_a_copy_keeps_its_own_structures(
    setup: tuple[int, str], seed: int, split: int, steps: int
) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(split):
        if game.over:
            return
        play_one(game, rng)
    before = (game.cell_points(), sorted(game.empty_edges), set(game.start_touched))
    twin = game.copy()
    other = random.Random(seed + 1)
    for _ in range(steps):
        if twin.over:
            break
        play_one(twin, other)
        assert_kept_structures_are_exact(twin)
    # Playing on the copy changed nothing in the original ...
    assert (game.cell_points(), sorted(game.empty_edges), set(game.start_touched)) == before
    assert_kept_structures_are_exact(game)
    # ... which goes on along its own line just as well.
    for _ in range(steps):
        if game.over:
            break
        play_one(game, rng)
        assert_kept_structures_are_exact(game)


@settings(max_examples=15, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_a_game_rebuilt_from_a_view_counts_the_same(
    setup: tuple[int, str], seed: int, steps: int
) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return
        play_one(game, rng)
    sample = GenialGame.from_view(game.view(game.to_move), random.Random(seed))
    assert_kept_structures_are_exact(sample)
    assert sample.cell_points() == game.cell_points()
    assert sample.placements_with_points() == game.placements_with_points()
    # The rebuilt game keeps its structures up to date from there on too.
    while not sample.over:
        play_one(sample, rng)
        assert_kept_structures_are_exact(sample)


@settings(max_examples=12, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_listed_points_are_counted_from_the_board(
    setup: tuple[int, str], seed: int, steps: int
) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return
        play_one(game, rng)
    scratch = scratch_points(game)
    listed = game.placements_with_points()
    assert len(listed) == len(game.legal_placements())
    assert {p for p, _ in listed} == set(game.legal_placements())
    for placement, pts in listed:
        expected = [0] * 6
        expected[placement.first.index] += scratch[placement.cell1][placement.first.index]
        expected[placement.second.index] += scratch[placement.cell2][placement.second.index]
        assert pts == tuple(expected)
        direct = game.points_of(placement)  # the engine's own walk along the lines
        assert {c.index: n for c, n in direct.items()} == {c: n for c, n in enumerate(pts) if n}


@settings(max_examples=12, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 50))
def test_spots_and_groups_describe_their_placements(
    setup: tuple[int, str], seed: int, steps: int
) -> None:
    players, mode = setup
    game = GenialGame(players, mode, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return
        play_one(game, rng)
    index = game.area.index
    spots = game.placement_spots()
    assert len(spots) == len(game.legal_placements())
    assert {s.placement for s in spots} == set(game.legal_placements())
    for s in spots:
        p = s.placement
        assert (s.cell1, s.cell2) == (index[p.cell1], index[p.cell2])
        assert (s.first, s.second) == (p.first.index, p.second.index)
    # order sorts as (cell1 row, column, cell2 row, column, colours): reading order.
    by_order = sorted(spots, key=lambda s: s.order)
    by_key = sorted(
        spots,
        key=lambda s: (
            s.placement.cell1.r,
            s.placement.cell1.q,
            s.placement.cell2.r,
            s.placement.cell2.q,
            s.first,
            s.second,
        ),
    )
    assert by_order == by_key
    for group in game.placement_groups():
        for s, i, j in zip(group.spots, group.cells1, group.cells2, strict=True):
            assert (s.cell1, s.cell2, s.first, s.second) == (i, j, group.first, group.second)


def test_an_empty_rack_lists_no_placement() -> None:
    # Only a position set up by hand has the player to move without tiles.
    game = GenialGame(2, seed=1)
    game.racks[0] = []
    assert game.legal_moves() == []
    assert game.placements_with_points() == []
    assert game.placement_spots() == []


@pytest.mark.parametrize(("players", "mode"), SETUPS)
def test_placements_are_listed_kind_by_kind_in_rack_order(players: int, mode: str) -> None:
    """Issue 50: a listing is each kind of tile on the rack in rack order, all its
    placements together (one way round on every empty pair, then the other), as
    :meth:`placement_groups` lists them: copied a table at a time, not a pair at a time."""
    game = GenialGame(players, mode, seed=11)
    rng = random.Random(11)
    checked = 0
    while not game.over:
        moves = game.legal_moves()
        if game.awaiting == "place":
            listed = game.legal_placements()
            runs = [tile for tile, _ in groupby(p.tile for p in listed)]
            assert runs == list(dict.fromkeys(game.racks[game.to_move]))
            assert listed == [s.placement for g in game.placement_groups() for s in g.spots]
            assert len(set(listed)) == len(listed)
            checked += 1
        game.play(moves[rng.randrange(len(moves))])
    assert checked > 10
