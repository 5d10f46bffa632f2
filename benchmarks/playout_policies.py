"""Master's play-out policies head to head, and what each costs (issue 50).

Whole 2-player Genial games from a fresh deal, one seat playing the lookahead policy
(:func:`engine.ai.genial_players.lookahead_spot`) and the other greedy's placement
(:func:`greedy_spot`), or with ``--vs-candidates`` another lookahead's, each deal played
twice with the seats changed; swaps are taken whenever offered, as in a play-out. Then the
CPU of a whole play-out of each policy in the C loop (every seat playing it), over the same
fresh positions.

    python benchmarks/playout_policies.py --games 200 --candidates 8 --reply 0.5
    python benchmarks/playout_policies.py --games 1000 --seed 71001 --candidates 16 --reply 1.0 \
        --vs-candidates 8 --vs-reply 0.5
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import kernel
from engine.ai.evaluation import DEFAULT_WEIGHTS
from engine.ai.genial_expert import _position_args
from engine.ai.genial_players import Lookahead, greedy_spot, lookahead_spot
from engine.genial import GenialGame


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson interval of k successes in n, in per cent."""
    if n == 0:
        return 0.0, 100.0
    p = k / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return 100 * (c - h) / d, 100 * (c + h) / d


def named(look: Lookahead) -> str:
    """How the printed lines name a lookahead policy."""
    return f"lookahead {look.candidates}/{look.reply}"


def duel(seed: int, look_seat: int, look: Lookahead, other: Lookahead | None = None) -> int:
    """One game: +1 if the lookahead seat wins, -1 if the other (greedy, or the ``other``
    lookahead) does, 0 for a draw."""
    game = GenialGame(2, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        if game.awaiting == "swap":
            game.swap_quietly(True)
        elif game.to_move == look_seat:
            game.play_spot(lookahead_spot(game, DEFAULT_WEIGHTS, look))
        elif other is not None:
            game.play_spot(lookahead_spot(game, DEFAULT_WEIGHTS, other))
        else:
            game.play_spot(greedy_spot(game, DEFAULT_WEIGHTS, rng))
    ranking = game.ranking()
    assert ranking is not None
    if len(ranking[0]) > 1:
        return 0
    return 1 if ranking[0][0] == look_seat else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="deals, each played twice")
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--reply", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=60001)
    parser.add_argument(
        "--vs-candidates", type=int, default=0, help="the other seat's lookahead (0: greedy)"
    )
    parser.add_argument("--vs-reply", type=float, default=0.5)
    args = parser.parse_args()
    try:
        look = Lookahead(args.candidates, args.reply)
        other = Lookahead(args.vs_candidates, args.vs_reply) if args.vs_candidates else None
    except ValueError as refused:
        parser.error(str(refused))
    against = "greedy" if other is None else named(other)
    won = lost = drawn = 0
    cpu = time.process_time()
    for g in range(args.games):
        for seat in (0, 1):
            r = duel(args.seed + g, seat, look, other)
            won += r == 1
            lost += r == -1
            drawn += r == 0
    cpu = time.process_time() - cpu
    n = won + lost + drawn
    lo, hi = wilson(won, n)
    print(
        f"{named(look)} against {against}, {n} whole 2-player games: "
        f"won {won}, lost {lost}, drawn {drawn} ({100 * won / n:.1f} %, Wilson {lo:.1f}-{hi:.1f} %)"
        f"; {cpu:.1f} s CPU in Python"
    )
    fast = kernel.kernel
    if fast is None:
        print("no C kernel here: the play-outs' cost is not measured")
        return
    positions = [GenialGame(2, seed=args.seed + 10_000 + i) for i in range(300)]
    prepared = [_position_args(fast, g, DEFAULT_WEIGHTS) for g in positions]
    policies = [("greedy", None), (named(look), look.args())]
    if other is not None:
        policies.append((named(other), other.args()))
    for name, policy in policies:
        best = math.inf
        for _ in range(3):
            t = time.process_time()
            for i, a in enumerate(prepared):
                fast.play_out(*a, None, 1000, random.Random(i).getrandbits, None, policy)
            best = min(best, (time.process_time() - t) / len(prepared))
        print(f"{name:15} a whole 2-player play-out in C: {1000 * best:.3f} ms CPU (best of 3)")


if __name__ == "__main__":
    main()
