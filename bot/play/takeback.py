"""Takeback by consent: ``/undo`` right after my move asks the other persons at the table
(computer seats accept); once every one of them accepts (``/undo yes``, a button), before
the next person acts, my turn and the computer moves after it are taken back.

The tiles drawn since go back into the bag and the draw order nobody has drawn yet is
shuffled anew (:func:`bot.core.games.take_back`), so the taker learns nothing about future
draws; the record keeps the moves taken back (its ``takebacks``) and still replays.
"""

from __future__ import annotations

from bot.community import social
from bot.core import games, messages, timebank
from bot.core.commands import Undo
from bot.core.deadlines import schedule
from bot.core.games import Game
from bot.core.outbound import Button
from bot.core.tables import Context, Handler, Reject, Tables, my_seat, need_running
from engine.errors import EngineError
from engine.record import MAX_TAKEBACKS

#: The swap decisions: a takeback never reaches behind one (the new rack was seen).
SWAP_MOVES = ("swap", "keep")


def undo(tables: Tables, ctx: Context, cmd: Undo) -> None:
    game = need_running(tables, ctx)
    my_seat(ctx)
    if not ctx.table.options.undo:
        raise Reject("undo.off")
    if cmd.answer is None:
        _ask(tables, ctx, game)
    else:
        _answer(tables, ctx, game, cmd.answer == "yes")


def others(ctx: Context, taker: str) -> list[str]:
    """The persons who must accept ``taker``'s takeback."""
    return [s.user for s in ctx.table.seats if s.user is not None and s.user != taker]


def _buttons(ctx: Context) -> tuple[Button, ...]:
    b = ctx.scene.button
    return (b("button.undo_accept", "/undo yes"), b("button.undo_refuse", "/undo no"))


def _ask(tables: Tables, ctx: Context, game: Game) -> None:
    t = ctx.table
    assert ctx.user is not None
    u = t.undoable
    if u is not None and u.get("asked"):
        raise Reject("undo.pending")
    if u is None or u.get("user") != ctx.user.id:
        raise Reject("undo.nothing")
    if u.get("refused"):
        # Asked and refused for this very turn: say so, not that there is nothing.
        raise Reject("undo.refused_before", by=str(u["refused"]))
    undone = game.moves[int(u["at"]) :]
    if not undone:
        raise Reject("undo.nothing")
    if any(m in SWAP_MOVES for m in undone):
        raise Reject("undo.after_swap")
    if len((t.record or {}).get("takebacks") or []) >= MAX_TAKEBACKS:
        raise Reject("undo.too_many", count=MAX_TAKEBACKS)
    asked = others(ctx, ctx.user.id)
    if not asked:
        _take_back(tables, ctx, game, [])
        return
    u["asked"], u["accepted"] = True, []
    text = ctx.texts("undo.asked", name=ctx.user.name, count=len(undone))
    ctx.out.append(ctx.scene.chat_message([text], buttons=_buttons(ctx), mentions=tuple(asked)))


def _answer(tables: Tables, ctx: Context, game: Game, yes: bool) -> None:
    t = ctx.table
    assert ctx.user is not None
    u = t.undoable
    if u is None or not u.get("asked"):
        raise Reject("undo.no_request")
    taker = str(u["user"])
    name = ctx.scene.name(t.seats[int(u["seat"])])
    if ctx.user.id == taker:
        if yes:
            raise Reject("undo.own_request")
        t.undoable = None  # the taker withdraws the request
        ctx.out.append(ctx.scene.chat_message([ctx.texts("undo.withdrawn", name=name)]))
        return
    asked = others(ctx, taker)
    if not yes:
        # Kept (no longer asked) so that the taker asking again hears it was refused.
        u["asked"], u["refused"] = False, ctx.user.name
        u.pop("accepted", None)
        text = ctx.texts("undo.refused", name=name, by=ctx.user.name)
        ctx.out.append(ctx.scene.chat_message([text]))
        return
    accepted = [a for a in u.get("accepted", []) if a in asked]
    if ctx.user.id not in accepted:
        accepted.append(ctx.user.id)
    u["accepted"] = accepted
    if len(accepted) < len(asked):
        text = ctx.texts("undo.accepted_by", by=ctx.user.name, count=len(asked) - len(accepted))
        ctx.out.append(ctx.scene.chat_message([text], buttons=_buttons(ctx)))
        return
    _take_back(tables, ctx, game, [ctx.texts("undo.accepted_all")])


def _take_back(tables: Tables, ctx: Context, game: Game, lines: list[str]) -> None:
    """Take the turn of the pending takeback back: the game as it was when that turn
    began, with its clocks as they were then (the turn's time runs on from its start)."""
    t = ctx.table
    u = t.undoable
    assert u is not None and t.record is not None
    keep = int(u["at"])
    count = len(game.moves) - keep
    try:
        t.record = games.take_back(t.record, keep)
    except EngineError:
        raise Reject("undo.bag_empty") from None
    timebank.truncate(t, keep)
    game = ctx.game = games.rebuild(t.record)
    if u.get("banks") and len(u["banks"]) == len(t.seats):
        t.banks = [float(b) for b in u["banks"]]
    t.turn_started = u.get("started", t.turn_started)
    t.turn_at = keep
    t.undoable = t.out_of_time = None
    t.pending, t.pending_cells = [], []
    t.reminded = False
    social.retract_ping(ctx)  # the turn pinged for is gone
    schedule(t, game, ctx.now, new_turn=False)
    name = ctx.scene.name(t.seats[int(u["seat"])])
    bag = "undo.done" if not games.is_spezial(game) else "undo.done_spezial"
    lines = [*lines, ctx.texts(bag, name=name, count=count)]
    ctx.out.append(messages.turn(ctx.scene, game, lines))
    rack = None if games.is_spezial(game) else messages.rack(ctx.scene, game, int(u["seat"]))
    if rack is not None:
        ctx.out.append(rack)


HANDLERS: dict[type, Handler] = {Undo: undo}
