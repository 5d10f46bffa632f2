"""What is shown of a tournament (issue 30): what it is in a few words, its standings and
its teams' scores as lines, as a picture and as its web page, with the tables of the round
being played.

The standings are :mod:`bot.tournaments.pairing`'s (plain values).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from bot.community import ladders
from bot.core import images
from bot.core.outbound import Attachment, Outbound
from bot.core.tables import Tables
from bot.tournaments import pairing, places
from bot.tournaments.cup import RUNNING, Cup, Round, _load
from bot.words.texts import Texts


def describe(cup: Cup, texts: Texts) -> str:
    """What the tournament is, in a few words: system, rounds, table size, round time."""
    game = texts(
        "game.spezial" if cup.game == "spezial" else "game.team" if cup.team else "game.genial"
    )
    time = texts.duration(cup.round_time)
    if cup.system == "robin":
        return texts("tournament.describe_robin", size=cup.size, time=time, game=game)
    rounds = texts("tournament.rounds", count=cup.total_rounds)
    return texts("tournament.describe", rounds=rounds, size=cup.size, time=time, game=game)


def _ratings(tables: Tables, cup: Cup) -> dict[str, int]:
    out = {}
    for e in cup.entrants:
        standing = ladders.of(tables).ladder.standing(e.user, cup.game)
        out[e.user] = standing.points if standing is not None else 0
    return out


def standings(tables: Tables, cup: Cup) -> list[pairing.Line]:
    results, byes = cup.results()
    return pairing.standings([e.user for e in cup.entrants], results, byes, _ratings(tables, cup))


def team_scores(cup: Cup, lines: list[pairing.Line]) -> list[tuple[str, Fraction]]:
    """Each team's score in a team battle: the points of its best players, as many as the
    smallest team has, so a big team does not win by numbers alone; best team first."""
    if not cup.teams:
        return []
    by_team: dict[str, list[Fraction]] = {chat: [] for chat in cup.teams}
    for line in lines:
        e = cup.entrant(line.player)
        if e is not None and e.chat in by_team:
            by_team[e.chat].append(line.points)
    counted = min((len(v) for v in by_team.values() if v), default=0)
    scores = [
        (chat, sum(sorted(v, reverse=True)[:counted], Fraction(0))) for chat, v in by_team.items()
    ]
    return sorted(scores, key=lambda s: -s[1])


def standings_lines(tables: Tables, cup: Cup, texts: Texts, chat: str) -> list[str]:
    """The standings as text: the head, one line per player, the teams' scores, and the
    tables of the round being played."""
    lines = [texts("tournament.head", title=cup.title, id=cup.id, what=describe(cup, texts))]
    status = texts(f"tournament.status_{cup.status}")
    if cup.status == RUNNING and cup.played:
        status = texts("tournament.round_of", number=cup.played[-1].number, count=cup.total_rounds)
    lines.append(status)
    table = standings(tables, cup)
    for line in table:
        e = cup.entrant(line.player)
        mark = texts("tournament.out_mark") if e is not None and e.out else ""
        lines.append(
            texts(
                "tournament.line",
                rank=line.rank,
                name=cup.name_of(line.player) + mark,
                count=line.points,
                buchholz=texts.number(line.buchholz),
                sb=texts.number(line.sonneborn),
            )
        )
    if not table:
        lines.append(texts("tournament.nobody"))
    for team, score in team_scores(cup, table):
        key = "tournament.team_score_here" if team == chat else "tournament.team_score"
        lines.append(texts(key, team=cup.team_names.get(team, team), count=score))
    if cup.status == RUNNING and cup.played:
        lines += round_lines(cup, cup.played[-1], texts)
    return lines


def round_lines(cup: Cup, r: Round, texts: Texts) -> list[str]:
    """The tables of round ``r``: its byes, then who plays whom at each table (one line a
    table, last, so a platform can add a link to each: :func:`table_places`)."""
    lines = [texts("tournament.round_tables", number=r.number)]
    lines += [texts("tournament.bye", name=cup.name_of(b)) for b in r.byes]
    for n, p in enumerate(r.pairings, 1):
        names = " – ".join(cup.name_of(u) for u in p.players)
        if p.places is not None:
            done = " · ".join(
                f"{cup.name_of(u)} {texts('tournament.place', place=pl)}"
                for u, pl in zip(p.players, p.places, strict=True)
            )
            lines.append(texts("tournament.table_done", number=n, players=names, result=done))
        else:
            lines.append(texts("tournament.table_line", number=n, players=names))
    return lines


def table_places(cup: Cup, r: Round, chat: str) -> tuple[str, ...]:
    """Where each table of round ``r`` is seen from ``chat`` (its topic or thread, or the
    table itself where it is played in a community's chat among others), in the order of
    :func:`round_lines`' table lines: a platform links each line to the latest message
    there (as ``/games`` does)."""
    where = []
    for p in r.pairings:
        ours = [
            place
            for user, place in p.seen_at.items()
            if (e := cup.entrant(user)) is not None and e.chat == chat
        ]
        place = ours[0] if ours else next(iter(p.seen_at.values()), chat)
        # A community's own chat holds every table played there: the table itself names
        # its latest message there (noted under it as it is posted).
        where.append(p.chat if place in cup.chats else place)
    return tuple(where)


def standings_message(
    tables: Tables, cup: Cup, chat: str, texts: Texts, pictures: bool
) -> Outbound:
    lines = standings_lines(tables, cup, texts, chat)
    picture = standings_picture(tables, cup, texts) if pictures else None
    links: tuple[str, ...] = ()
    if cup.status == RUNNING and cup.played:  # the round's tables are the last lines
        links = table_places(cup, cup.played[-1], chat)
    return Outbound(
        chat, "\n".join(lines), attachment=picture, tables=links, about=places.PREFIX + cup.id
    )


def standings_picture(tables: Tables, cup: Cup, texts: Texts) -> Attachment | None:
    """The standings as a picture: ranks, names, points and tie-breaks, teams' scores,
    and the tables of the round being played."""
    table = standings(tables, cup)
    rows = picture_rows(cup, table, texts)
    head = (
        texts("tournament.col_rank"),
        texts("tournament.col_name"),
        texts("tournament.col_points"),
        texts("tournament.col_buchholz"),
        texts("tournament.col_sb"),
    )
    lines = [
        texts("tournament.team_score", team=cup.team_names.get(t, t), count=s)
        for t, s in team_scores(cup, table)
    ]
    if cup.status == RUNNING and cup.played:
        lines += round_lines(cup, cup.played[-1], texts)
    return images.standings(cup.title, describe(cup, texts), head, rows, lines)


def picture_rows(cup: Cup, table: list[pairing.Line], texts: Texts) -> list[tuple[str, ...]]:
    """The standings picture's rows: rank, name (marked if they left, as in the text),
    points and tie-breaks. Before any game or bye counts there is no rank (the picture
    marks rank 1 with a medal: nobody has won anything yet)."""
    results, byes = cup.results()
    begun = bool(results or byes)
    rows: list[tuple[str, ...]] = []
    for x in table:
        e = cup.entrant(x.player)
        mark = texts("tournament.out_mark") if e is not None and e.out else ""
        rows.append(
            (
                str(x.rank) if begun else "–",
                cup.name_of(x.player) + mark,
                texts.number(x.points),
                texts.number(x.buchholz),
                texts.number(x.sonneborn),
            )
        )
    return rows


def page_look(tables: Tables, tid: str) -> dict[str, Any] | None:
    """Tournament ``tid`` as its web page shows it, in plain values and its language: the
    head, the standings (rank, name, points, tie-breaks, whether they left), the teams'
    scores and the tables of the round being played (each with its table's chat, for a
    link to its page); ``None`` for no such tournament."""
    found = _load(tables, tid)
    if found is None:
        return None
    _, cup = found
    texts = Texts(cup.lang)
    status = texts(f"tournament.status_{cup.status}")
    if cup.status == RUNNING and cup.played:
        status = texts("tournament.round_of", number=cup.played[-1].number, count=cup.total_rounds)
    table = standings(tables, cup)
    rows = [
        {
            "rank": x.rank,
            "name": cup.name_of(x.player),
            "points": texts.number(x.points),
            "buchholz": texts.number(x.buchholz),
            "sb": texts.number(x.sonneborn),
            "out": bool((e := cup.entrant(x.player)) and e.out),
        }
        for x in table
    ]
    teams = [
        {"name": cup.team_names.get(t, t), "points": texts.number(s)}
        for t, s in team_scores(cup, table)
    ]
    current: dict[str, Any] | None = None
    if cup.status == RUNNING and cup.played:
        r = cup.played[-1]
        lines = round_lines(cup, r, texts)
        current = {
            "title": lines[0],
            "byes": lines[1 : 1 + len(r.byes)],
            "tables": [
                {"text": text, "chat": p.chat, "done": p.places is not None}
                for text, p in zip(lines[1 + len(r.byes) :], r.pairings, strict=True)
            ],
        }
    heads = ("col_rank", "col_name", "col_points", "col_buchholz", "col_sb")
    return {
        "lang": cup.lang,
        "title": cup.title,
        "head": texts("tournament.head", title=cup.title, id=cup.id, what=describe(cup, texts)),
        "status": status,
        "columns": [texts(f"tournament.{h}") for h in heads],
        "rows": rows,
        "nobody": texts("tournament.nobody"),
        "out_mark": texts("tournament.out_mark"),
        "teams": teams,
        "round": current,
        "watch": texts("web.open"),
    }
