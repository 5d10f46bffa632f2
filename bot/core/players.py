"""Computer players and hints: the one module that calls ``engine.ai``.

The calls are synchronous and take only a view (what that seat may know), so an adapter can
run them in a worker thread while its event loop serves other tables.
"""

from __future__ import annotations

from typing import Any

#: How many placements a hint suggests (the typed /hint and the web page's Hint).
HINTS = 3


def levels() -> tuple[str, ...]:
    """The levels the engine's computer players offer, weakest first."""
    from engine.ai import LEVELS

    return tuple(LEVELS)


def choose(view: Any, level: str, seed: int) -> Any:
    """The move a computer player of ``level`` makes for the view's seat (a placement or
    the swap decision)."""
    from engine.ai import choose_move

    return choose_move(view, level=level, seed=seed)


def best(view: Any, n: int) -> list[tuple[Any, float]]:
    """The ``n`` best moves for the view's seat with the engine's estimate of each."""
    from engine.ai import best_moves

    return list(best_moves(view, n=n))
