"""What a table's web page shows, in plain values (:class:`bot.core.looks.PageLook`).

The board is drawn as SVG by ``render.svg`` from the same layout and theme as the PNG; the
move list and the result are the chat's own lines; the page's words come from the table's
catalogue. A watcher's look is built from the spectator's view, a seat's adds that seat's
rack and legal cells only: nothing here ever holds the draw order or another rack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.community import ladders as community
from bot.core import cells, games, narrate, timebank
from bot.core.durations import format_left
from bot.core.games import Game
from bot.core.looks import PageLook, RackTile, SideLook
from bot.core.messages import Scene, left_seats
from bot.core.table import PLAYING, Table
from bot.core.tables import Reject, Tables
from bot.store import DamagedTable
from bot.words.texts import Texts
from engine.errors import EngineError
from engine.events import GoldenPoint
from engine.hexgrid import Hex
from engine.review import GameReview
from engine.tiles import COLOURS
from render.svg import board_svg, hex_colour, symbol_svg
from render.theme import SEAT, SYMBOL, TILE

#: The page's own words, ids under ``web.`` in every catalogue.
WORDS = (
    "watching",
    "your_turn",
    "rack",
    "confirm",
    "cancel",
    "swap",
    "keep",
    "hint",
    "zoom_out",
    "pick_area",
    "hints_shown",
    "bonus_watch",
    "points",
    "moves",
    "lobby",
    "stale",
    "bonus",
    "replay",
    "pick_tile",
    "pick_cell",
    "offline",
    "swap_offer",
    "golden_pick",
    "board",
    "free",
    "can_place",
    "lines",
    "keys",
)


def words(texts: Texts) -> dict[str, str]:
    """The page's words, and each colour's name under ``colour_<letter>``."""
    # The page puts the cell and the name in.
    out = {w: texts(f"web.{w}", cell="{cell}", name="{name}") for w in WORDS}
    out.update({f"colour_{c.value}": texts(f"colour.{c.value}") for c in COLOURS})
    out.update({f"symbol_{c.value}": texts(f"symbol.{c.value}") for c in COLOURS})
    return out


def symbols() -> dict[str, str]:
    """Each colour letter's symbol on a 100-unit square (a rack tile's half)."""
    return {c.value: symbol_svg(c, 50, 50, 36, TILE) for c in COLOURS}


def _sides(
    game: Game, names: list[str], texts: Texts, clocks: Sequence[str] = ()
) -> tuple[SideLook, ...]:
    colours = games.score_colours(game)
    sides = narrate.side_names(game, names, texts)
    to_move = game.to_move if not game.over else None
    out = []
    for side, name in enumerate(sides):
        score = game.score(side)
        lowest = min(score.values())
        out.append(
            SideLook(
                names=(name,),
                scores=tuple((c.value, score[c]) for c in colours),
                to_move=to_move is not None and games.side_of(game, to_move) == side,
                lowest=tuple(c.value for c in colours if score[c] == lowest),
                clock=clocks[side] if side < len(clocks) and len(sides) == len(names) else "",
                colour=hex_colour(SEAT[side]) if games.is_spezial(game) else "",
            )
        )
    return tuple(out)


def _board(game: Game, table: Table) -> str:
    cells = table.pending_cells if table.status == PLAYING else []
    area = game.area
    highlight: set[Hex] = set()
    for label in cells:
        try:
            highlight.add(area.parse_label(label))
        except EngineError:
            continue  # a label of another board: nothing to mark
    return board_svg(game.view(None), frozenset(highlight))


def page_look(table: Table, game: Game | None, seat: int | None, now: float) -> PageLook:
    """The page of ``table`` (``game``: its running or last game, ``None`` before the first)
    for ``seat`` (``None``: a watcher)."""
    texts = Texts(table.options.lang)
    scene = Scene(table, texts, pictures=False)
    common: dict[str, Any] = {
        "version": table.version,
        "status": table.status,
        "lang": texts.lang,
        "title": scene.title,
        "words": words(texts),
        "symbols": symbols(),
        "colours": tuple((c.value, hex_colour(SYMBOL[c])) for c in COLOURS),
        "hints": table.options.hints,
    }
    if game is None or table.record is None:
        return PageLook(
            game=table.options.game,
            mode="",
            board="",
            names=tuple(s.name for s in table.seats),
            sides=(),
            turn=texts("web.lobby"),
            to_move=None,
            awaiting=None,
            moves=(),
            placed=0,
            over=False,
            result=(),
            deadline=None,
            **common,
        )
    names = scene.names(game)
    running = table.status == PLAYING and not game.over
    moves = community.history_lines(table.record, names, len(game.moves), texts)
    turn = ""
    if running:
        turn = texts("web.turn", name=names[game.to_move])
    deadline = table.deadline if running else None
    if running and deadline is None and table.options.timeout and table.turn_started:
        deadline = table.turn_started + table.options.timeout  # stored before deadlines were
    # The page counts down from the turn's start or now, whichever is later (a vacation
    # pauses the clock until then): the look is built once per table version, so the
    # page works out the time left as of each second itself.
    started = table.turn_started if deadline is not None else None
    if running and deadline is not None and timebank.out_of_time(table, game.to_move):
        deadline, started = min(deadline, now), None  # out of time while the others vote
    clocks: list[str] = []
    if running and timebank.clocked(table):
        for n, _ in enumerate(names):
            left = timebank.left(table, n, now, to_move=n == game.to_move)
            clocks.append("" if left is None else format_left(left))
    look = PageLook(
        game="spezial" if games.is_spezial(game) else "genial",
        mode=games.mode(game),
        board=_board(game, table),
        names=tuple(names),
        sides=_sides(game, names, texts, clocks),
        turn=turn,
        to_move=game.to_move if running else None,
        awaiting=getattr(game, "awaiting", "place") if running else None,
        moves=tuple(moves),
        placed=len(game.moves),
        over=game.over,
        result=tuple(narrate.ranking_lines(game, names, texts, left_seats(scene)))
        if game.over
        else (),
        deadline=deadline,
        started=started,
        bonus=running and bool(getattr(game, "placing_again", False)),
        cell_names=cells.cell_names(game, table.record, names, texts),
        **common,
    )
    if seat is None or not running:
        return look
    view = game.view(seat)
    rack = tuple(getattr(view, "rack", None) or ())
    my_turn = game.to_move == seat
    return replace(
        look,  # the public part, as a watcher sees it, and this seat's own
        seat=seat,
        my_turn=my_turn,
        rack=tuple(
            RackTile(slot, t.name, t.first.value, t.second.value) for slot, t in enumerate(rack, 1)
        ),
        cells=games.placement_cells(game, seat) if my_turn else {},
        bonus_owed=int(getattr(view, "bonus_owed", 0) or 0),
        golden=_golden(game) if my_turn else (),
        seat_colour=hex_colour(SEAT[seat]) if games.is_spezial(game) else "",
        golden_colours=tuple(c.value for c in games.score_colours(game))
        if my_turn and games.is_spezial(game)
        else (),
    )


def _golden(game: Game) -> tuple[str, ...]:
    """Genial Spezial's golden spaces still free (nothing for Genial): a seat's page asks
    for a colour when its placement covers one."""
    if not games.is_spezial(game):
        return ()
    view = game.view(None)
    covered = {h for h, owner in view.board.items() if owner >= 0}
    area = game.area
    return tuple(area.label(h) for h in area.cells if h in view.golden and h not in covered)


def preview(game: Game, seat: int, text: str) -> dict[str, Any] | None:
    """What a placement (``RG A2 B3``, ``1 A2 B3``, Spezial ``J4 J5`` or ``J4 J5 P``) of
    ``seat`` would score now: ``points`` by colour letter, and under ``golden`` the colour
    each golden space it covers gives its point to (chosen, or the default); ``None`` if it
    is not a legal placement now."""
    if game.over or game.to_move != seat or getattr(game, "awaiting", "place") != "place":
        return None
    try:
        move = game.parse(text, seat)
        trial = game.copy()
        events = trial.play(move, seat)
    except EngineError:
        return None
    before = game.score(games.side_of(game, seat))
    after = trial.score(games.side_of(game, seat))
    points = {
        c.value: after[c] - before[c] for c in games.score_colours(game) if after[c] != before[c]
    }
    golden = [e.colour.value for e in events or () if isinstance(e, GoldenPoint)]
    return {"points": points, "golden": golden}


def replay_board(table: Table, placed: int) -> str | None:
    """The board of a finished game after its first ``placed`` moves, as SVG; ``None``
    while the game runs (a replay would tell nothing new, but the rule is simple) or
    without a record."""
    if table.status == PLAYING or table.record is None:
        return None
    moves = list(table.record.get("moves") or [])
    placed = max(0, min(placed, len(moves)))
    game = games.rebuild({**table.record, "moves": moves[:placed], "takebacks": []})
    return board_svg(game.view(None), frozenset[Hex]())


def _game_of(tables: Tables, table: Table) -> Game | None:
    """The table's running game (from the cache when it holds it) or its last one."""
    if table.record is None:
        return None
    ctx = tables.clock_context(table, tables.clock())
    try:
        game = tables.game(ctx)
    except Reject:
        return None
    tables.keep(ctx, table.version)
    return game


def look(tables: Tables, chat: str, user: str | None) -> PageLook | None:
    """The page of ``chat``'s table for ``user`` (``None``: a watcher; a person without a
    seat at the running game watches too); ``None`` if the chat has no table."""
    with tables.locks.hold(chat):
        try:
            table = tables.store.load(chat)
        except DamagedTable:
            return None
        if table is None:
            return None
        game = _game_of(tables, table)
        seat = table.seat_of(user) if user is not None and table.status == PLAYING else None
        return page_look(table, game, seat, tables.clock())


def seat_preview(tables: Tables, chat: str, user: str, text: str) -> dict[str, Any] | None:
    """:func:`preview` for ``user``'s seat at ``chat``'s running game."""
    with tables.locks.hold(chat):
        found = tables.seat_game(chat, user)
        return None if found is None else preview(found[0], found[1], text)


def replay_at(tables: Tables, chat: str, placed: int) -> str | None:
    """:func:`replay_board` of ``chat``'s table."""
    try:
        table = tables.store.load(chat)
    except DamagedTable:
        return None
    if table is None:
        return None
    try:
        return replay_board(table, placed)
    except EngineError:
        return None


def cell_look(tables: Tables, chat: str, label: str) -> list[str] | None:
    """Cell ``label`` of ``chat``'s board (running or last game) and its lines, in the
    table's language (:func:`bot.core.cells.look`); ``None`` without a game or such a
    cell."""
    with tables.locks.hold(chat):
        try:
            table = tables.store.load(chat)
        except DamagedTable:
            return None
        if table is None:
            return None
        game = _game_of(tables, table)
        if game is None:
            return None
        texts = Texts(table.options.lang)
        names = Scene(table, texts, pictures=False).names(game)
        return cells.look(game, table.record, names, texts, label)


def _shown_review(tables: Tables, chat: str) -> tuple[GameReview, list[str], Texts] | None:
    """The review of ``chat``'s finished game, its seats' names and the table's language;
    ``None`` while the table plays, or when its last game has no review (yet): the review
    of an older game is not shown beside another game's replay."""
    from bot.community import reviews

    try:
        table = tables.store.load(chat)
    except DamagedTable:
        return None
    if table is None or table.status == PLAYING or table.record is None:
        return None
    found = reviews.latest(tables, chat)
    if found is None or found[1] is None:
        return None
    row, review = found
    assert review is not None
    if list(row["record"].get("moves") or []) != list(table.record.get("moves") or []):
        return None
    texts = Texts(table.options.lang)
    return review, reviews.seat_names(row, texts), texts


def review_lines(tables: Tables, chat: str) -> list[str] | None:
    """The expert's review of ``chat``'s finished game, move by move, for the replay
    slider: line ``n`` says what the expert thought of move ``n`` (from 0), in the table's
    language; ``None`` as :func:`_shown_review`."""
    from bot.community import reviews

    shown = _shown_review(tables, chat)
    if shown is None:
        return None
    review, names, texts = shown
    return reviews.move_lines(review, names, texts)


def review_chart(tables: Tables, chat: str) -> bytes | None:
    """The review's chart of ``chat``'s finished game (each side's chance to win after every
    move; Genial Spezial: the lowest colours) as PNG, for under the replay slider; ``None``
    as :func:`_shown_review`."""
    from bot.community import reviews

    shown = _shown_review(tables, chat)
    if shown is None:
        return None
    review, names, texts = shown
    if len(names) < review.players:
        return None
    picture = reviews.chart(review, names, texts)
    return None if picture is None else picture.data
