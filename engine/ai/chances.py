"""Each side's chance to win a Genial game after a move (issue 47), for the review's graph
and accuracy.

From the mover's view before the move (its own rack, the board, the scores, the tiles it
has not seen; never another rack nor the bag's real order) the unseen tiles are dealt anew
:data:`SAMPLES` times (:func:`~engine.ai.genial_expert.redeal`), the move is made in each
deal and the game played out to its end by the greedy player for every seat (swapping
whenever offered; the C loop where it is built). A side's share of the play-outs it won
(a shared first place counts as a share) is its raw chance; 3 and 4 players: the chance to
finish first; team games: the team's. The raw chances are then **calibrated** by a
temperature fitted on expert self-play games (:data:`TEMPERATURE`;
``benchmarks/bench_calibration.py`` fits it and measures it on other games): each raw
chance, smoothed by half a play-out, is raised to ``1 / T`` and the chances rescaled to sum
to 1 (for two sides: the log-odds divided by ``T``). Greedy play-outs play worse than the
experts they predict; the temperature corrects how sure they are.

Several moves of one position are played out over the same deals and play-out seeds
(common random numbers), so the difference between a played move and the best one is not
the luck of the deal. Standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.ai import kernel as _kernel
from engine.ai.evaluation import DEFAULT_WEIGHTS
from engine.ai.genial_expert import Ending, _play_out_fast, redeal, unseen
from engine.ai.genial_greedy import determinise, greedy_spot
from engine.genial import GenialGame
from engine.moves import Placement, SwapChoice

#: Play-outs per position.
SAMPLES = 128
#: The temperature fitted on 600 expert self-play games of 2, 3 and 4 players and the team
#: game (``benchmarks/bench_calibration.py``, docs/measurements.md): one for every setup,
#: and so close to 1 that the play-outs' own chances were calibrated already.
TEMPERATURE = 0.98
#: Each side's raw count is smoothed by this many play-outs before the temperature.
SMOOTHING = 0.5

Chances = tuple[float, ...]


def finished(game: GenialGame | Ending) -> Chances:
    """Each side's result of a game that is over: 1 for the winner, a share for those tied
    first, 0 for the others."""
    ranking = game.ranking()
    assert ranking is not None
    first = ranking[0]
    return tuple(1.0 / len(first) if s in first else 0.0 for s in range(game.sides))


def calibrated(wins: Sequence[float], samples: int, temperature: float) -> Chances:
    """Raw play-out wins (by side, out of ``samples``) as calibrated chances."""
    sides = len(wins)
    raw = [(w + SMOOTHING) / (samples + SMOOTHING * sides) for w in wins]
    powered = [r ** (1.0 / temperature) for r in raw]
    total = sum(powered)
    return tuple(p / total for p in powered)


def to_end(game: GenialGame, rng: random.Random) -> Ending:
    """``game`` (changed, where the C loop is not built) played out by the greedy player for
    every seat to its end (by the C loop from any position, the first round included)."""
    fast = _kernel.kernel
    if fast is not None and not game.over:
        return _play_out_fast(fast, game, None, 1 << 20, rng, DEFAULT_WEIGHTS)[1]
    while not game.over:
        if game.awaiting == "swap":
            game.swap_quietly(True)
            continue
        game.play_spot(greedy_spot(game, DEFAULT_WEIGHTS, rng))
    return Ending(game.setup, game.scores, game.over, game.winner)


def raw_wins(
    game: GenialGame,
    moves: Sequence[Placement | SwapChoice],
    samples: int = SAMPLES,
    seed: int = 0,
) -> list[list[float]]:
    """For each of ``moves`` (legal moves of the seat to move in ``game``), each side's
    play-outs won out of ``samples``, all moves over the same deals of what the mover has
    not seen."""
    seat = game.to_move
    base = determinise(game.view(seat), random.Random(0))
    rng = random.Random(seed)
    seeds = [rng.getrandbits(32) for _ in range(samples)]
    pool = unseen(base, seat)
    out = []
    for move in moves:
        wins = [0.0] * game.sides
        for s in seeds:
            world = redeal(base, seat, random.Random(s), pool)
            world.play(move)
            ending = world if world.over else to_end(world, random.Random(s ^ 0x5A5A))
            for side, share in enumerate(finished(ending)):
                wins[side] += share
        out.append(wins)
    return out


def chances_after(
    game: GenialGame,
    moves: Sequence[Placement | SwapChoice],
    samples: int = SAMPLES,
    seed: int = 0,
    temperature: float | None = None,
) -> list[Chances]:
    """Each side's calibrated chance to win after each of ``moves`` (see the module): exact
    where a move ends the game."""
    t = TEMPERATURE if temperature is None else temperature
    out: list[Chances] = []
    for move, wins in zip(moves, raw_wins(game, moves, samples, seed), strict=True):
        trial = game.copy()
        trial.play(move)
        out.append(finished(trial) if trial.over else calibrated(wins, samples, t))
    return out


__all__ = [
    "SAMPLES",
    "SMOOTHING",
    "TEMPERATURE",
    "Chances",
    "calibrated",
    "chances_after",
    "finished",
    "raw_wins",
    "to_end",
]
