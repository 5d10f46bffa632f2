"""Accuracy from the drop in the chance to win, the way lichess derives it from win per cent
(lichess.org/page/accuracy; lila's ``AccuracyPercent``), for the review (issue 47).

A move's accuracy, from the mover's chance to win (in per cent) after the best move and
after the move played (:func:`move_accuracy`)::

    accuracy% = 103.1668 * exp(-0.04354 * (win_best - win_played)) - 3.1669

clamped to 0..100 (a move no worse than the best: 100). A player's accuracy over a game
(:func:`game_accuracy`) is the mean of two means of their moves' accuracies: the harmonic
mean (one blunder weighs heavily) and a mean weighted by how volatile the game was around
each move: the standard deviation of the mover's chance over a window of the chance's
points up to the move (the window: a tenth of the points, at least 2, at most 8), clamped to
0.5..12 percentage points, so moves where the game was in the balance count more than moves
of a game long decided. Standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def move_accuracy(win_best: float, win_played: float) -> float:
    """A move's accuracy (0..100) from the mover's chance to win, in per cent, after the
    best move and after the move played."""
    drop = max(0.0, win_best - win_played)
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def window_size(points: int) -> int:
    """How many points of the chance the volatility around a move looks at."""
    return max(2, min(8, points // 10))


def volatility(series: Sequence[float], at: int) -> float:
    """The weight of a move after which the chance stood at ``series[at]`` (per cent): the
    standard deviation of the window of points ending there, clamped to 0.5..12."""
    size = window_size(len(series))
    window = series[max(0, at - size + 1) : at + 1]
    if len(window) < size:  # the first moves: the first window, as lichess pads it
        window = series[:size]
    mean = sum(window) / len(window)
    sd = math.sqrt(sum((x - mean) ** 2 for x in window) / len(window))
    return max(0.5, min(12.0, sd))


def game_accuracy(accuracies: Sequence[float], weights: Sequence[float]) -> float | None:
    """A player's accuracy over a game (0..100) from their moves' accuracies and weights
    (:func:`volatility`); None without moves. Each accuracy counts at least 1 in the harmonic
    mean (lichess leaves out a game with a move of accuracy 0)."""
    if not accuracies:
        return None
    weighted = sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1.0 / max(1.0, a) for a in accuracies)
    return (weighted + harmonic) / 2


__all__ = ["game_accuracy", "move_accuracy", "volatility", "window_size"]
