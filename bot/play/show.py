"""What a player asks to see: ``/hand``, ``/board``, ``/look``, ``/score``, ``/export``,
``/history``, ``/replay``, ``/help`` and ``/rules``, and the :class:`SeatLook` an
adapter's autocomplete reads. Nothing here changes a table.
"""

from __future__ import annotations

from bot.community import ladders as community
from bot.core import cells, games, images, messages, timebank
from bot.core.commands import Board, Export, Hand, Help, History, Look, Replay, Rules, Score
from bot.core.games import Game
from bot.core.looks import RackTile, SeatLook
from bot.core.table import PLAYING
from bot.core.tables import (
    DAMAGE,
    Context,
    Handler,
    Reject,
    Tables,
    damage_text,
    my_seat,
    need_table,
)


def hand(tables: Tables, ctx: Context, cmd: Hand) -> None:
    need_table(ctx)
    if ctx.table.status != PLAYING:
        raise Reject("error.not_started")
    game = tables.game(ctx)
    rack = messages.rack(ctx.scene, game, my_seat(ctx))
    assert rack is not None
    ctx.out.append(rack)


def board(tables: Tables, ctx: Context, cmd: Board) -> None:
    game = shown_game(tables, ctx)
    title = ctx.texts("board.title", game=ctx.scene.game_title(game), count=len(game.moves))
    ctx.out.append(messages.turn(ctx.scene, game, [title]))


def look(tables: Tables, ctx: Context, cmd: Look) -> None:
    """A cell and its lines in words, for a player who does not see the board."""
    game = shown_game(tables, ctx)
    names = ctx.scene.names(game)
    lines = cells.look(game, ctx.table.record, names, ctx.texts, cmd.cell)
    if lines is None:
        raise Reject("look.no_cell")
    ctx.out.append(ctx.scene.chat_message(lines))


def score(tables: Tables, ctx: Context, cmd: Score) -> None:
    ctx.out.append(messages.scores(ctx.scene, shown_game(tables, ctx)))


def shown_game(tables: Tables, ctx: Context) -> Game:
    """The running game, or the last one after its end."""
    t = need_table(ctx)
    if t.record is None:
        raise Reject("error.not_started")
    return tables.game(ctx)


def export(tables: Tables, ctx: Context, cmd: Export) -> None:
    if ctx.new or ctx.table.record is None:
        raise Reject("error.no_record")
    ctx.out.append(messages.export(ctx.scene, tables.game(ctx)))


def help_text(tables: Tables, ctx: Context, cmd: Help) -> None:
    tx = ctx.texts
    levels = tx.levels(tables.settings.levels)
    if not cmd.everything:
        # A newcomer's first screen: the few commands of a first game, and where the rest is.
        ctx.out.append(ctx.scene.chat_message([tx("help.short", levels=levels)]))
        return
    # The buttons are named as they read: "Starten" in German, not the English "Start".
    text = tx("help.text", levels=levels, start=tx("button.start"), again=tx("button.again"))
    more = [tx("help.clock"), tx("help.notify"), tx("help.review"), tx("help.puzzle")]
    ctx.out.append(ctx.scene.chat_message([text, *more]))


def rules(tables: Tables, ctx: Context, cmd: Rules) -> None:
    spezial = ctx.table.options.game == "spezial"
    key, clock = (
        ("rules.spezial", "rules.clock_spezial") if spezial else ("rules.genial", "rules.clock")
    )
    grace = ctx.texts("rules.grace", live=ctx.texts.duration(timebank.LIVE_GRACE))
    ctx.out.append(ctx.scene.chat_message([ctx.texts(key), ctx.texts(clock), grace]))


def history(tables: Tables, ctx: Context, cmd: History) -> None:
    t = need_table(ctx)
    if t.record is None:
        raise Reject("error.not_started")
    game = tables.game(ctx)
    names = ctx.scene.names(game)
    try:
        lines = community.history_lines(t.record, names, cmd.count, ctx.texts)
    except DAMAGE as exc:
        raise Reject("error.invalid_record", text=damage_text(exc)) from None
    if not lines:
        raise Reject("history.empty")
    # The moves told, not the lines: a takeback's note is a line but no move.
    told = min(cmd.count, len(t.record.get("moves") or []))
    title = ctx.texts("history.title", game=ctx.scene.game_title(game), count=told)
    ctx.out.append(ctx.scene.chat_message([title, *lines]))


def replay(tables: Tables, ctx: Context, cmd: Replay) -> None:
    t = ctx.table
    if ctx.new or t.record is None:
        raise Reject("replay.none")
    if t.status == PLAYING:
        raise Reject("replay.not_over")
    game = tables.game(ctx)
    if not game.over or not game.moves:
        raise Reject("replay.not_over")
    names = ctx.scene.names(game)
    try:
        gif = images.replay(t.record, names, len(game.moves), ctx.texts("replay.taken_back"))
    except DAMAGE as exc:
        raise Reject("error.invalid_record", text=damage_text(exc)) from None
    text = ctx.texts("replay.text", game=ctx.scene.game_title(game), count=len(game.moves))
    ctx.out.append(ctx.scene.chat_message([text], attachment=gif))


def seat_look(game: Game, seat: int) -> SeatLook:
    """What the player at ``seat`` may be shown, in plain values: their rack, their turn,
    the cells a tile of theirs fits on."""
    view = game.view(seat)
    cells = games.placement_cells(game, seat)
    spezial = hasattr(view, "towers")
    rack = tuple(getattr(view, "rack", None) or ())
    return SeatLook(
        spezial=spezial,
        my_turn=view.to_move == view.seat,
        rack=tuple(
            RackTile(slot, t.name, t.first.value, t.second.value) for slot, t in enumerate(rack, 1)
        ),
        rack_text=games.rack_text(rack),
        cells=cells,
    )


HANDLERS: dict[type, Handler] = {
    Hand: hand,
    Board: board,
    Look: look,
    Score: score,
    Export: export,
    Help: help_text,
    Rules: rules,
    History: history,
    Replay: replay,
}
