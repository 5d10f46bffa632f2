"""Issue 50: the legal placements as the engine lists them (kept tables, strided copies,
handed from game to game) against a straightforward listing worked out from the board,
the racks and the rules, in the same order, over many seeded positions of both games.

The order is part of the engine's promise (seeded games pick moves by their place in the
list): Genial lists the rack's kinds of tile in rack order, each one way round on every
pair of empty adjacent cells and then the other way round, the pairs in the order the game
keeps them: first every pair in reading order (a cell, then its neighbours after it in the
order of the directions), and as a cell is covered each of its pairs, in that order, leaves
with the last pair taking its place. Genial Spezial lists each pair once, in reading order.
The reference below keeps its own pairs that way, from the moves as played, and shares no
table with the engine.
"""

from __future__ import annotations

import random

import pytest

from engine.genial import GenialGame
from engine.hexgrid import DIRECTIONS, Hex
from engine.moves import KEEP, SWAP, Placement, SpezialPlacement
from engine.spezial import SpezialGame
from engine.tiles import Colour, Tile

GENIAL_SETUPS = [(1, "solo"), (2, "standard"), (3, "standard"), (4, "standard"), (4, "team")]


def pairs_in_reading_order(cells: tuple[Hex, ...]) -> list[tuple[Hex, Hex]]:
    """Every two adjacent cells once: a cell, then each neighbour after it in reading
    order, in the order of the directions."""
    later = {h: n for n, h in enumerate(cells)}
    out = []
    for n, h in enumerate(cells):
        for dq, dr in DIRECTIONS:
            other = Hex(h.q + dq, h.r + dr)
            if later.get(other, -1) > n:
                out.append((h, other))
    return out


def start_symbols(game: GenialGame) -> set[Hex]:
    return {h for h in game.view().start_symbols}


class ReferencePairs:
    """Genial's empty pairs in the order the game keeps them, kept from the moves alone."""

    def __init__(self, game: GenialGame) -> None:
        self.all = pairs_in_reading_order(game.area.cells)
        starts = start_symbols(game)
        self.empty = [p for p in self.all if p[0] not in starts and p[1] not in starts]

    def copy(self) -> ReferencePairs:
        new = object.__new__(ReferencePairs)
        new.all, new.empty = self.all, self.empty.copy()
        return new

    def cover(self, cell: Hex) -> None:
        for pair in self.all:
            if cell in pair and pair in self.empty:
                at = self.empty.index(pair)
                last = self.empty.pop()
                if at < len(self.empty):
                    self.empty[at] = last

    def listing(self, game: GenialGame) -> list[Placement]:
        if game.over or game.awaiting != "place":
            return []
        pairs = self.empty
        if not game.has_placed[game.to_move]:
            board = game.board_colours()
            starts = start_symbols(game)
            tiles = set(board) - starts
            allowed = set()
            for s in starts:
                around = [Hex(s.q + dq, s.r + dr) for dq, dr in DIRECTIONS]
                if not tiles.intersection(around):
                    allowed.update(h for h in around if h in game.area and h not in board)
            pairs = [p for p in pairs if p[0] in allowed or p[1] in allowed]
        out = []
        kinds: list[Tile] = list(dict.fromkeys(game.racks[game.to_move]))
        for tile in kinds:
            a, b = tile.first, tile.second
            out += [Placement(a, b, low, high) for low, high in pairs]
            if a is not b:
                out += [Placement(a, b, high, low) for low, high in pairs]
        return out


def spezial_reference(game: SpezialGame) -> list[SpezialPlacement]:
    if game.over:
        return []
    covered = set(game.board_summary()) | set(game.towers())
    return [
        SpezialPlacement(a, b)
        for a, b in pairs_in_reading_order(game.area.cells)
        if a not in covered and b not in covered
    ]


def play_at_random(game: GenialGame, ref: ReferencePairs, rng: random.Random) -> None:
    moves = game.legal_moves()
    move = moves[rng.randrange(len(moves))]
    game.play(move)
    if isinstance(move, Placement):
        ref.cover(move.cell1)
        ref.cover(move.cell2)


def play_games_side_by_side(players: int, mode: str, seeds: list[int]) -> int:
    """Seeded games played a move each in turn (so that listings go from game to game),
    each listing compared with the reference, some positions listed twice in a row, and
    copies and rebuilt views listed too. Returns the number of listings compared."""
    games = [GenialGame(players, mode, seed=s) for s in seeds]
    refs = [ReferencePairs(g) for g in games]
    rngs = [random.Random(s) for s in seeds]
    compared = 0
    while not all(g.over for g in games):
        for game, ref, rng in zip(games, refs, rngs, strict=True):
            if game.over:
                continue
            expected = ref.listing(game)
            for _ in range(1 + (rng.random() < 0.3)):
                assert game.legal_placements() == expected
                compared += 1
            if game.awaiting == "swap":
                assert game.legal_moves() == [SWAP, KEEP]
            else:
                assert game.legal_moves() == expected
            if rng.random() < 0.1:
                # A copy lists alike, and goes its own way without changing the game's list.
                twin, twin_ref = game.copy(), ref.copy()
                for _ in range(3):
                    if twin.over:
                        break
                    assert twin.legal_placements() == twin_ref.listing(twin)
                    assert twin.legal_placements() == twin_ref.listing(twin)
                    compared += 2
                    play_at_random(twin, twin_ref, rng)
                assert game.legal_placements() == expected
                compared += 1
            if rng.random() < 0.05 and not game.over:
                seat = game.to_move
                rebuilt = GenialGame.from_view(game.view(seat), rng, racks=game.racks)
                assert rebuilt.legal_placements() == expected
                assert rebuilt.legal_placements() == expected
                compared += 2
            play_at_random(game, ref, rng)
    return compared


@pytest.mark.parametrize(("players", "mode"), GENIAL_SETUPS)
def test_genial_listing_matches_the_reference_in_order(players: int, mode: str) -> None:
    seeds = [50_000 + players * 100 + n for n in range(4)]
    compared = play_games_side_by_side(players, mode, seeds)
    assert compared > 100


def test_genial_listing_of_one_game_listed_again_and_again_matches_the_reference() -> None:
    # One game alone, every position listed three times in a row: the kept tables are made
    # once and kept up to date as the pairs go.
    for seed in range(3):
        compared = play_games_side_by_side(2, "standard", [seed])
        assert compared > 30


def test_genial_listing_after_a_position_set_up_by_hand_matches_the_reference() -> None:
    game = GenialGame(2, seed=7)
    ref = ReferencePairs(game)
    rng = random.Random(7)
    for _ in range(6):  # past the first round, listed twice so the tables are kept
        game.legal_moves()
        play_at_random(game, ref, rng)
    assert game.legal_placements() == ref.listing(game)
    for h in [h for h in game.area.cells if h not in game.board_colours()][:5]:
        game.put(h, Colour.RED)
        ref.cover(h)
        assert game.legal_placements() == ref.listing(game)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spezial_listing_matches_the_reference_in_order(players: int) -> None:
    for seed in range(3):
        game = SpezialGame(players, seed=60_000 + seed)
        rng = random.Random(seed)
        compared = 0
        while not game.over:
            expected = spezial_reference(game)
            assert game.legal_moves() == expected
            compared += 1
            if rng.random() < 0.1:
                assert game.copy().legal_moves() == expected
            game.play(game.random_placement(rng))
        assert game.legal_moves() == []
        assert compared > 20


def test_one_game_at_a_time_keeps_its_tables_of_placements() -> None:
    # A process holding many games (the bot) must not hold a table of placements for each:
    # only the game listed twice in a row keeps one, until another takes it.
    games = [GenialGame(2, seed=n) for n in range(20)]
    rng = random.Random(5)
    for _ in range(3):  # past the first round
        for game in games:
            game.play(rng.choice(game.legal_moves()))
    for game in games:
        game.legal_placements()
    assert sum(game._rows is not None for game in games) == 0
    for game in games:
        game.legal_placements()
        game.legal_placements()
    assert [game._rows is not None for game in games] == [False] * 19 + [True]
