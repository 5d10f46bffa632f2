"""The engine's events and positions told in the table's language.

The bot never recomputes rules: what a move scored, which bonus it earned, whether a swap
is offered, all come from the events the engine returns. Nothing here ever reads a rack
other than the one handed in for its owner.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.core import games
from bot.core.games import Game
from bot.words.texts import Texts, square, squares
from engine.events import (
    BonusEarned,
    BonusLost,
    Event,
    GoldenPoint,
    Kept,
    Placed,
    Scored,
    SpezialPlaced,
    Swapped,
    TallBonus,
    TowerScored,
)
from engine.moves import Placement, SpezialPlacement
from engine.tiles import Colour


def points_text(
    texts: Texts,
    gained: dict[Colour, int],
    asked: dict[Colour, int],
    totals: dict[Colour, int] | None = None,
) -> str:
    """``+3 red, +1 blue``; a colour that hit the top of its track reads ``purple 18 (+4,
    capped)`` with ``totals`` (the side's scores afterwards) given."""
    parts = []
    for colour, points in asked.items():
        got = gained.get(colour, 0)
        name = texts.colour(colour.value)
        if got == points:
            parts.append(texts("turn.points", points=got, colour=name))
        elif totals is not None and colour in totals:
            parts.append(
                texts("turn.points_capped_short", points=got, colour=name, total=totals[colour])
            )
        else:
            parts.append(texts("turn.points_capped", points=got, colour=name, made=points))
    return ", ".join(parts) if parts else texts("turn.no_points")


def told_move(game: Game, placement: Placement | SpezialPlacement) -> str:
    """A placement as the chat is told it: a Genial tile's colours as squares, then its
    cells (``🟥🟩 A2 B3``); the letters are for typing, and read as other colours' initials
    in some languages. A Genial Spezial placement by its cells (its golden colour is told
    by name in its own line)."""
    if isinstance(placement, Placement):
        cells = games.format_move(game, placement).split()[1:]
        return " ".join([squares(placement.first.value + placement.second.value), *cells])
    return " ".join(games.format_move(game, placement).split()[:2])


def score_row(score: Mapping[Colour, int], colours: Sequence[Colour]) -> str:
    """``🟥3 🟩0 🟦1``: each colour's square and its points."""
    return " ".join(f"{square(c.value)}{score[c]}" for c in colours)


def side_names(game: Game, names: Sequence[str], texts: Texts) -> list[str]:
    """The name of each scoring side: a player, or a team ("Ada & Cy")."""
    if games.mode(game) != "team":
        return list(names)
    return [
        texts("team.name", first=names[a], second=names[b])
        for a, b in (games.seats_of_side(game, 0), games.seats_of_side(game, 1))
    ]


def narrate(events: Sequence[Event], game: Game, names: Sequence[str], texts: Texts) -> list[str]:
    """One line per placement (with what it scored, from the engine's ``Scored``), then its
    bonuses and notes, and one per swap decision."""
    lines: list[str] = []
    # The placement being told: its sentence so far, points gained and made, notes after it.
    head: str | None = None
    gained: dict[Colour, int] = {}
    made: dict[Colour, int] = {}
    totals: dict[Colour, int] = {}
    notes: list[str] = []

    towers = 0

    def flush() -> None:
        nonlocal head, towers
        if head is not None:
            lines.append(f"{head} {points_text(texts, gained, made, totals)}.")
        if towers:
            lines.append(texts("turn.towers", count=towers))
        lines.extend(notes)
        towers = 0
        head = None
        gained.clear()
        made.clear()
        totals.clear()
        notes.clear()

    for ev in events:
        if isinstance(ev, Placed | SpezialPlaced):
            flush()
            key = "turn.placed_bonus" if isinstance(ev, Placed) and ev.bonus else "turn.placed"
            move = told_move(game, ev.placement)
            head = texts(key, name=names[ev.seat], move=move)
        elif isinstance(ev, Scored):
            gained.update(ev.gained)
            made.update(ev.points)
            totals.update(ev.totals)
        elif isinstance(ev, BonusEarned):
            notes.append(texts("turn.genial", colour=texts.colour(ev.colour.value), mark=ev.mark))
        elif isinstance(ev, BonusLost):
            notes.append(texts("turn.bonus_lost", count=ev.count))
        elif isinstance(ev, Swapped):
            flush()
            lines.append(texts("turn.swapped", name=names[ev.seat]))
        elif isinstance(ev, Kept):
            flush()
            lines.append(texts("turn.kept", name=names[ev.seat]))
        elif isinstance(ev, TowerScored):
            towers += 1
        elif isinstance(ev, TallBonus):
            notes.append(texts("turn.tall_bonus", count=len(ev.towers)))
        elif isinstance(ev, GoldenPoint):
            notes.append(texts("turn.golden", colour=texts.colour(ev.colour.value)))
    flush()
    return lines


def scores_lines(game: Game, names: Sequence[str], texts: Texts) -> list[str]:
    """``Ada: R3 G0 B1 O0 Y0 P2 (lowest 0)`` per side."""
    out = []
    colours = games.score_colours(game)
    for side, name in enumerate(side_names(game, names, texts)):
        score = game.score(side)
        row = score_row(score, colours)
        out.append(texts("score.line", name=name, scores=row, lowest=min(score.values())))
    return out


def rated_ranking(game: Game, left: Collection[int] = ()) -> list[list[int]]:
    """The game's ranking (groups of sides sharing a place, best first) with the seats in
    ``left`` (a computer finished them for a person who left) sharing the last place after
    every person who stayed, as the ladder rates them; a team game keeps its sides' places
    (the team's persons who stayed share its place on the ladder)."""
    ranking = [list(group) for group in game.ranking() or []]
    if not left or games.mode(game) == "team":
        return ranking
    stayed = [[s for s in group if s not in left] for group in ranking]
    gone = [s for group in ranking for s in group if s in left]
    if not any(stayed):
        return ranking  # nobody stayed: the scores alone decide
    return [group for group in stayed if group] + ([gone] if gone else [])


def ranking_lines(
    game: Game, names: Sequence[str], texts: Texts, left: Collection[int] = ()
) -> list[str]:
    """The final places, best first, with each side's scores; a solo game's result.
    ``left``: the seats a computer finished for a person who left (or was expelled),
    placed after every person who stayed, as the ladder rates them
    (:mod:`bot.community.ratings`), so the result never names a leaver the winner."""
    ranking = rated_ranking(game, left)
    sides = side_names(game, names, texts)
    colours = games.score_colours(game)
    if len(sides) == 1:
        return [texts("result.solo", name=sides[0], lowest=min(game.score(0).values()))]
    out = []
    place = 1
    for group in ranking:
        for side in group:
            score = game.score(side)
            row = score_row(score, colours)
            out.append(texts("result.place", place=place, name=sides[side], scores=row))
        place += len(group)
    if ranking and len(ranking[0]) == 1:
        key = "result.team_wins" if games.mode(game) == "team" else "result.winner"
        out.append(texts(key, name=sides[ranking[0][0]]))
    elif ranking:
        out.append(texts("result.tie", names=", ".join(sides[s] for s in ranking[0])))
    return out


def end_reason(reason: str, game: Game, names: Sequence[str], texts: Texts) -> str:
    winner = getattr(game, "winner", None)
    name = side_names(game, names, texts)[winner] if winner is not None else ""
    return texts(f"end.{reason}", name=name)
