"""What the clock brings to a table: a computer player's turn, a reminder at half time, a
move made for a person whose time ran out, and each turn of a game the computer plays to
its end in its players' names (``Table.autoplay``: a tournament round's deadline passed).

Computer players think outside the table's lock, on a copy of the game: the table's people
go on meanwhile, and the move is applied only if the table has not changed since. When the
clock must look next is :mod:`bot.core.deadlines`; :meth:`bot.service.Service.due` claims the
due tables and calls :func:`due_step` until a person must act.
"""

from __future__ import annotations

from typing import Any

from bot.community import social
from bot.core import games, players, timebank
from bot.core.deadlines import reminder_at, schedule
from bot.core.durations import format_left
from bot.core.games import Game
from bot.core.outbound import Outbound
from bot.core.table import PLAYING
from bot.core.tables import Context, Reject, Tables
from bot.play import absence
from bot.play.moves import after_moves
from bot.store import DamagedTable
from engine.errors import EngineError
from engine.events import Event, TurnStarted

#: Seconds between two looks at a table whose due work failed (a damaged record).
STUCK_RETRY = 60.0


def due_step(tables: Tables, chat: str, now: float) -> tuple[list[Outbound], bool] | None:
    """One thing due at a table: a reminder, or one computer turn; what to send, and
    whether more is due at once (another computer player). ``None`` if nothing could be
    done (the table changed while a computer player was thinking)."""
    with tables.locks.hold(chat):
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            tables.stuck[chat] = now + STUCK_RETRY
            return None
        if t is not None:
            tables.puzzle_times[chat] = t.options.puzzle
        if t is None or t.due_at is None or t.due_at > now:
            return None
        ctx = tables.clock_context(t, now)
        if t.status != PLAYING:
            t.due_at = None
            return _finish(tables, ctx)
        try:
            game = tables.game(ctx)
        except Reject:
            # A record that no longer replays: nothing is due there any more; /abort
            # closes the table, and every other table runs on.
            t.due_at = None
            return _finish(tables, ctx)
        seat_no = game.to_move
        seat = t.seats[seat_no]
        timed_out = False
        level = seat.level or tables.settings.level
        if not seat.computer and not t.autoplay:
            if t.ping_at is not None and t.ping_at <= now:
                social.held_ping(tables, ctx, game)
            if not _out_of_time(tables, ctx, game, seat_no, now):
                schedule(t, game, now, new_turn=False)
                return _finish(tables, ctx)
            timed_out = True
            level = tables.settings.level
        snapshot = games.copy(game)
        tables.keep(ctx, t.version)
        loaded = t.version
    moves = think(snapshot, seat_no, level, t.seed)
    with tables.locks.hold(chat):
        try:
            t, people = tables.load(chat)
        except DamagedTable:
            return None
        if t is None or t.version != loaded:
            return None
        ctx = tables.clock_context(t, now)
        ctx.people = people
        game = tables.game(ctx)
        t.version += 1
        events: list[Event] = []
        for move in moves:
            try:
                events += game.play(move, seat_no)
            except EngineError:
                ctx.game = None  # half a turn was played: rebuild next time
                raise
        intro = [ctx.texts("turn.timed_out", name=ctx.scene.name(seat))] if timed_out else []
        after_moves(tables, ctx, game, events, seat_no, intro)
        return _finish(tables, ctx)


def _out_of_time(tables: Tables, ctx: Context, game: Game, seat_no: int, now: float) -> bool:
    """Whether a computer player now moves for the person at ``seat_no``: their time ran
    out, and the others voted to skip or let the vote's time pass. Else what is due for
    them is done here: the reminder at half time, or the table told once that they are
    out of time (then the other persons may vote, :mod:`bot.play.absence`)."""
    t = ctx.table
    seat = t.seats[seat_no]
    out = t.out_of_time
    if out is not None:
        decided = out.get("decided")
        if decided == "wait":
            return False
        return bool(decided) or now >= float(out["since"]) + timebank.grace(t)
    deadline = t.deadline
    if deadline is None and t.turn_started is not None:
        # A table stored before deadlines were: its turn's limit from when it began.
        span = timebank.span(t, seat_no)
        deadline = None if span is None else t.turn_started + span
    if deadline is None:
        return False
    if now < deadline:
        remind = reminder_at(t, seat_no)
        if not t.reminded and remind is not None and now >= remind:
            t.reminded = True
            ctx.out.append(reminder(ctx, seat_no, deadline - now))
        return False
    voters = absence.voters(t, seat_no)
    wait = timebank.grace(t)
    if not voters or wait <= 0:
        return True
    t.out_of_time = {"seat": seat_no, "since": now, "votes": {}}
    ctx.out.append(absence.announce(ctx, seat, voters, wait))
    return False


def _finish(tables: Tables, ctx: Context) -> tuple[list[Outbound], bool] | None:
    if not tables.save(ctx):
        return None
    tables.keep(ctx, ctx.table.version)
    due_at = ctx.table.due_at
    return ctx.out, due_at is not None and due_at <= ctx.now


def reminder(ctx: Context, seat_no: int, left: float) -> Outbound:
    """The reminder at half time, naming the person, the time they have left, and what
    follows: the others' vote within the grace period when there is one, else a computer
    player's move."""
    # The time left as it is (two units, rounded down): "1m" with 1 s left misleads.
    t = ctx.table
    seat = t.seats[seat_no]
    name = ctx.scene.name(seat)
    title = ctx.scene.title
    wait = timebank.grace(t)
    if absence.voters(t, seat_no) and wait > 0:
        text = ctx.texts(
            "turn.reminder_vote",
            name=name,
            table=title,
            left=format_left(left),
            grace=format_left(wait),
        )
    else:
        text = ctx.texts("turn.reminder", name=name, table=title, left=format_left(left))
    mentions = (seat.user,) if seat.user else ()
    return Outbound(ctx.table.chat, text, "reminder", mentions=mentions)


def think(game: Game, seat: int, level: str, seed: int) -> list[Any]:
    """The moves of one computer turn (placements, bonus placements, the swap
    decision), chosen on a copy of the game from that seat's view only."""
    moves: list[Any] = []
    assert not game.over and game.to_move == seat
    while not game.over and game.to_move == seat:
        move = players.choose(game.view(seat), level, _ai_seed(seed, game.version))
        events = game.play(move, seat)
        moves.append(move)
        # One turn only: in the solo game the same seat is to move again, and a
        # timeout there must not play the rest of the game at once.
        if any(isinstance(e, TurnStarted) for e in events):
            break
    return moves


def _ai_seed(seed: int, version: int) -> int:
    # One seed per position, derived from stored values only, so a restarted bot makes the
    # same computer moves.
    return (seed * 1_000_003 + version * 7_919) % (2**63)
