"""When a table's clock must look at it next: at once for a computer player; for a person
at half time (a reminder) and when their time runs out (the turn's limit, or their time
bank), then again when the others' vote on a player out of time ends; at once for every
turn of a game the computer plays to its end (``Table.autoplay``); never after the end.

The time is stored with the table (``due_at``, ``deadline``, ``turn_started``, ``banks``),
so a restarted bot or another process on the same store keeps the same deadlines;
:mod:`bot.play.clock` does the work when it comes.
"""

from __future__ import annotations

from bot.core import timebank
from bot.core.games import Game
from bot.core.table import PLAYING, Table


def schedule(t: Table, game: Game, now: float, new_turn: bool, resume: float | None = None) -> None:
    """Store when ``due`` must act next at ``t``, whose game is ``game``; ``new_turn``
    says the turn passed at ``now`` (a new turn starts its time afresh: at ``resume``
    instead when the person to move is away until then, their clock paused)."""
    if game.over or t.status != PLAYING:
        t.due_at = t.turn_started = t.deadline = t.ping_at = None
        t.reminded = False
        t.out_of_time = None
        return
    if new_turn or t.turn_started is None:
        t.turn_started = now if resume is None else max(now, resume)
        t.turn_at = len(game.moves)
        t.reminded = False
        t.out_of_time = None
        t.ping_at = None  # a ping held back for the turn that passed is no longer true
    seat_no = game.to_move
    seat = t.seats[seat_no]
    computer = seat.computer or t.autoplay  # the computer plays this turn at once
    span = None if computer else timebank.span(t, seat_no)
    t.deadline = None if span is None else t.turn_started + span
    out = t.out_of_time
    if computer:
        t.due_at = now
    elif out is not None:
        decided = out.get("decided")
        if decided == "wait":
            t.due_at = None
        elif decided:
            t.due_at = now
        else:
            t.due_at = float(out["since"]) + timebank.grace(t)
    elif span is None:
        t.due_at = None
    elif t.reminded or timebank.live(t):
        t.due_at = t.turn_started + span
    else:
        t.due_at = t.turn_started + span / 2
    hold(t, t.ping_at)


def hold(t: Table, when: float | None) -> None:
    """The clock also looks at ``t`` at ``when`` (a turn ping held back until then)."""
    if when is not None:
        t.due_at = when if t.due_at is None else min(t.due_at, when)


def reminder_at(t: Table, seat: int) -> float | None:
    """When the person at ``seat``, to move, is reminded (half their time; a live clock
    has none)."""
    span = timebank.span(t, seat)
    if span is None or t.turn_started is None or timebank.live(t):
        return None
    return t.turn_started + span / 2


def deadline(t: Table) -> float | None:
    """When the person to move at ``t`` runs out of time (seconds since the epoch, the
    store's clock), ``None`` if they cannot (no limit, a computer to move, no game): for
    other parts (a tournament's round) that plan by a table's clock."""
    return t.deadline if t.status == PLAYING else None
