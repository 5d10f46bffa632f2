"""What a group that plays over weeks asks for: ``/top``, ``/stats``, ``/games``,
``/notify``, and the private turn pings.

The ladders, the archive of finished games and the texts of these answers are
:mod:`bot.community`; this module is the commands that read them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot import community, images, messages, puzzles, ratings
from bot.commands import Games, Notify, Stats, Top, format_left
from bot.games import Game
from bot.outbound import Outbound
from bot.store import DamagedTable
from bot.table import PLAYING
from bot.tables import Context, Handler, Reject, Tables


@dataclass(frozen=True, slots=True)
class RunningGame:
    """A running table a person sits at (``/games``): ``game`` is genial, team, solo or
    spezial; ``deadline`` when the turn runs out (seconds since the epoch), if it does."""

    chat: str
    title: str
    game: str
    to_move: str
    my_turn: bool
    deadline: float | None


def top(tables: Tables, ctx: Context, cmd: Top) -> None:
    scope = ratings.GLOBAL if cmd.everyone else ctx.chat.id
    lines = community.top_lines(tables.community, scope, cmd.page, ctx.texts)
    if lines is None:
        if cmd.everyone:
            raise Reject("top.empty_global")
        if community.top_lines(tables.community, ratings.GLOBAL, 1, ctx.texts) is not None:
            # A private chat (or a new group) has no ladder of its own: say where one is.
            raise Reject("top.empty_here")
        raise Reject("top.empty")
    ctx.out.append(ctx.scene.chat_message(lines))


def stats(tables: Tables, ctx: Context, cmd: Stats) -> None:
    assert ctx.user is not None
    player: str | None = ctx.user.id
    if cmd.player is not None:
        player = tables.community.find(ctx.chat.id, cmd.player)
        if player is None:
            raise Reject("stats.who", target=cmd.player)
    assert player is not None
    asker = ctx.user.name if player == ctx.user.id else None
    head, per_game = community.stats(tables.community, ctx.chat.id, player, ctx.texts, asker)
    head = [*head, *puzzles.solved_lines(tables, player, ctx.texts)]
    if not per_game:
        ctx.out.append(ctx.scene.chat_message(head))
        return
    for n, part in enumerate(per_game):
        lines = [*(head if n == 0 else []), *part.lines]
        chart = None
        if ctx.pictures and part.history:
            title = f"{tables.community.name(player, ctx.texts)} · {ctx.texts(f'game.{part.game}')}"
            chart = images.chart(part.history, title)
        ctx.out.append(ctx.scene.chat_message(lines, attachment=chart))


def games(tables: Tables, ctx: Context, cmd: Games) -> None:
    assert ctx.user is not None
    found = running_games(tables, ctx.user.id, ctx.now)
    tx = ctx.texts
    if not found:
        lines = [tx("games.none")]
    else:
        lines = [tx("games.title", number=len(found))]
        for g in found:
            turn = tx("games.your_turn") if g.my_turn else tx("games.turn", name=g.to_move)
            left = "" if g.deadline is None else format_left(g.deadline - ctx.now)
            key = "games.line_deadline" if left else "games.line"
            # One line per table (a title's line break would shift the links).
            title = " ".join(g.title.split())
            lines.append(tx(key, table=title, game=tx(f"game.{g.game}"), turn=turn, left=left))
    # The platform adds to each table's line a link to its latest message.
    tables_shown = tuple(g.chat for g in found)
    text = "\n".join(lines)
    ctx.out.append(Outbound(ctx.chat.id, text, "info", user=ctx.user.id, tables=tables_shown))


def running_games(tables: Tables, user: str, now: float) -> list[RunningGame]:
    """Every running table ``user`` sits at, across chats, read from the store's players
    index without any table's lock."""
    found = []
    for chat in tables.store.playing(user):
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            continue
        if t is None:
            continue
        facts = tables.game_facts(t)
        if facts is None or facts[0]:
            continue
        _, to_move, mode = facts
        ctx = tables.clock_context(t, now)
        seat = t.seats[to_move]
        timeout = t.options.timeout
        deadline = None
        if timeout and not seat.computer and t.turn_started is not None:
            deadline = t.turn_started + timeout
        found.append(
            RunningGame(
                chat=t.chat,
                title=t.title or t.chat,
                game=mode.replace("standard", "genial"),
                to_move=ctx.scene.name(seat),
                my_turn=seat.user == user,
                deadline=deadline,
            )
        )
    return found


def notify(tables: Tables, ctx: Context, cmd: Notify) -> None:
    assert ctx.user is not None
    if cmd.on is not None:
        tables.store.set_note(ctx.user.id, community.NOTIFY, "on" if cmd.on else None)
    on = tables.store.note(ctx.user.id, community.NOTIFY) == "on"
    key = "notify.on" if on else "notify.off"
    ctx.out.append(Outbound(ctx.chat.id, ctx.texts(key), "info", user=ctx.user.id))


def ping(tables: Tables, ctx: Context, game: Game) -> None:
    """A private note to the person whose turn it now is, if they asked for pings, did
    not just act themselves and play with at least one other person: once per turn
    (keyed by the game's seed and the moves played when it began, noted once the table
    is saved)."""
    t = ctx.table
    if game.over or t.status != PLAYING:
        return
    seat = t.seats[game.to_move]
    if seat.user is None or (ctx.user is not None and ctx.user.id == seat.user):
        return
    if sum(s.user is not None for s in t.seats) < 2:
        return  # the only person here: the computer players answer them at once
    known = ctx.notify
    if known is not None and seat.user in known:
        asked = known[seat.user]
    else:
        asked = tables.store.note(seat.user, community.NOTIFY)
    if asked != "on":
        return
    key = community.PING.format(user=seat.user)
    turn = f"{t.seed}:{len(game.moves)}"
    if tables.store.note(t.chat, key) == turn:
        return
    ctx.pinged.append((t.chat, key, turn))
    text = ctx.texts("notify.ping", table=ctx.scene.title, game=ctx.scene.game_title(game))
    board = messages.board_attachment(ctx.scene, game)
    ctx.out.append(Outbound(t.chat, text, "ping", user=seat.user, attachment=board))


HANDLERS: dict[type, Handler] = {Top: top, Stats: stats, Games: games, Notify: notify}
