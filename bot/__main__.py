"""``genial-bot``: until the table service lands, a demo that plays and prints a game."""

from __future__ import annotations

import random

from engine.genial import GenialGame


def main() -> int:
    rng = random.Random()
    game = GenialGame(2, seed=rng.randrange(2**32))
    while not game.over:
        moves = game.placements_with_points() if game.awaiting == "place" else None
        if moves:
            move, pts = max(moves, key=lambda mp: (sum(mp[1]), rng.random()))
            seat = game.to_move
            game.play(move)
            print(f"seat {seat}: {game.moves[-1]:<12} +{sum(pts)}")
        else:
            game.play(game.legal_moves()[-1])
            print(f"seat {game.to_move}: keep")
    for side in range(game.sides):
        print(f"seat {side}: " + " ".join(f"{c.value}{v}" for c, v in game.score(side).items()))
    print("ranking:", game.ranking())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
