"""What points on a Genial score track are worth, for the computer players' heuristic
(:mod:`engine.ai.evaluation`): the value of a side's track and the tables of what scoring
in each colour gains, remembered per track.

The result of a game is a side's lowest colour, ties going to the next lowest (RULES.md 2.9),
so a point is worth more the lower its colour stands. The value of a track is
``sum(g(score))`` with ``g`` concave (``g(x) = -tau * exp(-x / tau)``, so a point at 0 is
worth 1 and a point ``tau`` higher about a third of that); a placement that takes a colour
to a mark (18, or 36 on the long tracks) also gets the value of the bonus placement it earns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.genial import Setup


@dataclass(frozen=True, slots=True)
class Weights:
    """Tunable numbers of the heuristic (defaults chosen by playing matches)."""

    #: ``tau`` of ``g`` as a share of the first mark (18): 1/3 makes tau 6 on a standard track.
    tau_share: float = 1 / 3
    #: A bonus placement is worth this many points scored in the side's lowest colour.
    bonus_points: float = 5.0


DEFAULT_WEIGHTS = Weights()


#: The last setup and weights :func:`track_value` was asked about (the same objects) and
#: their terms: master values some 4,000 play-outs' tracks a move, and the cache's key
#: (hashing a Setup's nine fields) cost more than the sum.
_last_terms: tuple[object, object, tuple[float, ...]] = (None, None, ())


def track_value(track: Sequence[int], setup: Setup, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The value of a side's six scores (higher is better)."""
    global _last_terms
    last = _last_terms
    if last[0] is setup and last[1] is weights:
        terms = last[2]
    else:
        terms = _track_terms(setup, weights)
        _last_terms = (setup, weights, terms)
    try:
        return sum(map(terms.__getitem__, track))
    except IndexError:  # a score beyond the cap (never in a game): worked out
        tau = setup.marks[0] * weights.tau_share
        return sum(-tau * math.exp(-s / tau) for s in track)


@lru_cache(maxsize=256)
def _track_terms(setup: Setup, weights: Weights) -> tuple[float, ...]:
    """``g(score)`` of :func:`track_value` for each score from 0 to the cap, worked out
    once (the same doubles, so a track's value is the same sum to the bit)."""
    tau = setup.marks[0] * weights.tau_share
    return tuple(-tau * math.exp(-s / tau) for s in range(setup.cap + 1))


def gain_tables(
    track: Sequence[int], setup: Setup, weights: Weights = DEFAULT_WEIGHTS
) -> list[list[float]]:
    """``tables[c][p]``: the value of scoring ``p`` points in colour ``c`` now, for
    ``p`` from 0 to the cap (more points than the cap are worth no more than the cap)."""
    return [list(row) for row in gain_rows(tuple(track), setup, weights)]


@lru_cache(maxsize=4096)
def gain_rows(
    track: tuple[int, ...], setup: Setup, weights: Weights = DEFAULT_WEIGHTS
) -> tuple[tuple[float, ...], ...]:
    """:func:`gain_tables` as tuples, remembered: a side's scores change a few times a
    game, and the players ask for the same tables move after move (and play-outs for
    thousands of tracks, which share their rows: a row depends on one colour's score and
    the lowest)."""
    low = min(track)
    return tuple(_gain_row(old, low, setup, weights) for old in track)


@lru_cache(maxsize=4096)
def _gain_row(old: int, low: int, setup: Setup, weights: Weights) -> tuple[float, ...]:
    """One colour's row of :func:`gain_rows`: scored ``old`` when the lowest is ``low``."""
    tau = setup.marks[0] * weights.tau_share

    def g(x: float) -> float:
        return -tau * math.exp(-x / tau)

    bonus = (g(low + weights.bonus_points) - g(low)) if setup.bonus_placements else 0.0
    base = g(old)
    row = []
    for p in range(setup.cap + 1):
        new = old + p
        value = 0.0
        for mark in setup.marks:
            if old < mark <= new:
                new = mark  # the track stops at the mark (RULES.md 2.5, 2.7)
                value = bonus
                break
        new = min(new, setup.cap)
        row.append(value + g(new) - base)
    return tuple(row)


def _table_key(track: tuple[int, ...], setup: Setup, weights: Weights) -> tuple[object, ...]:
    """What the tables of :func:`padded_rows` and :func:`monotone_rows` depend on, as plain
    values: such a key hashes at C level (the frozen dataclasses' own hash and equality are
    Python-level calls, and the play-outs ask for tables thousands of times a move)."""
    return (
        track,
        setup.radius,
        setup.cap,
        setup.marks,
        setup.bonus_placements,
        weights.tau_share,
        weights.bonus_points,
    )


_PADDED: dict[tuple[object, ...], tuple[tuple[float, ...], ...]] = {}
_MONOTONE: dict[tuple[object, ...], bool] = {}
#: Tracks remembered (~350 bytes each: the rows are shared). A game meets some 240-300
#: (expert, master), and a forgotten one is rebuilt from the shared rows in microseconds;
#: 65,536 held ~23 MB in a long-running bot (its soak grew 30 % over 1,000 tables).
_KEPT = 4096


def padded_rows(
    track: tuple[int, ...], setup: Setup, weights: Weights = DEFAULT_WEIGHTS
) -> tuple[tuple[float, ...], ...]:
    """:func:`gain_rows` with ``padded[c][p] == tables[c][min(p, cap)]`` for any ``p`` two
    hexes can score (six lines each, none longer than the area's diameter), so that values
    are plain look-ups (``map``, no ``min`` per placement). Remembered."""
    key = _table_key(track, setup, weights)
    rows = _PADDED.get(key)
    if rows is None:
        if len(_PADDED) >= _KEPT:
            _PADDED.clear()
            _ROWS.clear()
        low = min(track)
        rest = key[1:]
        kept = _ROWS
        made = []
        for old in track:
            # Keyed by plain values: the frozen dataclasses hash at Python level, and a
            # play-out meets a new track every few placements.
            row_key = (old, low, rest)
            row = kept.get(row_key)
            if row is None:
                row = kept[row_key] = _padded_row(old, low, setup, weights)
            made.append(row)
        rows = _PADDED[key] = tuple(made)
    return rows


#: Padded rows by (score, lowest score, the rest of the table key): a few hundred a game.
_ROWS: dict[tuple[object, ...], tuple[float, ...]] = {}


@lru_cache(maxsize=4096)
def _padded_row(old: int, low: int, setup: Setup, weights: Weights) -> tuple[float, ...]:
    """One colour's row of :func:`padded_rows` (shared by every track with that score and
    lowest score)."""
    row = _gain_row(old, low, setup, weights)
    reach = 2 * 6 * 2 * setup.radius + 1
    return row + (row[setup.cap],) * reach


def monotone_rows(track: tuple[int, ...], setup: Setup, weights: Weights = DEFAULT_WEIGHTS) -> bool:
    """Whether every row of :func:`padded_rows` is 0 for no points and never falls as points
    grow (true for any sensible weights: ``g`` rises, a bonus is worth something), which
    :class:`EdgePoints` relies on; else the players look at every placement."""
    key = _table_key(track, setup, weights)
    monotone = _MONOTONE.get(key)
    if monotone is None:
        if len(_MONOTONE) >= _KEPT:
            _MONOTONE.clear()
        # A row never falls iff it is its own sorted copy (compared at C level).
        monotone = _MONOTONE[key] = all(
            row[0] == 0.0 and list(row) == sorted(row) for row in padded_rows(track, setup, weights)
        )
    return monotone
