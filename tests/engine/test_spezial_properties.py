"""Invariants of Genial Spezial over random games for 2, 3 and 4 players (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import GoldenPoint, Scored, TallBonus, TokenFlipped, TowerScored
from engine.record import Record, replay, summary
from engine.spezial import SCORE_COLOURS, TILES_PER_PLAYER, SpezialGame, board_layout

players_st = st.sampled_from([2, 3, 4])
seeds = st.integers(0, 2**32 - 1)


def random_game(players: int, seed: int) -> tuple[SpezialGame, list[list[object]]]:
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    turns: list[list[object]] = []
    while not game.over:
        turns.append(list(game.play(game.random_placement(rng))))
    return game, turns


@settings(max_examples=30, deadline=None)
@given(players_st, seeds)
def test_scores_never_decrease_and_tokens_turn_dark_when_first_scored(
    players: int, seed: int
) -> None:
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    light = {cell: t.value for cell, t in game.towers().items()}
    scored_once: set[object] = set()
    before = [game.score(s) for s in range(players)]
    while not game.over:
        seat = game.to_move
        events = game.play(game.random_placement(rng))
        for e in events:
            if isinstance(e, TowerScored):
                # A token pays its light value the first time, its dark value after.
                assert e.points == light[e.tower] + (e.tower in scored_once)
                scored_once.add(e.tower)
        after = [game.score(s) for s in range(players)]
        for s in range(players):
            for c in SCORE_COLOURS:
                assert after[s][c] >= before[s][c]
                if s != seat:
                    assert after[s][c] == before[s][c]
        before = after
        for cell, tower in game.towers().items():
            assert tower.dark == (cell in scored_once)
            assert tower.value == light[cell] + tower.dark


@settings(max_examples=30, deadline=None)
@given(players_st, seeds)
def test_the_game_ends_after_twenty_rounds(players: int, seed: int) -> None:
    game, turns = random_game(players, seed)
    assert len(turns) == len(game.moves) == TILES_PER_PLAYER * players
    assert game.end_reason == "all_tiles_placed"
    assert game.view(None).tiles_left == (0,) * players
    assert sorted(s for place in game.ranking() or [] for s in place) == list(range(players))
    # Seats took turns in order; every placement covered two cells of that seat.
    board = game.view(None).board
    assert len(board) == 2 * TILES_PER_PLAYER * players
    assert sorted(board.values()) == sorted(list(range(players)) * 2 * TILES_PER_PLAYER)


@settings(max_examples=30, deadline=None)
@given(players_st, seeds)
def test_each_turn_scores_what_its_events_narrate(players: int, seed: int) -> None:
    _, turns = random_game(players, seed)
    for events in turns:
        pts = dict.fromkeys(SCORE_COLOURS, 0)
        for e in events:
            if isinstance(e, TowerScored):
                pts[e.colour] += e.points
            elif isinstance(e, TallBonus):
                assert e.points == len(e.towers) > 0
                for c in SCORE_COLOURS:
                    pts[c] += e.points
            elif isinstance(e, GoldenPoint):
                pts[e.colour] += 1
        flips = [e for e in events if isinstance(e, TokenFlipped)]
        scored_towers = {e.tower for e in events if isinstance(e, TowerScored)}
        assert {e.tower for e in flips} <= scored_towers
        scored = [e for e in events if isinstance(e, Scored)]
        if any(pts.values()):
            assert len(scored) == 1
            assert scored[0].points == {c: p for c, p in pts.items() if p}
        else:
            assert scored == []


@settings(max_examples=30, deadline=None)
@given(players_st, seeds, st.integers(0, 79))
def test_replay_and_views_reproduce_the_game(players: int, seed: int, cut: int) -> None:
    game, _ = random_game(players, seed)
    again = replay(Record.from_dict(game.record()))
    assert isinstance(again, SpezialGame)
    assert summary(again) == summary(game)
    assert again.view(None) == game.view(None)
    # A game rebuilt from a view mid-game goes on exactly like the original.
    moves = game.moves[: cut % len(game.moves)]
    partial = SpezialGame.replay(players, moves, [t.name for t in game.tokens])
    rebuilt = SpezialGame.from_view(partial.view(0), random.Random(0))
    assert rebuilt.view(0) == partial.view(0)
    for text in game.moves[len(moves) :]:
        assert rebuilt.play_text(text) == partial.play_text(text)
    assert rebuilt.view(1) == partial.view(1)


@settings(max_examples=15, deadline=None)
@given(players_st, seeds, st.integers(0, 79))
def test_placements_with_points_match_playing_them(players: int, seed: int, cut: int) -> None:
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(cut % (TILES_PER_PLAYER * players)):
        game.play(game.random_placement(rng))
    listed = game.placements_with_points()
    assert [p for p, _ in listed] == game.legal_moves()
    seat = game.to_move
    for placement, points in listed:
        trial = game.copy()
        before = trial.score(seat)
        trial.play(placement)
        after = trial.score(seat)
        assert points == tuple(after[c] - before[c] for c in SCORE_COLOURS)


@settings(max_examples=40, deadline=None)
@given(players_st, seeds, st.integers(0, 79))
def test_points_listed_at_once_are_each_placements_own(players: int, seed: int, cut: int) -> None:
    # The listing gathers chains once per cell; one placement at a time, _outcome walks
    # its two cells' chains itself (and is what play scores).
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(cut % (TILES_PER_PLAYER * players)):
        game.play(game.random_placement(rng))
    edges = game.area.edges
    listed = game.placements_with_points()
    for e, (_, points) in zip(game._open_edges, listed, strict=True):
        assert points == game._outcome(game.to_move, *edges[e], ()).points
    # In reading order of their cells (the players' ties rely on it).
    keys = [(p.cell1.r, p.cell1.q, p.cell2.r, p.cell2.q) for p, _ in listed]
    assert keys == sorted(keys)


@settings(max_examples=20, deadline=None)
@given(players_st, seeds, st.integers(0, 79))
def test_legal_moves_are_the_empty_adjacent_pairs(players: int, seed: int, cut: int) -> None:
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(cut % (TILES_PER_PLAYER * players)):
        game.play(game.random_placement(rng))
    # Worked out from the layout and the view alone, not from the game's tables.
    layout = board_layout()
    blocked = {t.cell for t in layout.towers_for(players)} | set(game.view(None).board)
    free = [h for h in layout.area.cells if h not in blocked]
    free_set = set(free)
    expected = {
        (a, b) for a in free for b in a.neighbours() if b in free_set and (a.r, a.q) < (b.r, b.q)
    }
    moves = game.legal_moves()
    assert len(moves) == len(expected)
    assert {(m.cell1, m.cell2) for m in moves} == expected


@settings(max_examples=20, deadline=None)
@given(players_st, seeds, st.integers(0, 79))
def test_chains_remember_what_they_scored(players: int, seed: int, cut: int) -> None:
    """After every placement, a chain touching two or more towers has scored all of them,
    and one touching two or more tall towers has been paid for all of those (RULES 3.3)."""
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(cut % (TILES_PER_PLAYER * players)):
        game.play(game.random_placement(rng))
    tall = {t.cell for t in board_layout().towers_for(players) if t.height == "tall"}
    for cell in game.view(None).board:
        touched, scored, paid = game.chain_of(cell)
        assert scored == (touched if len(touched) >= 2 else frozenset())
        assert paid == (touched & tall if len(touched & tall) >= 2 else frozenset())


@given(seeds)
@settings(max_examples=10, deadline=None)
def test_copy_is_independent(seed: int) -> None:
    game = SpezialGame(3, seed=seed)
    rng = random.Random(seed)
    for _ in range(10):
        game.play(game.random_placement(rng))
    view = game.view(None)
    twin = game.copy()
    while not twin.over:
        twin.play(twin.random_placement(rng))
    assert game.view(None) == view
    assert twin.view(None) != view
