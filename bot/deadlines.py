"""When a table's clock must look at it next: at once for a computer player, at half time
and at the end of the timeout for a person, never after the end.

The time is stored with the table (``due_at``, ``turn_started``), so a restarted bot or
another process on the same store keeps the same deadlines; :mod:`bot.clock` does the work
when it comes.
"""

from __future__ import annotations

from bot.games import Game
from bot.table import PLAYING, Table


def schedule(t: Table, game: Game, now: float, new_turn: bool) -> None:
    """Store when ``due`` must act next at ``t``, whose game is ``game``; ``new_turn``
    says the turn passed at ``now`` (a new turn starts its timeout afresh)."""
    if game.over or t.status != PLAYING:
        t.due_at = t.turn_started = None
        t.reminded = False
        return
    if new_turn or t.turn_started is None:
        t.turn_started = now
        t.reminded = False
    seat = t.seats[game.to_move]
    timeout = t.options.timeout
    if seat.computer:
        t.due_at = now
    elif not timeout:
        t.due_at = None
    else:
        t.due_at = t.turn_started + (timeout if t.reminded else timeout / 2)
