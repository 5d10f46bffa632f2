"""Players who are not there: a player out of time (the other persons vote ``/skip``,
``/expel`` or ``/wait``; with no majority within the grace period a computer player makes
the move, as without a vote), and vacations (``/away 3d`` pauses my clocks in every game I
sit in, ``/back`` ends it early; no pings meanwhile).

The clock finds a person out of time (:mod:`bot.play.clock`) and tells the table here
(:func:`announce`); what the vote decides is carried out by the clock (a skip) or at once
(an expel: :func:`bot.play.lobby.vacate`, rated last as a leaver is).
"""

from __future__ import annotations

import time
from collections import Counter

from bot.core import timebank
from bot.core.commands import Away, Back, Vote
from bot.core.deadlines import schedule
from bot.core.durations import format_left
from bot.core.outbound import Button, Outbound
from bot.core.table import PLAYING, Seat, Table
from bot.core.tables import Context, Handler, Reject, Tables, need_running, need_table
from bot.play import lobby
from bot.store import DamagedTable, StaleTable

#: The note (by person) of the vacation taken this month: ``YYYY-MM:seconds``.
AWAY_TAKEN = "away-taken"
#: Attempts at pausing one table that another command keeps changing first.
TRIES = 3


def voters(t: Table, seat_no: int) -> list[str]:
    """The persons who vote on the player of ``seat_no`` (computer seats have no vote)."""
    absent = t.seats[seat_no].user
    return [s.user for s in t.seats if s.user is not None and s.user != absent]


def vote_buttons(ctx: Context) -> tuple[Button, ...]:
    b = ctx.scene.button
    return (
        b("button.vote_skip", "/skip"),
        b("button.vote_expel", "/expel"),
        b("button.vote_wait", "/wait"),
    )


def announce(ctx: Context, seat: Seat, people: list[str], wait: float) -> Outbound:
    """The table is told once that ``seat``'s person is out of time, and how to vote."""
    tx = ctx.texts
    name = ctx.scene.name(seat)
    text = tx("absence.out_of_time", name=name, grace=format_left(wait))
    return ctx.scene.chat_message(
        [text], "reminder", buttons=vote_buttons(ctx), mentions=tuple(people)
    )


def vote(tables: Tables, ctx: Context, cmd: Vote) -> None:
    t = need_table(ctx)
    game = need_running(tables, ctx)
    out = t.out_of_time
    if out is None:
        raise Reject("absence.nobody_out")
    assert ctx.user is not None
    seat_no = int(out["seat"])
    people = voters(t, seat_no)
    if ctx.user.id == t.seats[seat_no].user:
        raise Reject("absence.own_seat")
    if ctx.user.id not in people:
        raise Reject("error.not_seated")
    votes: dict[str, str] = dict(out.get("votes", {}))
    votes[ctx.user.id] = cmd.choice
    out["votes"] = votes
    tx, scene = ctx.texts, ctx.scene
    absent = scene.name(t.seats[seat_no])
    counts = Counter(v for u, v in votes.items() if u in people)
    choice, number = counts.most_common(1)[0]
    lines = [tx("absence.voted", name=ctx.user.name, vote=tx(f"absence.vote_{cmd.choice}"))]
    if number * 2 <= len(people):
        lines.append(tx("absence.tally", count=len(votes), people=len(people)))
        ctx.out.append(scene.chat_message(lines, buttons=vote_buttons(ctx)))
        return
    if choice == "expel":
        t.out_of_time = None
        lobby.vacate(tables, ctx, seat_no, "\n".join([*lines, tx("absence.expelled", name=absent)]))
        return
    out["decided"] = choice
    lines.append(tx(f"absence.decided_{choice}", name=absent))
    schedule(t, game, ctx.now, new_turn=False)
    ctx.out.append(scene.chat_message(lines))


# --- vacations -----------------------------------------------------------------------


def away_until(tables: Tables, user: str | None, now: float) -> float | None:
    """When ``user``'s vacation ends, if they are away at ``now``."""
    return timebank.away_until(tables.store, user, now)


def _month(now: float) -> str:
    return time.strftime("%Y-%m", time.gmtime(now))


def away(tables: Tables, ctx: Context, cmd: Away) -> None:
    assert ctx.user is not None
    user, now = ctx.user.id, ctx.now
    if away_until(tables, user, now) is not None:
        raise Reject("away.already")
    month = _month(now)
    taken_note = tables.store.note(user, AWAY_TAKEN) or ""
    taken_month, _, taken_text = taken_note.partition(":")
    taken = int(taken_text) if taken_month == month and taken_text.isdigit() else 0
    allowed = tables.settings.away_days * 86400
    if taken + cmd.seconds > allowed:
        left = format_left(max(0, allowed - taken)) if allowed > taken else "0d"
        raise Reject("away.limit", days=tables.settings.away_days, left=left)
    until = now + cmd.seconds
    tables.store.set_note(user, timebank.AWAY, f"{now}:{until}")
    tables.store.set_note(user, AWAY_TAKEN, f"{month}:{taken + cmd.seconds}")
    told = _each_table(tables, ctx, user, until, "away.told")
    text = ctx.texts("away.set", left=format_left(cmd.seconds), tables=told)
    ctx.out.append(Outbound(ctx.chat.id, text, "info", user=user))


def back(tables: Tables, ctx: Context, cmd: Back) -> None:
    assert ctx.user is not None
    user, now = ctx.user.id, ctx.now
    until = away_until(tables, user, now)
    if until is None:
        raise Reject("away.not_away")
    tables.store.set_note(user, timebank.AWAY, None)
    # What was not taken of the vacation counts no more this month.
    month = _month(now)
    taken_month, _, taken_text = (tables.store.note(user, AWAY_TAKEN) or "").partition(":")
    if taken_month == month and taken_text.isdigit():
        rest = max(0, int(taken_text) - int(until - now))
        tables.store.set_note(user, AWAY_TAKEN, f"{month}:{rest}")
    told = _each_table(tables, ctx, user, None, "away.back_told")
    text = ctx.texts("away.ended", tables=told)
    ctx.out.append(Outbound(ctx.chat.id, text, "info", user=user))


def _each_table(tables: Tables, ctx: Context, user: str, until: float | None, key: str) -> int:
    """Pause (``until``: when the vacation ends) or resume ``user``'s clock at every
    running table they sit at, and tell each table; how many were told. Each table is
    saved over the version it was read at (another command there wins and this one tries
    again), never holding two tables' locks at once."""
    told = 0
    for chat in tables.store.playing(user):
        for _ in range(TRIES):
            try:
                t = tables.store.load(chat)
            except DamagedTable:
                break
            if t is None or t.status != PLAYING or t.seat_of(user) is None:
                break
            if _pause(tables, ctx, t, user, until, key):
                told += 1
                break
    return told


def _pause(
    tables: Tables, ctx: Context, t: Table, user: str, until: float | None, key: str
) -> bool:
    """One table: the person's running turn paused until ``until`` (its time so far off
    their bank) or resumed now; False if another command changed the table first."""
    now = ctx.now
    c = tables.clock_context(t, now)
    try:
        game = tables.game(c)
    except Reject:
        return True
    seat_no = t.seat_of(user)
    assert seat_no is not None
    seat = t.seats[seat_no]
    loaded = t.version
    t.version += 1
    if game.to_move == seat_no and not game.over and t.turn_started is not None:
        if until is not None:
            if timebank.clocked(t):
                left = timebank.left(t, seat_no, now, to_move=True)
                t.banks[seat_no] = left if left is not None else t.banks[seat_no]
            t.turn_started = max(t.turn_started, until)
        elif t.turn_started > now:
            t.turn_started = now
            if t.ping_user == user and t.ping_at is not None and t.ping_at > now:
                t.ping_at = now  # the ping held back for the vacation comes now
        t.reminded = False
        schedule(t, game, now, new_turn=False)
    name = c.scene.name(seat)
    when = "" if until is None else format_left(until - now)
    c.out.append(c.scene.chat_message([c.texts(key, name=name, left=when)]))
    c.loaded = loaded
    try:
        saved = tables.save(c)
    except StaleTable:
        return False
    if saved:
        tables.keep(c, t.version)
        ctx.out += c.out
    return saved


HANDLERS: dict[type, Handler] = {Vote: vote, Away: away, Back: back}
