"""A running table's clocks after an outage of the bot (:mod:`bot.core.outage`): the turn of
the person to move (their time bank, or the turn's limit, and its reminder at half time)
and a vote on a player out of time go on from where they stood when the bot went away.

Each clock is kept as the moment it started (``turn_started``, the vote's ``since``), and
everything else follows from it (:func:`bot.core.deadlines.schedule`): moving the start on
gives the time back, and a time bank is charged at the turn's end from the start moved on.
"""

from __future__ import annotations

from bot.core import timebank
from bot.core.deadlines import schedule
from bot.core.table import PLAYING
from bot.core.tables import Context, Reject, Tables


def later(start: float, since: float, until: float) -> float:
    """The start of a clock that ran through the outage from ``since`` to ``until``,
    moved on by the time it ran while the bot was away: a clock started before the
    outage by the whole gap, one started during it to its end, one that starts after it
    (a vacation's pause) not at all."""
    if start <= since:
        return start + (until - since)
    return max(start, until)


def credit_table(tables: Tables, ctx: Context, since: float, until: float) -> bool:
    """The clocks of the table in ``ctx`` get the outage from ``since`` to ``until``
    back; whether one ran for a person (their turn's time or a vote, not a clock run out
    before the bot went away)."""
    t = ctx.table
    if t.status != PLAYING or t.turn_started is None:
        return False
    try:
        game = tables.game(ctx)
    except Reject:
        return False  # a damaged record: nothing runs there
    if game.over:
        return False
    seat_no = game.to_move
    out = t.out_of_time
    voting = out is not None and not out.get("decided")
    limited = timebank.span(t, seat_no) is not None
    running = limited and (t.deadline is None or t.deadline > since)
    runs = not t.seats[seat_no].computer and (running or voting)
    started = later(t.turn_started, since, until)
    moved = started != t.turn_started
    t.turn_started = started
    if out is not None and voting:
        was = float(out["since"])
        out["since"] = later(was, since, until)
        moved = moved or out["since"] != was
    undo = t.undoable
    if undo is not None and isinstance(undo.get("started"), int | float):
        # A takeback gives the turn back with its clock as it began: without the outage.
        undo["started"] = later(float(undo["started"]), since, until)
    if not moved:
        return False
    schedule(t, game, ctx.now, new_turn=False)
    return runs
