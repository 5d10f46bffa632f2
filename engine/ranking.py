"""Ranking by sorted score lists, shared by both games (RULES.md 2.9 and 3.4)."""

from __future__ import annotations

from collections.abc import Sequence


def rank(scores: Sequence[Sequence[int]], winner: int | None = None) -> list[list[int]]:
    """Places, best first, each a list of side numbers; equal lists share a place.

    Each side's scores are sorted ascending and the lists compared: the lowest colour
    decides, ties go to the next lowest, and so on. An immediate ``winner`` ranks first.
    """
    keys = {side: sorted(s) for side, s in enumerate(scores)}
    order = sorted(keys, key=lambda side: (side != winner, [-v for v in keys[side]]))
    places: list[list[int]] = []
    for side in order:
        last = places[-1][0] if places else None
        if last is not None and winner not in (side, last) and keys[last] == keys[side]:
            places[-1].append(side)
            continue
        places.append([side])
    return places


def places(ranking: Sequence[Sequence[int]]) -> dict[int, int]:
    """Each side's place number from a ranking (places best first, each a list of sides):
    sides that share a place share its number, and the next place counts them all
    (1, 1, 3)."""
    out: dict[int, int] = {}
    done = 0
    for group in ranking:
        for side in group:
            out[side] = done + 1
        done += len(group)
    return out
