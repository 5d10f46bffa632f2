"""The expert's review of a finished game (issue 29): worked out as due work after the
game, stored beside the archived game, shown at once by ``/review``; the game's puzzle
positions (:mod:`bot.community.puzzles`) are looked for at the same time and stored with it.

When a game ends, :mod:`bot.play.moves` makes the table due at once and
:class:`bot.core.tables.Tables` asks the store for the game's review
(``Store.want_review``) when it archives the game.
:func:`due` (called by :meth:`bot.service.Service.due` for the due table, in the thread
that thinks the computer players' moves) claims the wanted review in the store and hands it
to the reviewer's process (:mod:`bot.community.reviewer`: a review is seconds of CPU, which
no other chat's commands and steps may wait for), which works it out (a pure function of the
record, :func:`engine.review.review_game`, which asks the expert from each mover's view
only); it is stored when it comes, only if no review is stored yet: a game is reviewed
once, and any process can show it afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from bot.community.reviewer import Reviewer
from bot.core.commands import Review
from bot.core.outbound import Attachment
from bot.core.tables import Context, Handler, Reject, Tables
from bot.store import StoreError
from bot.words.texts import Texts, squared
from engine.ai.chances import SAMPLES as CHANCE_SAMPLES
from engine.errors import EngineError
from engine.genial import GenialGame
from engine.notation import parse_placement
from engine.record import Record, new_game
from engine.review import GameReview, PlacementReview, find_puzzles, review_game, series

log = logging.getLogger(__name__)

#: The computer player that reviews Genial Spezial (tests may choose a quicker one).
LEVEL = "expert"
#: Play-outs per position for the chances to win (tests may choose fewer).
SAMPLES = CHANCE_SAMPLES
#: Seconds a process holds a review it works on before another may take it over.
LEASE = 300.0
#: What is stored for a record that does not replay: it is never tried again.
FAILED: dict[str, Any] = {"failed": True}
#: Whether reviews are worked out in the reviewer's process (1) or, 0, in the thread of
#: the table's due work (the tests that review with a quicker player patched into this
#: process). :func:`reviewer` makes a reviewer of more processes.
PROCESSES = 1

_reviewer = Reviewer(PROCESSES)


def work_out(record: dict[str, Any], level: str, samples: int) -> dict[str, Any]:
    """A finished game's review and puzzles from its record, as stored; :data:`FAILED` for
    a record that does not replay. Runs in the reviewer's process (or this one)."""
    try:
        game = Record.from_dict(record)
        review = review_game(game, level=level, samples=samples)
        # The game's puzzles are looked for now too: /puzzle then only reads them.
        return {**review.to_dict(), "puzzles": [asdict(p) for p in find_puzzles(game)]}
    except (EngineError, KeyError, TypeError, ValueError):
        return FAILED


def due(tables: Tables, chat: str, now: float) -> None:
    """Have the wanted review of ``chat``'s finished game worked out, if one waits and no
    other process works on it: handed to the reviewer's process (stored when it comes), or
    worked out now if :data:`PROCESSES` is 0."""
    row = tables.store.claim_review(chat, tables.owner, tables.clock(), LEASE)
    if row is None:
        return
    finished_at = float(row["finished_at"])

    def keep(data: dict[str, Any]) -> None:
        if data.get("failed"):
            log.warning("a finished game's record does not replay: no review")
        # Stored once: a process that lost its claim meanwhile finds a review there and
        # stores nothing. Nothing is said: /review answers at once from now on.
        tables.store.save_review(chat, finished_at, data)

    if PROCESSES <= 0:
        keep(work_out(row["record"], LEVEL, SAMPLES))  # a store's fault: the due work's
        return

    def kept(data: dict[str, Any]) -> None:
        try:
            keep(data)
        except StoreError as exc:  # its claim runs out: the next due work tries again
            log.warning("a review waits to be stored: %s", exc)

    _reviewer.submit((chat, finished_at), work_out, (row["record"], LEVEL, SAMPLES), kept)


def reviewer(processes: int | None = None) -> Reviewer:
    """The reviewer of this process's reviews; with ``processes``, a new one of that many
    processes (the old one's closed)."""
    global _reviewer
    if processes is not None:
        _reviewer.close()
        _reviewer = Reviewer(processes)
    return _reviewer


# --- /review -----------------------------------------------------------------------------


def latest(tables: Tables, chat: str) -> tuple[dict[str, Any], GameReview | None] | None:
    """The latest finished game of ``chat`` whose review was wanted, with its review
    (``None`` while it is being worked out); ``None`` if there is no such game."""
    rows = tables.store.reviews(chat)
    if not rows:
        return None
    game, data = rows[-1]
    if data is None or data.get("failed"):
        return game, None
    try:
        return game, GameReview.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return game, None


def seat_names(row: dict[str, Any], texts: Texts) -> list[str]:
    names = []
    for n, seat in enumerate(row.get("seats") or []):
        name = seat.get("name") if isinstance(seat, dict) else None
        names.append(str(name) if name else texts("seat.unknown", number=n + 1))
    return names


def side_names(review: GameReview, names: Sequence[str], texts: Texts) -> list[str]:
    """Who plays each side: a seat, or a team of seats 1 and 3, 2 and 4."""
    if review.mode == "team":
        return [texts("team.name", first=names[s], second=names[s + 2]) for s in (0, 1)]
    return list(names)


def points_text(gained: Sequence[int], colours: Sequence[str], texts: Texts) -> str:
    parts = [
        texts("review.points", points=g, colour=texts(f"colour.{c}"))
        for g, c in zip(gained, colours, strict=True)
        if g
    ]
    return ", ".join(parts) if parts else texts("review.no_points")


def summary(review: GameReview, names: Sequence[str], texts: Texts) -> list[str]:
    """Each person's accuracy, costliest placements and swap decisions, and where the game
    turned, as lines of text."""
    lines = [texts("review.title", moves=len(review.lowest))]
    for seat in review.seats:
        name = names[seat.seat]
        lines.append(
            texts(
                "review.seat",
                name=name,
                accuracy=seat.accuracy,
                count=seat.accurate,
                placements=seat.placements,
            )
        )
        for number in seat.costliest:
            lines += costly_lines(review.placement(number), texts)
        for number in seat.swaps_missed:
            swap = next(s for s in review.swaps if s.number == number)
            key = "review.swap_declined" if swap.best == "swap" else "review.swap_taken"
            lines.append(texts(key, number=number + 1))
    if review.turning_point is None:
        lines.append(texts("review.no_turning"))
    elif review.chances is not None and review.turned_side is not None:
        lines.append(turning_line(review, names, texts))
    else:
        number = review.turning_point
        turned = next((p for p in review.placements if p.number == number), None)
        if turned is None:  # a swap decision turned it
            lines.append(texts("review.turning", number=number + 1))
        else:
            name = names[turned.seat]
            lines.append(
                texts(
                    "review.turning_move",
                    number=number + 1,
                    name=name,
                    played=squared(turned.played),
                )
            )
    lines.append(texts("review.accuracy" if review.chances is None else "review.accuracy_chance"))
    return lines


def costly_lines(p: PlacementReview, texts: Texts) -> list[str]:
    """A costly placement: what it cost (the drop in the chance to win, or without chances
    the points in the lowest-colour sense), and the lowest colour only where the two
    placements leave it different."""
    low_played, low_best = min(p.after_played), min(p.after_best)
    drop = p.drop
    if drop is not None:
        line = texts(
            "review.costly_chance",
            number=p.number + 1,
            played=squared(p.played),
            best=squared(p.best),
            count=drop,
        )
        if low_played == low_best:
            return [line]
        return [line, texts("review.costly_lowest", low_played=low_played, low_best=low_best)]
    key = "review.costly" if low_played != low_best else "review.costly_level"
    return [
        texts(
            key,
            number=p.number + 1,
            played=squared(p.played),
            best=squared(p.best),
            count=p.cost,
            low_played=low_played,
            low_best=low_best,
        )
    ]


def turning_line(review: GameReview, names: Sequence[str], texts: Texts) -> str:
    """Where the game turned: the move after which a side's chance to win fell most, whose
    chance it was, and who played that move."""
    assert review.chances is not None and review.turning_point is not None
    number, side = review.turning_point, review.turned_side
    assert side is not None
    before = series(review.chances, side)[number]
    after = series(review.chances, side)[number + 1]
    who = side_names(review, names, texts)[side]
    values = {"number": number + 1, "name": who, "before": round(before), "after": round(after)}
    turned = next((p for p in review.placements if p.number == number), None)
    if turned is None:  # a swap decision
        return texts("review.turning_chance", **values)
    return texts(
        "review.turning_chance_move", mover=names[turned.seat], played=squared(turned.played),
        **values,
    )  # fmt: skip


def move_lines(review: GameReview, names: Sequence[str], texts: Texts) -> list[str]:
    """One line per move of the game: a placement's points and the expert's best with its
    points (or the agreement), a swap decision against the expert's."""
    lines = [""] * len(review.lowest)
    for p in review.placements:
        played = points_text(p.gained_played, review.colours, texts)
        if p.played == p.best:
            lines[p.number] = texts(
                "review.move_best",
                name=names[p.seat],
                played=squared(p.played),
                played_points=played,
            )
            continue
        drop = p.drop
        if drop is not None:
            lines[p.number] = texts(
                "review.move_chance" if drop else "review.move_chance_even",
                name=names[p.seat],
                played=squared(p.played),
                played_points=played,
                best=squared(p.best),
                best_points=points_text(p.gained_best, review.colours, texts),
                count=drop,
            )
            continue
        lines[p.number] = texts(
            "review.move" if p.cost else "review.move_even",
            name=names[p.seat],
            played=squared(p.played),
            played_points=played,
            best=squared(p.best),
            best_points=points_text(p.gained_best, review.colours, texts),
            count=p.cost,
        )
    for s in review.swaps:
        key = "review.swap_agreed" if s.agreed else "review.swap_differs"
        lines[s.number] = texts(
            key, name=names[s.seat], played=squared(s.played), best=squared(s.best)
        )
    return lines


def chart(review: GameReview, names: Sequence[str], texts: Texts) -> Attachment | None:
    """The chances chart (Genial), or the lowest-colour chart (Genial Spezial)."""
    from render.review import chances_chart_png, lowest_chart_png

    if not review.lowest:
        return None
    if review.chances is not None:
        sides = len(review.chances[0])
        lines_of = [series(review.chances, side) for side in range(sides)]
        turned = None if review.turning_point is None else review.turning_point + 1
        png = chances_chart_png(
            lines_of, side_names(review, names, texts)[:sides], texts("review.chances_title"),
            review.mode == "team", turned,
        )  # fmt: skip
        return Attachment("review-chances.png", png)
    sides = len(review.lowest[0])
    lines = [[row[s] for row in review.lowest] for s in range(sides)]
    cap = 36 if review.mode in ("team", "solo") else 18
    if review.game == "spezial":
        cap = max(18, *(max(line) for line in lines))
    who = side_names(review, names, texts)[:sides]
    png = lowest_chart_png(lines, who, cap, texts("review.chart_title"))
    return Attachment("review-lowest.png", png)


def board(
    record: Record, placement: PlacementReview, names: Sequence[str], texts: Texts
) -> Attachment | None:
    """The board before ``placement`` with it and the expert's best placement outlined
    (Genial; a spectator's view: no rack is drawn)."""
    from render.review import compared_board_png

    if record.game != "genial":
        return None
    game = new_game(record)
    assert isinstance(game, GenialGame)
    for text in record.moves[: placement.number]:
        game.play_text(text)
    played = parse_placement(placement.played, game.area)
    best = parse_placement(placement.best, game.area)
    labels = (
        texts("review.played_label", move=placement.played),
        texts("review.best_label", move=placement.best),
    )
    png = compared_board_png(game.view(None), played, best, labels, names)
    return Attachment(f"review-{placement.number + 1:03d}.png", png)


def costliest_for(review: GameReview, seat: int | None) -> list[PlacementReview]:
    """The three placements shown as boards: the asker's own costliest, or the game's."""
    if seat is not None:
        own = review.seats[seat].costliest
        return [review.placement(n) for n in own]
    costly = sorted((p for p in review.placements if p.loss), key=lambda p: (-p.loss, p.number))
    return costly[:3]


def show(tables: Tables, ctx: Context, cmd: Review) -> None:
    found = latest(tables, ctx.chat.id)
    if found is None:
        raise Reject("review.none")
    row, review = found
    if review is None:
        raise Reject("review.pending")
    texts = ctx.texts
    names = seat_names(row, texts)
    if len(names) < review.players:
        raise Reject("review.none")
    picture = chart(review, names, texts) if ctx.pictures else None
    ctx.out.append(ctx.scene.chat_message(summary(review, names, texts), attachment=picture))
    if not ctx.pictures:
        return
    seat = None
    if ctx.user is not None:
        mine = [n for n, s in enumerate(row.get("seats") or []) if s.get("user") == ctx.user.id]
        seat = mine[0] if mine else None
    record = Record.from_dict(row["record"])
    for p in costliest_for(review, seat):
        caption = texts(
            "review.board",
            name=names[p.seat],
            number=p.number + 1,
            played=squared(p.played),
            played_points=points_text(p.gained_played, review.colours, texts),
            best=squared(p.best),
            best_points=points_text(p.gained_best, review.colours, texts),
        )
        ctx.out.append(ctx.scene.chat_message([caption], attachment=board(record, p, names, texts)))


HANDLERS: dict[type, Handler] = {Review: show}
