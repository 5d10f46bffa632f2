"""A turn: ``/play``, ``/swap``, ``/keep`` and ``/hint``, and what follows a move (the
record, the deadline, the turn message, the next player's rack and ping, the end).

The computer players' moves (:mod:`bot.play.clock`) go through :func:`after_moves` too, so a
person's move and the computer moves after it are told as one message.
"""

from __future__ import annotations

from bot.community import ladders as community
from bot.community import social
from bot.core import games, messages, narrate, players, timebank
from bot.core.commands import Hint, Keep, Play, Swap
from bot.core.deadlines import schedule
from bot.core.games import Game
from bot.core.outbound import Outbound
from bot.core.table import LOBBY, PLAYING
from bot.core.tables import Context, Handler, Reject, Tables, my_seat, need_running, need_table
from bot.words.texts import Texts
from engine.errors import EngineError
from engine.events import BonusEarned, Event, GameEnded, Placed, SpezialPlaced, TurnStarted

#: Good moves a hint shows.
HINTS = players.HINTS
#: Longest text of moves told together (a person's move and the computer moves after it);
#: beyond it lines from the middle are left out (:func:`shortened`), so one message never
#: becomes a wall and never leaves its board: every platform's caption holds this much
#: and the prompt after it (Telegram's 1,024 is the smallest).
PENDING_CHARS = 600


def play(tables: Tables, ctx: Context, cmd: Play) -> None:
    move(tables, ctx, cmd.move)


def swap(tables: Tables, ctx: Context, cmd: Swap) -> None:
    move(tables, ctx, "swap")


def keep(tables: Tables, ctx: Context, cmd: Keep) -> None:
    move(tables, ctx, "keep")


def move(tables: Tables, ctx: Context, text: str) -> None:
    """The move ``text`` of the person of ``ctx``, on their turn."""
    game = need_running(tables, ctx)
    seat = my_seat(ctx)
    if ctx.table.autoplay:
        raise Reject("error.autoplay")
    names = ctx.scene.names(game)
    if game.to_move != seat:
        raise Reject("error.not_your_turn", name=names[game.to_move], text=text)
    if text in ("swap", "keep") and (games.is_spezial(game) or game.awaiting != "swap"):
        raise Reject("error.swap_not_offered", text=text)
    try:
        events = game.play_text(text, seat)
    except EngineError as exc:
        raise engine_reject(ctx, game, exc) from None
    after_moves(tables, ctx, game, events, seat)


def engine_reject(ctx: Context, game: Game, exc: EngineError) -> Reject:
    """The rules' refusal in the table's words (the Genial Spezial wording where it has
    one of its own)."""
    key = f"error.{exc.reason}"
    if games.is_spezial(game) and ctx.texts.has(key + "_spezial"):
        key += "_spezial"
    if not ctx.texts.has(key):
        key = "error.unknown_reason"
    name = ctx.scene.names(game)[game.to_move] if not game.over else ""
    text = exc.text
    if exc.reason == "unknown_colour" and games.is_spezial(game):
        text = _bad_letter(text)
    symbol = _start_symbol(game, text) if exc.reason == "occupied" else None
    if symbol is not None:
        key, text = "error.start_symbol", symbol
    return Reject(key, text=text, reason=exc.reason, name=name)


def _start_symbol(game: Game, text: str) -> str | None:
    """The label of a printed start symbol among the cells of the Genial move ``text``
    (``BY A1 A2``), if one is: taken, but by no tile."""
    if games.is_spezial(game):
        return None
    for label in text.split()[1:3]:
        try:
            cell = game.area.parse_label(label)
        except EngineError:
            continue
        if game.area.index.get(cell) in game.start_cells:
            return label
    return None


def _bad_letter(text: str) -> str:
    """The first letter after a Genial Spezial move's two cells that names none of its four
    colours (``E4 F4 R``: ``R``), so the answer quotes the one letter that was wrong."""
    allowed = {c.value for c in games.SPEZIAL_COLOURS}
    letters = "".join(text.split()[2:])
    return next((ch for ch in letters if ch.upper() not in allowed), text)


def after_moves(
    tables: Tables,
    ctx: Context,
    game: Game,
    events: list[Event],
    actor: int,
    intro: list[str] | None = None,
) -> None:
    """Record the moves, schedule what comes next, and tell the chat (and the next
    player, privately).

    One public message per person's turn: while computer players follow, what happened
    is kept with the table (``pending``) and told together, with one board marking
    every placement, once a person is to act or the game ends."""
    t = ctx.table
    assert t.record is not None
    t.record["moves"] = list(game.moves)
    scene = ctx.scene
    lines = [*(intro or []), *narrate.narrate(events, game, scene.names(game), ctx.texts)]
    lines = [*_undo_overtaken(ctx, actor), *lines]
    turn_over = game.over or any(isinstance(e, TurnStarted) for e in events)
    if turn_over:
        computer = t.seats[actor].computer or t.autoplay
        timebank.charge(t, actor, ctx.now, len(game.moves), computer)
        social.retract_ping(ctx)
    t.pending = [*t.pending, *lines]
    t.pending_cells = [*t.pending_cells, *_placed_cells(game, events)]
    t.pending_seats = [*t.pending_seats, *_placed_seats(events)]
    if game.over:
        reason = next((e.reason for e in events if isinstance(e, GameEnded)), None)
        ctx.out.append(told(ctx, game))
        ctx.finished = community.archive_row(t, ctx.now)
        t.players = list(t.seats)
        ctx.out.append(messages.result(scene, game, reason))
        t.status = LOBBY
        t.seats = [s for s in t.seats if not s.left]
        t.pass_host()
        schedule(t, game, ctx.now, new_turn=False)
        t.due_at = ctx.now  # the game's review is due work now (bot.community.reviews)
        return
    new_turn = any(isinstance(e, TurnStarted) for e in events)
    again = not new_turn and any(isinstance(e, BonusEarned) for e in events)
    resume = None
    if new_turn:
        resume = tables.away(ctx, t.seats[game.to_move].user)
    schedule(t, game, ctx.now, new_turn=new_turn, resume=resume)
    if t.seats[game.to_move].computer and any(not s.computer for s in t.seats):
        return  # told with the computer moves that follow
    ctx.out.append(told(ctx, game, again))
    if t.autoplay:
        return  # the computer plays every turn now: no rack to study, nobody to ping
    rack = None if games.is_spezial(game) else messages.rack(scene, game, game.to_move)
    if rack is not None:
        ctx.out.append(rack)
    if new_turn:
        social.ping(tables, ctx, game)


def _undo_overtaken(ctx: Context, actor: int) -> list[str]:
    """What ``/undo`` may take back after this move (the turn of the person who made it,
    from its start), and the line saying a takeback asked for before was overtaken."""
    t = ctx.table
    before = t.undoable
    seat = t.seats[actor]
    if ctx.user is None:
        if not seat.computer:
            t.undoable = None  # a computer moved for an absent person: nothing to take back
        return []  # a computer player's move: the person's takeback still covers it
    mine = (
        before is not None
        and before.get("user") == ctx.user.id
        and before.get("at") == t.turn_at
        and not before.get("asked")
    )
    if not mine:
        t.undoable = {
            "user": ctx.user.id,
            "seat": actor,
            "at": t.turn_at,
            "banks": list(t.banks),
            "started": t.turn_started,
        }
    if before is not None and before.get("asked") and before.get("user") != ctx.user.id:
        name = ctx.scene.name(t.seats[int(before["seat"])])
        return [ctx.texts("undo.overtaken", name=name, by=ctx.user.name)]
    if before is not None and before.get("asked"):
        return [ctx.texts("undo.withdrawn", name=ctx.user.name)]
    return []


def told(ctx: Context, game: Game, again: bool = False) -> Outbound:
    """The turn message of everything pending; the table has nothing pending after."""
    t = ctx.table
    lines = shortened(t.pending, ctx.texts)
    out = messages.turn(
        ctx.scene, game, lines, again=again, highlight=t.pending_cells, seats=t.pending_seats
    )
    t.pending, t.pending_cells, t.pending_seats = [], [], []
    return out


def shortened(lines: list[str], texts: Texts) -> list[str]:
    """``lines`` within :data:`PENDING_CHARS`: a long run of computer moves (a chain of
    bonus placements) loses lines from the middle, never its board. The first line (the
    move that began the turn) and the latest ones stay, and a line says how many were
    left out; the board marks every placement all the same."""
    if _chars(lines) <= PENDING_CHARS or len(lines) <= 2:
        return lines
    head, rest = lines[0], lines[1:]
    budget = PENDING_CHARS - _chars([head]) - _chars([texts("turn.more", count=len(rest))])
    tail: list[str] = []
    for line in reversed(rest):
        if _chars([line, *tail]) > budget:
            break
        tail.insert(0, line)
    left_out = len(rest) - len(tail)
    if left_out == 0:
        return lines
    return [head, texts("turn.more", count=left_out), *tail]


def hint(tables: Tables, ctx: Context, cmd: Hint) -> None:
    need_table(ctx)
    if ctx.table.status != PLAYING:
        raise Reject("error.not_started")
    if not ctx.table.options.hints:
        raise Reject("error.hints_off")
    seat = my_seat(ctx)
    game = tables.game(ctx)
    if game.to_move == seat and game.awaiting == "swap":
        raise Reject("error.swap_pending")
    if game.to_move != seat or game.awaiting != "place":
        raise Reject("error.hint_not_now")
    tx = ctx.texts
    lines = [tx("hint.title", table=ctx.scene.title)]
    for number, (best, _value) in enumerate(players.best(game.view(seat), HINTS), 1):
        # Both games say what the move scores (Genial Spezial's golden point to the
        # default colour, as its placement without a colour named scores it).
        made = game.points_of(best)
        points = narrate.points_text(tx, made, made)
        lines.append(
            tx("hint.line", number=number, move=games.format_move(game, best), points=points)
        )
    assert ctx.user is not None
    ctx.out.append(Outbound(ctx.table.chat, "\n".join(lines), "hint", user=ctx.user.id))


def _chars(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _placed_cells(game: Game, events: list[Event]) -> list[str]:
    """The labels of the cells the events' placements covered, for the board's marks."""
    cells = []
    for ev in events:
        if isinstance(ev, Placed | SpezialPlaced):
            cells += [game.area.label(ev.placement.cell1), game.area.label(ev.placement.cell2)]
    return cells


def _placed_seats(events: list[Event]) -> list[int]:
    """The seat of each placement of the events, in the order of :func:`_placed_cells`."""
    return [ev.seat for ev in events if isinstance(ev, Placed | SpezialPlaced)]


HANDLERS: dict[type, Handler] = {Play: play, Swap: swap, Keep: keep, Hint: hint}
