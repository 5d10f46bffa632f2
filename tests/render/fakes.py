"""Genial Spezial views built directly: random but well-formed positions with tokens on
either side and any scores, which games from the engine reach only slowly."""

from __future__ import annotations

import random

from engine.hexgrid import Hex
from engine.moves import SpezialPlacement
from engine.notation import format_spezial_placement
from engine.spezial import SCORE_COLOURS, TILES_PER_PLAYER, SpezialView, Tower, board_layout


def spezial_view(
    players: int,
    tiles: int,
    seed: int = 0,
    seat: int | None = None,
    over: bool = False,
) -> SpezialView:
    """A position after ``tiles`` random placements (seats in turn), with random tokens,
    some flipped, and random scores."""
    if not 0 <= tiles <= TILES_PER_PLAYER * players:
        raise ValueError(f"{players} players place at most {TILES_PER_PLAYER * players} tiles")
    rng = random.Random(seed)
    layout = board_layout()
    area = layout.area
    towers: dict[Hex, Tower] = {}
    for space in layout.towers_for(players):
        colour = rng.choice(SCORE_COLOURS)
        dark = rng.random() < 0.3
        light = rng.choice((1, 2))
        towers[space.cell] = Tower(space.cell, space.height, colour, light + dark, dark)
    board: dict[Hex, int] = {}
    moves: list[str] = []
    last: SpezialPlacement | None = None
    edges = [(area.cells[i], area.cells[j]) for i, j in area.edges]
    for n in range(tiles):
        seat_now = n % players
        free = [
            (a, b)
            for a, b in edges
            if a not in board and b not in board and a not in towers and b not in towers
        ]
        # Prefer cells next to the seat's own tiles, so that chains form.
        own = [
            (a, b)
            for a, b in free
            if any(board.get(x) == seat_now for x in (*a.neighbours(), *b.neighbours()))
        ]
        a, b = rng.choice(own if own and rng.random() < 0.7 else free)
        board[a] = board[b] = seat_now
        last = SpezialPlacement(a, b)
        moves.append(format_spezial_placement(last, area))
    scores = tuple({c: rng.randrange(0, 14) for c in SCORE_COLOURS} for _ in range(players))
    placed = [sum(1 for k in range(tiles) if k % players == s) for s in range(players)]
    ranking = None
    if over:
        order = sorted(range(players), key=lambda s: sorted(scores[s].values()), reverse=True)
        ranking = [[s] for s in order]
    return SpezialView(
        players=players,
        seat=seat,
        board=board,
        towers=towers,
        golden=layout.golden,
        scores=scores,
        to_move=None if over else tiles % players,
        tiles_left=tuple(TILES_PER_PLAYER - p for p in placed),
        moves=tuple(moves),
        last_placement=last,
        over=over,
        ranking=ranking,
        version=tiles,
    )
