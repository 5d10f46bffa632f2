"""The puzzle (issue 29): a position of a finished game where one placement scores at least
4 more in the mover's lowest colour than any other idea, shown as a board and the mover's
tiles; answered privately, solved with ``/puzzle answer``.

Puzzles come from the finished games' reviews (:mod:`bot.community.reviews` looks for them while it
reviews a game, :func:`engine.review.find_puzzles`), so choosing one reads the store and
thinks nothing. Only finished games are reviewed, so a puzzle never comes from a game that
still runs anywhere; and a puzzle shows the board, the scores and the mover's own tiles,
never another rack or the bag. Names stay out of it: a puzzle may come from another chat.
"""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

from bot.core import games
from bot.core.commands import Puzzle, PuzzleDaily
from bot.core.outbound import Attachment, Outbound
from bot.core.table import PLAYING
from bot.core.tables import Context, Handler, Reject, Tables, need_manager, need_table
from bot.store import DamagedTable
from bot.store.base import Puzzled
from bot.words.texts import Texts, squared
from engine.errors import EngineError
from engine.genial import GenialGame
from engine.moves import Placement
from engine.record import Record, new_game
from engine.review import PUZZLE_GAP, lowest_points, placement_points
from engine.review import Puzzle as Found


def candidates(tables: Tables, chat: str) -> list[dict[str, Any]]:
    """Puzzles not yet posted at ``chat``, from its own finished games (newest first), or
    from every chat's when its own have none; each with its game's record."""
    posted = {
        (p.data.get("from"), p.data.get("finished_at"), p.data.get("number"))
        for p in tables.store.puzzles(chat)
    }
    for scope in (chat, None):
        found = []
        for row, data in reversed(tables.store.reviews(scope)):
            if not data or row.get("record", {}).get("game") != "genial":
                continue
            ranked = sorted(data.get("puzzles") or [], key=lambda p: (-p["gap"], p["number"]))
            for p in ranked:
                key = (row["chat"], row["finished_at"], p["number"])
                if key not in posted:
                    found.append(
                        {
                            **p,
                            "from": row["chat"],
                            "finished_at": row["finished_at"],
                            "record": row["record"],
                        }
                    )
        if found:
            return found
    return []


def none_why(tables: Tables, chat: str) -> Reject:
    """Why there is no puzzle to show: no game reviewed yet, the reviewed games had no
    puzzle position, or their puzzles were all shown here."""
    reviewed = [data for scope in (chat, None) for _, data in tables.store.reviews(scope) if data]
    if not reviewed:
        return Reject("puzzle.none")
    if any(data.get("puzzles") for data in reviewed):
        return Reject("puzzle.none_new")
    return Reject("puzzle.none_found", gap=PUZZLE_GAP)


def position(data: dict[str, Any]) -> GenialGame:
    """The game at the puzzle's position: the record's moves before it replayed."""
    record = Record.from_dict(data["record"])
    game = new_game(record)
    assert isinstance(game, GenialGame)
    for text in record.moves[: int(data["number"])]:
        game.play_text(text)
    return game


def found_of(data: dict[str, Any]) -> Found:
    return Found(
        number=int(data["number"]),
        seat=int(data["seat"]),
        lowest=tuple(data["lowest"]),
        answer=str(data["answer"]),
        points=int(data["points"]),
        gap=int(data["gap"]),
    )


def _colours(data: dict[str, Any], texts: Texts) -> str:
    return ", ".join(texts(f"colour.{c}") for c in data["lowest"])


def shown(tables: Tables, ctx: Context, puzzle: Puzzled) -> None:
    """The puzzle: the board (no rack on it) and, in words, the mover's own tiles."""
    game = position(puzzle.data)
    seat = int(puzzle.data["seat"])
    view = game.view(seat)
    assert view.rack is not None
    side = game.side_of(seat)
    texts = ctx.texts
    text = texts(
        "puzzle.show",
        number=puzzle.id,
        colours=_colours(puzzle.data, texts),
        points=min(game.scores[side]),
        rack=games.rack_text(view.rack),
    )
    picture = None
    if ctx.pictures:
        import render

        names = [texts("seat.unknown", number=n + 1) for n in range(game.players)]
        png = render.board_png(game.view(None), names=names)
        picture = Attachment(f"puzzle-{puzzle.id}.png", png)
    ctx.out.append(ctx.scene.chat_message([text], attachment=picture))


def solution(tables: Tables, ctx: Context, puzzle: Puzzled) -> None:
    """Close the puzzle and tell its answer and who found it."""
    tables.store.close_puzzle(puzzle.id)
    found = [name for _, name, solved in tables.store.puzzle_answers(puzzle.id) if solved]
    texts = ctx.texts
    # Every legal placement of the position is compared, those sharing a cell with the
    # answer too; placements scoring as much as the answer are right answers and said so.
    points = int(puzzle.data["points"])
    scores = placement_points(position(puzzle.data))
    same = sum(1 for text, p in scores.items() if p == points and text != puzzle.data["answer"])
    params: dict[str, object] = {
        "number": puzzle.id,
        "answer": squared(str(puzzle.data["answer"])),
        "points": points,
        "colours": _colours(puzzle.data, texts),
        "others": max((p for p in scores.values() if p < points), default=0),
    }
    lines = [
        texts("puzzle.solution_shared", count=same, **params)
        if same
        else texts("puzzle.solution", **params),
        texts("puzzle.found", names=", ".join(found)) if found else texts("puzzle.nobody"),
    ]
    ctx.out.append(ctx.scene.chat_message(lines))


def open_puzzle(tables: Tables, chat: str) -> Puzzled | None:
    posted = tables.store.puzzles(chat)
    return posted[-1] if posted and not posted[-1].closed else None


def answer(tables: Tables, ctx: Context, cmd: Puzzle) -> None:
    """An answer, told privately (a wrong one too: nothing of it reaches the chat)."""
    assert ctx.user is not None and cmd.move is not None
    puzzle = (
        tables.store.puzzle(cmd.number)
        if cmd.number is not None
        else open_puzzle(tables, ctx.chat.id)
    )
    if puzzle is None:
        raise Reject("puzzle.no_such")
    texts = ctx.texts

    def tell(key: str) -> None:
        assert ctx.user is not None
        text = texts(key, number=puzzle.id)
        ctx.out.append(Outbound(ctx.chat.id, text, "info", user=ctx.user.id))

    if puzzle.closed:
        tell("puzzle.closed")
        return
    game = position(puzzle.data)
    try:
        move = game.parse(cmd.move, found_of(puzzle.data).seat)  # a slot of the tiles shown
        if isinstance(move, Placement):
            game.check(move)
    except EngineError:
        move = None
    if not isinstance(move, Placement):
        tell("puzzle.illegal")
        return
    solved = lowest_points(game, move) == found_of(puzzle.data).points
    tables.store.answer_puzzle(puzzle.id, ctx.user.id, ctx.user.name, solved, ctx.now)
    tell("puzzle.right" if solved else "puzzle.wrong")


def puzzle(tables: Tables, ctx: Context, cmd: Puzzle) -> None:
    if cmd.move is not None:
        answer(tables, ctx, cmd)
        return
    current = open_puzzle(tables, ctx.chat.id)
    if cmd.solution:
        if current is None:
            raise Reject("puzzle.none_open")
        solution(tables, ctx, current)
        return
    if current is None:
        choices = candidates(tables, ctx.chat.id)
        if not choices:
            raise none_why(tables, ctx.chat.id)
        data = choices[0]
        current = Puzzled(
            tables.store.post_puzzle(ctx.chat.id, ctx.now, data), ctx.chat.id, ctx.now, data, False
        )
    shown(tables, ctx, current)


def solved_lines(tables: Tables, player: str, texts: Texts) -> list[str]:
    """The line of ``/stats`` that counts a player's solved puzzles (none: no line)."""
    count = tables.store.puzzles_solved(player)
    return [texts("puzzle.stats", count=count)] if count else []


# --- the daily puzzle -----------------------------------------------------------------


def _zone(at: str) -> tuple[int, int, zoneinfo.ZoneInfo]:
    """Hour, minute and time zone of an ``Options.puzzle`` value.

    Raises:
        ValueError: for a value that is not one (a zone unknown here included).
    """
    clock, _, zone = at.partition(" ")
    hour, minute = (int(x) for x in clock.split(":"))
    try:
        return hour, minute, zoneinfo.ZoneInfo(zone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(str(exc)) from None


def last_time(at: str, now: float) -> float:
    """The latest daily puzzle time at or before ``now`` (in the option's time zone, so a
    change to summer time keeps the hour on the clock)."""
    hour, minute, zone = _zone(at)
    local = datetime.datetime.fromtimestamp(now, zone)
    today = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if today.timestamp() > now:
        today = (local - datetime.timedelta(days=1)).replace(
            hour=hour, minute=minute, second=0, microsecond=0
        )
    return today.timestamp()


def next_time(at: str, now: float) -> float:
    """The first daily puzzle time after ``now``."""
    hour, minute, zone = _zone(at)
    local = datetime.datetime.fromtimestamp(last_time(at, now), zone) + datetime.timedelta(days=1)
    return local.replace(hour=hour, minute=minute).timestamp()


def daily(tables: Tables, ctx: Context, cmd: PuzzleDaily) -> None:
    t = need_table(ctx)
    need_manager(ctx)
    if not cmd.at:
        t.options.puzzle = ""
        ctx.out.append(ctx.scene.chat_message([ctx.texts("puzzle.daily_off")]))
        return
    try:
        when = next_time(cmd.at, ctx.now)
    except ValueError:
        raise Reject("option.bad_puzzle") from None
    t.options.puzzle = cmd.at
    if t.status != PLAYING and (t.due_at is None or t.due_at > when):
        t.due_at = when
    clock, _, zone = cmd.at.partition(" ")
    ctx.out.append(ctx.scene.chat_message([ctx.texts("puzzle.daily_on", time=clock, zone=zone)]))


def due(tables: Tables, chat: str, now: float) -> list[Outbound]:
    """The daily puzzle of ``chat`` if its time has come since the last one (the previous
    one's solution first), and when to look next; said through the stored outbox."""
    if tables.puzzle_times.pop(chat, None) == "":
        return []  # the clock just loaded the table: it has no daily puzzle
    with tables.locks.hold(chat):
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            return []
        if t is None or not t.options.puzzle:
            return []
        try:
            last, upcoming = last_time(t.options.puzzle, now), next_time(t.options.puzzle, now)
        except ValueError:
            return []
        ctx = tables.clock_context(t, now)
        posted = tables.store.puzzles(chat)
        if not posted or posted[-1].posted_at < last:
            if posted and not posted[-1].closed:
                solution(tables, ctx, posted[-1])
            choices = candidates(tables, chat)
            if choices:
                data = choices[0]
                shown(tables, ctx, Puzzled(tables.store.post_puzzle(chat, now, data), chat, now,
                                           data, False))  # fmt: skip
        due_at = t.due_at
        if t.status != PLAYING and (t.due_at is None or t.due_at <= now or t.due_at > upcoming):
            t.due_at = upcoming
        if not ctx.out and t.due_at == due_at:
            return []
        if not tables.save(ctx):
            return []
        return ctx.out


HANDLERS: dict[type, Handler] = {Puzzle: puzzle, PuzzleDaily: daily}
