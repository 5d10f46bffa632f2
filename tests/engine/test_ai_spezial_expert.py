"""The Genial Spezial expert: what it looks at beyond strong, that it decides from the
position alone, and a hand-built position where the right placement is plain."""

from __future__ import annotations

import random

from engine.ai import choose_move
from engine.ai.spezial_players import (
    SpezialExpertConfig,
    candidate_pool,
    expert_move,
    placement_key,
    rank_placements,
    setup_cells,
)
from engine.hexgrid import distance
from engine.spezial import SpezialGame


def test_the_pool_holds_quiet_placements_next_to_towers_and_own_chains() -> None:
    game = SpezialGame(2, seed=5)
    game.play_text("M1 M2")  # seat 0: far from every tower, no golden space
    game.play_text("M6 M7")  # seat 1: the same
    towers = set(game.towers())
    area = game.area
    near = setup_cells(game, 0)
    own = {area.index[h] for h in area.cells if game.board[area.index[h]] == 0}
    # Exactly the empty cells beside a tower or beside seat 0's tiles (not seat 1's).
    expected = {
        area.index[h]
        for h in area.cells
        if area.index[h] not in own and h not in towers and any(distance(h, t) == 1 for t in towers)
    }
    expected |= {n for c in own for n in area.neighbours[c] if n >= 0}
    assert near == expected
    ranked = rank_placements(game)
    pool = candidate_pool(game, ranked, 10_000)
    assert sorted(map(placement_key, (p for p, _ in pool))) == sorted(
        map(placement_key, (p for p, _ in ranked))
    )
    # Every scoring placement comes first, best first; then the quiet ones near a tower or
    # seat 0's chain; the quiet ones far from both only after all of those.
    scoring = [v for _, v in ranked if v > 1e-9]
    assert [v for _, v in pool[: len(scoring)]] == scoring
    quiet = [bool({area.index[p.cell1], area.index[p.cell2]} & near) for p, _ in pool]
    first_far = quiet.index(False, len(scoring))
    assert all(quiet[len(scoring) : first_far]) and not any(quiet[first_far:])
    # Beside seat 0's own tile M2: the quiet placement M3 M4 grows its chain.
    m3m4 = frozenset((area.parse_label("M3"), area.parse_label("M4")))
    assert m3m4 in {frozenset(p.cells) for p, _ in pool[:first_far]}
    # A small pool is cut from the front.
    assert candidate_pool(game, ranked, 5) == pool[:5]


def test_the_expert_joins_two_tall_towers() -> None:
    # Seat 0's chain A3 A2 A1 B1 touches the tall tower at A1's corner (6,-12) and no
    # other tower; a tile on C1 (or C2) joins it to the tall tower (0,-9) as well. That pays the
    # tall bonus for both (1 point in each colour for each, RULES 3.3) on top of both
    # tokens: at least 2 in every colour, which no other placement comes near.
    game = SpezialGame(2, seed=1)
    for text in ("A3 A2", "M1 M2", "A1 B1", "M6 M7"):
        game.play_text(text)
    assert game.scores[0] == [0, 0, 0, 0]
    tall = {h for h, t in game.towers().items() if t.height == "tall"}
    touched, scored, paid = game.chain_of(game.area.parse_label("A3"))
    assert len(touched) == 1 and touched <= tall and not scored and not paid
    move = expert_move(game.view(0), random.Random(3), SpezialExpertConfig())
    game.play(move)
    assert min(game.scores[0]) >= 2
    touched, scored, paid = game.chain_of(game.area.parse_label("A3"))
    assert len(paid) == 2 and paid <= tall


def test_the_expert_decides_from_the_position_alone() -> None:
    # The same position reached in another order (its history differs, the board and
    # scores do not) gets the same placement for the same seed.
    one = SpezialGame(2, seed=9)
    two = SpezialGame(2, tokens=[t.name for t in one.tokens])
    for text in ("M1 M2", "M6 M7", "X1 X2", "Y6 Y7"):
        one.play_text(text)
    for text in ("X1 X2", "Y6 Y7", "M1 M2", "M6 M7"):
        two.play_text(text)
    assert one.view(0).moves != two.view(0).moves
    assert one.board == two.board and one.scores == two.scores
    for seed in range(3):
        assert choose_move(one.view(0), "expert", seed) == choose_move(two.view(0), "expert", seed)
