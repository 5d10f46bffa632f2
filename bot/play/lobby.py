"""The table before, around and after a game: ``/join``, ``/addbot``, ``/leave``,
``/kick``, ``/abort``, ``/option``, ``/start`` and ``/rematch``.

Who may do what is :mod:`bot.core.tables`' guards; once a game runs, a seat someone leaves goes
to a computer player, so the game goes on and counts as the leaver's loss.
"""

from __future__ import annotations

import contextlib
import re

from bot.community import social
from bot.core import games, messages, narrate, timebank
from bot.core.commands import (
    Abort,
    AddBot,
    Join,
    Kick,
    Leave,
    Rematch,
    SetOption,
    ShowOptions,
    Start,
)
from bot.core.deadlines import schedule
from bot.core.table import CLOSED, MAX_SEATS, PLAYING, Options, Seat
from bot.core.tables import (
    Context,
    Handler,
    Reject,
    Tables,
    my_seat,
    need_lobby,
    need_manager,
    need_table,
    open_table,
)
from bot.words.texts import Texts

#: A seat number or a mention's id: ASCII digits only, and short (``²`` passes isdigit()
#: but not int(); 5,000 digits would pass both slowly and mean no seat).
_SEAT_NUMBER = re.compile(r"[0-9]{1,3}")
_MENTION = re.compile(r"<@!?([^<>\s]{1,64})>|@(\S{1,64})")


def join(tables: Tables, ctx: Context, cmd: Join) -> None:
    need_lobby(ctx)
    open_table(ctx)
    t, user = ctx.table, ctx.user
    assert user is not None
    seat = t.seat_of(user.id)
    if seat is not None:
        raise Reject("error.already_seated", number=seat + 1)
    if len(t.seats) >= MAX_SEATS:
        raise Reject("error.table_full", count=MAX_SEATS)
    t.seats.append(Seat(name=user.name, user=user.id))
    if t.host is None:
        t.host, t.host_name = user.id, user.name
    ctx.out.append(messages.lobby(ctx.scene, [ctx.texts("lobby.joined", name=user.name)]))


def add_bot(tables: Tables, ctx: Context, cmd: AddBot) -> None:
    need_lobby(ctx)
    open_table(ctx)
    t = ctx.table
    assert ctx.user is not None
    if t.seat_of(ctx.user.id) is None:
        need_manager(ctx)
    settings = tables.settings
    level = cmd.level or settings.level
    if level not in settings.levels:
        raise Reject("error.unknown_level", level=level, levels=ctx.texts.levels(settings.levels))
    if len(t.seats) >= MAX_SEATS:
        raise Reject("error.table_full", count=MAX_SEATS)
    t.bots_added += 1
    name = ctx.texts("seat.computer_name", number=t.bots_added)
    t.seats.append(Seat(name=name, level=level))
    news = ctx.texts("lobby.bot_added", name=name, level=ctx.texts.level(level))
    ctx.out.append(messages.lobby(ctx.scene, [news]))


def leave(tables: Tables, ctx: Context, cmd: Leave) -> None:
    t = need_table(ctx)
    seat_no = my_seat(ctx)
    name = ctx.scene.person_name(t.seats[seat_no])
    vacate(tables, ctx, seat_no, ctx.texts("lobby.left", name=name))


def vacate(tables: Tables, ctx: Context, seat_no: int, news: str) -> None:
    """A person's seat: gone before the start, a computer player's during a game."""
    t = ctx.table
    seat = t.seats[seat_no]
    if t.status != PLAYING:
        del t.seats[seat_no]
        t.pass_host()
        ctx.out.append(messages.lobby(ctx.scene, [news]))
        return
    t.seats[seat_no] = Seat(
        name=seat.name, level=tables.settings.level, left=True, left_user=seat.user
    )
    t.players = list(t.seats)
    t.pass_host()
    game = tables.game(ctx)
    name = ctx.scene.person_name(t.seats[seat_no])
    lines = [news, ctx.texts("turn.taken_over", name=name)]
    if game.to_move == seat_no:
        schedule(t, game, ctx.now, new_turn=False)
        lines.append(ctx.texts("turn.next_computer", name=name))
    ctx.out.append(ctx.scene.chat_message(lines))


def kick(tables: Tables, ctx: Context, cmd: Kick) -> None:
    t = need_table(ctx)
    need_manager(ctx)
    seat_no = find_seat(ctx, cmd.target)
    seat = t.seats[seat_no]
    assert ctx.user is not None
    if seat.user == ctx.user.id:
        # Kicking oneself would hand a solo game to a computer whose result then counts
        # as the person's: giving up a seat is /leave, ending the table /abort.
        raise Reject("error.kick_self", number=seat_no + 1)
    if t.status == PLAYING and seat.computer:
        raise Reject("error.kick_computer", name=ctx.scene.name(seat))
    name = ctx.scene.person_name(seat)
    vacate(tables, ctx, seat_no, ctx.texts("lobby.kicked", name=name, by=ctx.user.name))


def find_seat(ctx: Context, target: str) -> int:
    """A seat by number (``2``), mention (``<@123>``, ``@ada``) or user id, or name.

    Raises:
        Reject: ``error.kick_no_seat`` for a seat number nobody sits in,
            ``error.kick_who`` for no such player, ``error.kick_ambiguous`` naming the
            seats a shared name could mean.
    """
    t = ctx.table
    key = target.strip()
    if _SEAT_NUMBER.fullmatch(key):
        number = int(key)
        if 1 <= number <= len(t.seats):
            return number - 1
        raise Reject("error.kick_no_seat", number=number, count=len(t.seats))
    m = _MENTION.fullmatch(key)
    ids = [key] if m is None else [g for g in m.groups() if g]
    for i, s in enumerate(t.seats):
        if s.user is not None and s.user in ids:
            return i
    if m is not None and m.group(2):
        key = m.group(2)  # "@Ann": the name after the at sign
    folded = key.casefold()
    matches = [i for i, s in enumerate(t.seats) if s.name.casefold() == folded]
    if not matches:
        matches = [i for i, s in enumerate(t.seats) if s.name.casefold().startswith(folded)]
    if len(matches) == 1:
        return matches[0]
    if not matches or not folded:
        raise Reject("error.kick_who", target=target)
    seats = ", ".join(f"{i + 1}. {t.seats[i].name}" for i in matches)
    raise Reject("error.kick_ambiguous", target=target, seats=seats, number=matches[0] + 1)


def abort(tables: Tables, ctx: Context, cmd: Abort) -> None:
    t = need_table(ctx)
    need_manager(ctx)
    assert ctx.user is not None
    if t.status == PLAYING:
        t.players = list(t.seats)  # the aborted game keeps its players' names
    t.status = CLOSED
    t.seats = []
    t.pending, t.pending_cells, t.pending_seats = [], [], []
    t.host, t.host_name = None, ""
    t.due_at = t.turn_started = None
    ctx.game = None
    tables.forget(t.chat)
    ctx.out.append(ctx.scene.chat_message([ctx.texts("lobby.closed", name=ctx.user.name)]))


def show_options(tables: Tables, ctx: Context, cmd: ShowOptions) -> None:
    ctx.out.append(messages.options(ctx.scene))


def set_option(tables: Tables, ctx: Context, cmd: SetOption) -> None:
    need_lobby(ctx)
    open_table(ctx)
    need_manager(ctx)
    o = ctx.table.options
    if cmd.name == "game":
        o.game = cmd.value
        if o.game == "spezial":
            o.team = False
    elif cmd.name == "team":
        o.team = cmd.value == "on"
        if o.team:
            o.game = "genial"
    elif cmd.name == "hints":
        o.hints = cmd.value == "on"
    elif cmd.name == "order":
        o.order = cmd.value
    elif cmd.name == "timeout":
        o.timeout = int(cmd.value)
        if o.timeout:
            o.clock_bank = o.clock_increment = 0  # one limit at a time: a turn's, or a bank
    elif cmd.name == "clock":
        bank, _, increment = cmd.value.partition("+")
        o.clock_bank, o.clock_increment = int(bank), int(increment)
        if o.clock_bank:
            o.timeout = 0
    elif cmd.name == "grace":
        o.grace = int(cmd.value)
    elif cmd.name == "undo":
        o.undo = cmd.value == "on"
    elif cmd.name == "lang":
        o.lang = cmd.value
        ctx.texts = Texts(o.lang)
    else:  # the parser makes only the names above
        raise Reject("option.unknown", name=cmd.name)
    assert ctx.user is not None
    news = ctx.texts("options.changed", name=ctx.user.name)
    ctx.out.append(messages.options(ctx.scene, [news]))


def start(tables: Tables, ctx: Context, cmd: Start) -> None:
    t = need_table(ctx)
    need_lobby(ctx)
    assert ctx.user is not None
    if t.seat_of(ctx.user.id) is None:
        need_manager(ctx)
    n = len(t.seats)
    o = t.options
    if n == 0:
        raise Reject("error.no_players")
    if all(s.computer for s in t.seats):
        # A game of computers alone is watched by nobody, holds the table (and a console)
        # until it ends, and counts on no ladder.
        raise Reject("error.no_person")
    if o.game == "spezial" and n not in games.SPEZIAL_SEATS:
        raise Reject("error.spezial_players", count=n)
    if o.team and n != 4:
        raise Reject("error.team_players", count=n)
    if o.order == "random":
        tables.rng.shuffle(t.seats)
    t.seed = tables.rng.randrange(2**62)
    game = ctx.game = games.new_game(o.game, n, o.team, t.seed)
    t.record = game.record(with_bag=True)
    t.status = PLAYING
    t.players = list(t.seats)
    t.pending, t.pending_cells, t.pending_seats = [], [], []
    scene = ctx.scene
    # Numbered already: a name two seats share needs no number of its own here.
    names = ", ".join(f"{i}. {seat.name}" for i, seat in enumerate(t.seats, 1))
    intro = [ctx.texts("start.text", game=scene.game_title(game), players=names)]
    if games.mode(game) == "team":
        first, second = narrate.side_names(game, scene.names(game), ctx.texts)
        intro.append(ctx.texts("start.teams", first=first, second=second))
    timebank.begin(t)
    t.undoable = t.out_of_time = None
    resume = tables.away(ctx, t.seats[game.to_move].user)
    schedule(t, game, ctx.now, new_turn=True, resume=resume)
    ctx.out.append(messages.turn(scene, game, intro))
    if not games.is_spezial(game):  # Genial Spezial has no hidden tiles to send
        for seat_no in range(n):
            rack = messages.rack(scene, game, seat_no, start=True)
            if rack is not None:
                ctx.out.append(rack)
    social.ping(tables, ctx, game)


def rematch(tables: Tables, ctx: Context, cmd: Rematch) -> None:
    """The lobby again with the last game's seats (those who stayed) and options; the
    host starts it with one more press."""
    t = ctx.table
    if ctx.new or t.status == CLOSED or t.record is None or not t.players:
        raise Reject("rematch.none")
    need_lobby(ctx)
    assert ctx.user is not None
    if all(s.user != ctx.user.id for s in t.players):
        need_manager(ctx)
    t.seats = [Seat(name=s.name, user=s.user, level=s.level) for s in t.players if not s.left]
    last = tables.store.archived(t.chat)
    if last and last[-1].get("record") == t.record:
        # The options the last game was played with, changed since or not.
        with contextlib.suppress(TypeError):
            t.options = Options(**last[-1]["options"])
    ctx.texts = Texts(t.options.lang)
    if t.seat_of(ctx.user.id) is not None:
        t.host, t.host_name = ctx.user.id, ctx.user.name
    t.pass_host()
    # Anyone seated may start (not the host alone); the button's own word in this language.
    news = ctx.texts("rematch.ready", name=ctx.user.name, start=ctx.texts("button.start"))
    ctx.out.append(messages.lobby(ctx.scene, [news]))


HANDLERS: dict[type, Handler] = {
    Join: join,
    AddBot: add_bot,
    Leave: leave,
    Kick: kick,
    Abort: abort,
    ShowOptions: show_options,
    SetOption: set_option,
    Start: start,
    Rematch: rematch,
}
