"""Tournaments by message (issue 30): ``/tournament new``, ``join``, ``leave``, ``start``,
``cancel``, ``invite`` and ``team``, the standings, and the tournament's due work: the start
on time, each round's pairings and tables, the round's deadline and the end.

A tournament is a row of its own in the store with its own version (like a table), played
from chats: its home, where it was made, and for a team battle each team's chat. Every round
is paired once, by whichever process claimed the tournament's due work (as a table's is
claimed), and its pairings are said in the same transaction that stores them: of two
processes, the second finds the round paired and pairs nothing. Each pairing is a table of
its own (:mod:`bot.tournaments.places`), started at once with its players seated; the round's
deadline is every table's clock: a game not over by then is played out by the computer in its
players' names, as a turn that times out is, so a round always ends.

The pairings and standings are :mod:`bot.tournaments.pairing`'s (plain values); what is said comes
from the ``[tournament]`` texts.
"""

from __future__ import annotations

import contextlib
import json
import logging
import string
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Any

from bot.community import ladders, ratings
from bot.core import games, images, letters
from bot.core.commands import Command, Start, TournamentSpec
from bot.core.commands import Tournament as TournamentCommand
from bot.core.durations import format_duration
from bot.core.outbound import Attachment, Button, Chat, Outbound, Stored, User
from bot.core.table import CLOSED, LOBBY, PLAYING, Options, Seat, Table
from bot.core.tables import LETTER_LEASE, Context, Handler, Reject, Tables
from bot.play import clock, lobby
from bot.play.moves import after_moves
from bot.store import StaleTable, StoreBusy, StoreDown
from bot.tournaments import pairing, places
from bot.words.texts import Texts, shown_name
from engine.events import Event

log = logging.getLogger(__name__)

OPEN = "open"
RUNNING = "running"
FINISHED = "finished"
CANCELLED = "cancelled"
#: Seconds a process holds its claim on a tournament's due work (as on a table's).
LEASE = 60.0
#: Steps of one tournament's due work at one look (opening, results, the next round).
MAX_STEPS = 20
#: Swiss rounds when the host names no number.
DEFAULT_ROUNDS = 5
#: Letters of tournament ids and invite codes: no 0/o or 1/l to misread.
_ALPHABET = "".join(c for c in string.ascii_lowercase + string.digits if c not in "o0l1")


@dataclass
class Entrant:
    """A player of a tournament: their id, name, the chat they joined from (their team in
    a team battle), and whether they left (their remaining games are lost)."""

    user: str
    name: str
    chat: str
    out: bool = False


@dataclass
class Pairing:
    """One table of a round: its players in seat order, its table's chat id, where each
    player sees it, and once over each player's place (1 first) and how it ended
    (``played``, ``deadline`` or ``forfeit``)."""

    players: list[str]
    chat: str
    places: list[int] | None = None
    ended: str = ""
    forfeits: list[str] = field(default_factory=list)
    seen_at: dict[str, str] = field(default_factory=dict)
    opened: bool = False


@dataclass
class Round:
    number: int
    deadline: float
    pairings: list[Pairing]
    byes: list[str]


@dataclass
class Cup:
    """A tournament as stored (its ``data``): what the host set up, who plays, the rounds."""

    id: str
    home: str
    title: str
    host: str
    host_name: str
    system: str
    rounds: int
    size: int
    round_time: int
    game: str
    team: bool
    clock: int
    lang: str
    created: float
    starts_at: float | None = None
    status: str = OPEN
    entrants: list[Entrant] = field(default_factory=list)
    played: list[Round] = field(default_factory=list)
    teams: list[str] = field(default_factory=list)
    team_names: dict[str, str] = field(default_factory=dict)
    code: str = ""
    due_at: float | None = None
    finished_at: float | None = None
    #: At the end: each player's final rank and the winners' names, for ``/stats``
    #: (:func:`bot.tournaments.places.finished_lines` reads them without the standings' work).
    final: dict[str, int] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cup:
        data = dict(data)
        data["entrants"] = [Entrant(**e) for e in data.get("entrants", [])]
        data["played"] = [
            Round(
                number=r["number"],
                deadline=r["deadline"],
                pairings=[Pairing(**p) for p in r["pairings"]],
                byes=list(r["byes"]),
            )
            for r in data.get("played", [])
        ]
        return cls(**data)

    def entrant(self, user: str) -> Entrant | None:
        return next((e for e in self.entrants if e.user == user), None)

    @property
    def chats(self) -> list[str]:
        """Where the tournament is followed: its home and its teams."""
        return list(dict.fromkeys([self.home, *self.teams]))

    @property
    def total_rounds(self) -> int:
        if self.system == "robin":
            n = len(self.entrants)
            return n if n % 2 else n - 1
        return self.rounds or DEFAULT_ROUNDS

    def results(self) -> tuple[list[pairing.Result], list[str]]:
        """Every finished table and every bye so far."""
        results = [
            pairing.Result(tuple(p.players), tuple(p.places))
            for r in self.played
            for p in r.pairings
            if p.places is not None and len(p.players) > 1
        ]
        return results, [b for r in self.played for b in r.byes]

    def name_of(self, user: str) -> str:
        e = self.entrant(user)
        return e.name if e else user


# --- the commands ------------------------------------------------------------------------


def tournament(tables: Tables, ctx: Context, cmd: TournamentCommand) -> None:
    """``/tournament`` and its actions. A tournament keeps its own version: each action
    is loaded, changed and saved with what it says, tried again if another process
    changed the tournament meanwhile."""
    assert ctx.user is not None
    if cmd.action == "new":
        assert cmd.spec is not None
        _new(tables, ctx, cmd.spec)
    elif cmd.action == "team":
        _team(tables, ctx, cmd.target)
    elif cmd.action == "show":
        _show(tables, ctx, cmd.target)
    else:
        for _ in range(3):
            found = _find(tables, ctx, cmd.target, cmd.action)
            version, cup = found
            outs = _ACTIONS[cmd.action](tables, ctx, cup)
            if _save(tables, ctx, cup, version, outs):
                if cup.status == RUNNING and cmd.action in ("start", "leave"):
                    ctx.out += work(tables, cup.id, ctx.now)
                return
        raise Reject("error.busy")


def _find(tables: Tables, ctx: Context, target: str, action: str) -> tuple[int, Cup]:
    """The tournament a command is about: the one named, else the only one of this chat
    that the action fits (an open one to join, a running one to leave...)."""
    if target:
        found = _load(tables, target)
        if found is None:
            raise Reject("tournament.no_such", id=target)
        return found
    fits = {
        "join": (OPEN,),
        "start": (OPEN,),
        "invite": (OPEN,),
        "leave": (OPEN, RUNNING),
        "cancel": (OPEN, RUNNING),
    }[action]
    cups = [c for c in _of_chat(tables, ctx.chat.id) if c[1].status in fits]
    if action == "leave":
        assert ctx.user is not None
        cups = [c for c in cups if c[1].entrant(ctx.user.id)] or cups
    if not cups:
        raise Reject("tournament.none_here")
    if len(cups) > 1:
        ids = ", ".join(c[1].id for c in cups)
        raise Reject("tournament.which", ids=ids, action=action)
    return cups[0]


def _load(tables: Tables, tid: str) -> tuple[int, Cup] | None:
    found = tables.store.load_tournament(tid)
    if found is None:
        return None
    return found[0], Cup.from_dict(found[1])


def _of_chat(tables: Tables, chat: str) -> list[tuple[int, Cup]]:
    out = []
    for tid in tables.store.tournaments_of(chat):
        found = _load(tables, tid)
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda c: c[1].created)


def _save(
    tables: Tables, ctx: Context, cup: Cup, version: int | None, outs: list[Outbound]
) -> bool:
    """Store the tournament over ``version`` with what it says; False if it changed."""
    if not _store(tables, cup, version, outs, ctx.now):
        return False
    ctx.out += outs
    return True


def _store(tables: Tables, cup: Cup, version: int | None, outs: list[Outbound], now: float) -> bool:
    sent = [letters.letter(out) for out in outs]
    try:
        ids = tables.store.save_tournament(
            places.saved(cup.to_dict(), (version or 0) + 1),
            version,
            sent,
            owner=tables.owner,
            now=tables.clock(),
            lease=LETTER_LEASE,
        )
    except StaleTable:
        return False
    outs[:] = tables.here(
        [
            _stored(out, id_, letters.key_of(kept), now)
            for out, kept, id_ in zip(outs, sent, ids, strict=True)
        ]
    )
    return True


def _stored(out: Outbound, id_: int, key: int, now: float) -> Outbound:
    return replace(out, stored=Stored(id_, key, now))


def _code(tables: Tables, length: int) -> str:
    return "".join(tables.rng.choice(_ALPHABET) for _ in range(length))


def _new(tables: Tables, ctx: Context, spec: TournamentSpec) -> None:
    assert ctx.user is not None
    texts = ctx.texts
    for _ in range(5):
        cup = Cup(
            id=_code(tables, 4),
            home=ctx.chat.id,
            # The chat's title as the service took it from the platform (shown short).
            title=texts("tournament.title", chat=ctx.chat.title or ctx.chat.id),
            host=ctx.user.id,
            host_name=ctx.user.name,
            system=spec.system,
            rounds=spec.rounds,
            size=spec.size,
            round_time=spec.round_time,
            game=spec.game,
            team=spec.team,
            clock=spec.clock,
            lang=texts.lang,
            created=ctx.now,
            starts_at=ctx.now + spec.start_in if spec.start_in else None,
        )
        cup.due_at = cup.starts_at
        lines = [
            texts("tournament.created", name=ctx.user.name, id=cup.id, what=describe(cup, texts))
        ]
        lines.append(_start_line(cup, texts, ctx.now))
        lines.append(texts("tournament.how_to_join", id=cup.id))
        out = Outbound(ctx.chat.id, "\n".join(lines), buttons=_join_button(cup, texts))
        if _save(tables, ctx, cup, None, [out]):
            return
    raise Reject("error.busy")


def _join_button(cup: Cup, texts: Texts) -> tuple[Button, ...]:
    return (Button(texts("tournament.button_join"), f"/tournament join {cup.id}"),)


def _start_line(cup: Cup, texts: Texts, now: float) -> str:
    if cup.starts_at is None:
        return texts("tournament.starts_by_host", name=cup.host_name)
    return texts("tournament.starts_in", left=format_duration(max(60, int(cup.starts_at - now))))


def describe(cup: Cup, texts: Texts) -> str:
    """What the tournament is, in a few words: system, rounds, table size, round time."""
    game = texts(
        "game.spezial" if cup.game == "spezial" else "game.team" if cup.team else "game.genial"
    )
    time = format_duration(cup.round_time)
    if cup.system == "robin":
        return texts("tournament.describe_robin", size=cup.size, time=time, game=game)
    rounds = texts("tournament.rounds", count=cup.total_rounds)
    return texts("tournament.describe", rounds=rounds, size=cup.size, time=time, game=game)


def _join(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    assert ctx.user is not None
    if cup.status != OPEN:
        raise Reject("tournament.begun", id=cup.id)
    if ctx.chat.id not in cup.chats:
        raise Reject("tournament.not_here", id=cup.id)
    if cup.entrant(ctx.user.id) is not None:
        raise Reject("tournament.already_in", id=cup.id)
    cup.entrants.append(Entrant(ctx.user.id, ctx.user.name, ctx.chat.id))
    text = ctx.texts("tournament.joined", name=ctx.user.name, id=cup.id, count=len(cup.entrants))
    return [Outbound(ctx.chat.id, text)]


def _need_host(ctx: Context, cup: Cup) -> None:
    """The host, or an admin of a chat the tournament is played from (an admin elsewhere,
    naming it by its id, is not one of its admins)."""
    assert ctx.user is not None
    if ctx.user.id != cup.host and not (ctx.admin and ctx.chat.id in cup.chats):
        raise Reject("tournament.host_only", host=cup.host_name)


def _start(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    _need_host(ctx, cup)
    if cup.status != OPEN:
        raise Reject("tournament.begun", id=cup.id)
    least = _least(cup)
    if len(cup.entrants) < least:
        raise Reject("tournament.too_few", id=cup.id, count=least)
    cup.status = RUNNING
    cup.due_at = ctx.now
    return []


def _least(cup: Cup) -> int:
    """The fewest players a round is played with: two, or three at tables of 3 or 4 (with
    fewer a round would be all byes)."""
    return 2 if cup.size == 2 else 3


def _cancel(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    _need_host(ctx, cup)
    assert ctx.user is not None
    cup.status = CANCELLED
    cup.due_at = None
    cup.finished_at = ctx.now
    text = ctx.texts("tournament.cancelled", id=cup.id, name=ctx.user.name)
    return [Outbound(chat, text) for chat in cup.chats]


def _invite(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    _need_host(ctx, cup)
    if not cup.code:
        cup.code = _code(tables, 6)
    if not cup.teams:
        cup.teams = [cup.home]
        cup.team_names[cup.home] = shown_name(ctx.chat.title) or cup.home
    text = ctx.texts("tournament.invite", id=cup.id, code=cup.code)
    return [Outbound(ctx.chat.id, text)]


def _leave(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    assert ctx.user is not None
    who = cup.entrant(ctx.user.id)
    if who is None or who.out:
        raise Reject("tournament.not_in", id=cup.id)
    if cup.status not in (OPEN, RUNNING):
        raise Reject("tournament.over", id=cup.id)
    return withdraw(tables, cup, who, ctx.texts, ctx.now)


def withdraw(tables: Tables, cup: Cup, who: Entrant, texts: Texts, now: float) -> list[Outbound]:
    """``who`` leaves ``cup``: before the start they are simply gone; once it runs, their
    game of this round is lost (a two-player game ends there, a larger table plays on with
    the computer in their seat) and they are paired no more."""
    if cup.status == OPEN:
        cup.entrants.remove(who)
        text = texts("tournament.left_before", name=who.name, id=cup.id)
        return [Outbound(who.chat, text)]
    who.out = True
    out: list[Outbound] = []
    if cup.played:
        for p in cup.played[-1].pairings:
            if who.user in p.players and p.places is None and who.user not in p.forfeits:
                p.forfeits.append(who.user)
                out += _forfeit_at_table(tables, cup, p, who, now)
    cup.due_at = now
    text = texts("tournament.left", name=who.name, id=cup.id)
    return [*(Outbound(chat, text) for chat in cup.chats), *out]


def _forfeit_at_table(
    tables: Tables, cup: Cup, p: Pairing, who: Entrant, now: float
) -> list[Outbound]:
    """The leaver's seat at their running table: a two-player game ends (the other player
    won), at a larger table a computer plays the seat on."""
    if not p.opened:
        return []
    with tables.locks.hold(p.chat):
        t = tables.store.load(p.chat)
        if t is None or t.status != PLAYING:
            return []
        ctx = tables.clock_context(t, now)
        t.version += 1
        seat = t.seat_of(who.user)
        if seat is None:
            return []
        live = [u for u in p.players if u not in p.forfeits]
        if len(live) <= 1:
            t.players = list(t.seats)
            t.status = CLOSED
            t.seats = []
            t.due_at = t.turn_started = None
            t.pending, t.pending_cells = [], []
            ctx.out.append(
                ctx.scene.chat_message([ctx.texts("tournament.forfeit_end", name=who.name)])
            )
        else:
            lobby.vacate(tables, ctx, seat, ctx.texts("tournament.forfeit_seat", name=who.name))
        if not tables.save(ctx):
            return []
        if t.status == CLOSED:
            tables.forget(p.chat)
        else:
            tables.keep(ctx, t.version)
        return ctx.out


def _team(tables: Tables, ctx: Context, code: str) -> None:
    """A community joins a team battle by its invite code: a chat admin enlists the chat
    as a team, and its people join from there."""
    assert ctx.user is not None
    tid = tables.store.tournament_by_code(code)
    if tid is None:
        raise Reject("tournament.bad_code")
    if not ctx.admin:
        raise Reject("tournament.admins_enlist")
    for _ in range(3):
        found = _load(tables, tid)
        if found is None:
            raise Reject("tournament.bad_code")
        version, cup = found
        if cup.status != OPEN:
            raise Reject("tournament.begun", id=cup.id)
        if ctx.chat.id in cup.chats:
            raise Reject("tournament.team_already", id=cup.id)
        cup.teams.append(ctx.chat.id)
        name = shown_name(ctx.chat.title) or ctx.chat.id
        cup.team_names[ctx.chat.id] = name
        texts = Texts(cup.lang)
        news = texts("tournament.team_joined", team=name, id=cup.id, count=len(cup.teams))
        here = ctx.texts("tournament.team_welcome", id=cup.id, what=describe(cup, ctx.texts))
        outs = [Outbound(c, news) for c in cup.chats if c != ctx.chat.id]
        outs.append(Outbound(ctx.chat.id, here, buttons=_join_button(cup, ctx.texts)))
        if _save(tables, ctx, cup, version, outs):
            return
    raise Reject("error.busy")


def _show(tables: Tables, ctx: Context, target: str) -> None:
    if target:
        found = _load(tables, target)
        if found is None:
            raise Reject("tournament.no_such", id=target)
        ctx.out.append(standings_message(tables, found[1], ctx.chat.id, ctx.texts, ctx.pictures))
        return
    cups = [c for _, c in _of_chat(tables, ctx.chat.id)]
    live = [c for c in cups if c.status in (OPEN, RUNNING)]
    if len(live) > 1:
        lines = [ctx.texts("tournament.list")]
        lines += [
            ctx.texts(
                "tournament.list_line",
                id=c.id,
                what=describe(c, ctx.texts),
                status=ctx.texts(f"tournament.status_{c.status}"),
            )
            for c in live
        ]
        ctx.out.append(Outbound(ctx.chat.id, "\n".join(lines)))
        return
    shown = live or [c for c in cups if c.status == FINISHED][-1:]
    if not shown:
        raise Reject("tournament.none_yet")
    ctx.out.append(standings_message(tables, shown[0], ctx.chat.id, ctx.texts, ctx.pictures))


_ACTIONS = {
    "join": _join,
    "start": _start,
    "cancel": _cancel,
    "invite": _invite,
    "leave": _leave,
}


# --- the standings ----------------------------------------------------------------------


def _points(value: Fraction) -> str:
    """Points as people read them: ``2``, ``1.5``, ``2.33``."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.2f}".rstrip("0")
    return text


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
                points=_points(line.points),
                buchholz=_points(line.buchholz),
                sb=_points(line.sonneborn),
            )
        )
    if not table:
        lines.append(texts("tournament.nobody"))
    for team, score in team_scores(cup, table):
        key = "tournament.team_score_here" if team == chat else "tournament.team_score"
        lines.append(texts(key, team=cup.team_names.get(team, team), points=_points(score)))
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
    chat itself), in the order of :func:`round_lines`' table lines: a platform links each
    line to the latest message there (as ``/games`` does)."""
    where = []
    for p in r.pairings:
        ours = [
            place
            for user, place in p.seen_at.items()
            if (e := cup.entrant(user)) is not None and e.chat == chat
        ]
        where.append(ours[0] if ours else next(iter(p.seen_at.values()), chat))
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
    rows = [
        (
            str(x.rank),
            cup.name_of(x.player),
            _points(x.points),
            _points(x.buchholz),
            _points(x.sonneborn),
        )
        for x in table
    ]
    head = (
        texts("tournament.col_rank"),
        texts("tournament.col_name"),
        texts("tournament.col_points"),
        texts("tournament.col_buchholz"),
        texts("tournament.col_sb"),
    )
    lines = [
        texts("tournament.team_score", team=cup.team_names.get(t, t), points=_points(s))
        for t, s in team_scores(cup, table)
    ]
    if cup.status == RUNNING and cup.played:
        lines += round_lines(cup, cup.played[-1], texts)
    return images.standings(cup.title, describe(cup, texts), head, rows, lines)


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
            "points": _points(x.points),
            "buchholz": _points(x.buchholz),
            "sb": _points(x.sonneborn),
            "out": bool((e := cup.entrant(x.player)) and e.out),
        }
        for x in table
    ]
    teams = [
        {"name": cup.team_names.get(t, t), "points": _points(s)} for t, s in team_scores(cup, table)
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


# --- the due work -----------------------------------------------------------------------


def due(tables: Tables, now: float) -> list[Outbound]:
    """Every tournament's due work at ``now`` (each claimed first)."""
    out: list[Outbound] = []
    for tid in tables.store.due_tournaments(now):
        out += work(tables, tid, now)
    return out


def work(tables: Tables, tid: str, now: float) -> list[Outbound]:
    """Tournament ``tid``'s due work, if this process can claim it: of several
    processes, one pairs a round, opens its tables or ends it."""
    # The claim keeps other processes off; the lock, this process's other threads (a
    # command that started the tournament, the platform's clock), which share its claim.
    key = places.PREFIX + tid
    if tables.stuck.get(key, 0.0) > now:
        return []  # its due work failed lately: looked at again a little later
    with tables.locks.hold(key):
        if not tables.store.claim_tournaments(now, tables.owner, tables.clock(), LEASE, tid=tid):
            return []
        out: list[Outbound] = []
        try:
            _work(tables, tid, now, out)
        except (StoreBusy, StoreDown):
            if not out:
                raise
            log.warning("tournament %s waits: the store does not answer", tid)
        except Exception:
            # A damaged tournament must not stop the others, nor be tried every moment.
            # What its tables said before is stored: it is delivered all the same.
            log.exception("the due work of tournament %s failed", tid)
            tables.stuck[key] = now + clock.STUCK_RETRY
        finally:
            tables.store.release_tournaments(tables.owner, [tid])
        return out


def _work(tables: Tables, tid: str, now: float, out: list[Outbound]) -> None:
    """Step by step until nothing is due; what is said (stored already) goes to ``out``
    as it is said, so a step that fails loses nothing said before it."""
    for _ in range(MAX_STEPS):
        found = _load(tables, tid)
        if found is None:
            return
        version, cup = found
        step = _step(tables, cup, now, out)
        if step is None:
            return  # nothing more to do now
        if _store(tables, cup, version, step, now):
            out += step


def _step(tables: Tables, cup: Cup, now: float, out: list[Outbound]) -> list[Outbound] | None:
    """One change to ``cup`` (to be stored) with what it says; what its tables said
    meanwhile (stored already) goes to ``out``. ``None`` when nothing is due."""
    texts = Texts(cup.lang)
    if cup.status == OPEN:
        if cup.starts_at is None or now < cup.starts_at:
            cup_due = cup.starts_at
            if cup_due == cup.due_at:
                return None
            cup.due_at = cup_due
            return []
        least = _least(cup)
        if len(cup.entrants) < least:
            cup.status = CANCELLED
            cup.due_at = None
            text = texts("tournament.cancelled_few", id=cup.id, count=least)
            return [Outbound(c, text) for c in cup.chats]
        cup.status = RUNNING
        cup.due_at = now
        return []
    if cup.status != RUNNING:
        if cup.due_at is None:
            return None
        cup.due_at = None
        return []
    if not cup.played:
        return _pair(tables, cup, texts, now)
    r = cup.played[-1]
    waiting = [p for p in r.pairings if not p.opened and p.places is None]
    if waiting:
        return _open(tables, cup, r, waiting[0], texts, now, out)
    told = len(out)
    changed = False
    for p in r.pairings:
        if p.places is not None:
            continue
        result = _result(tables, cup, p, r.deadline, now, out)
        if result is not None:
            p.places, p.ended = result
            changed = True
            _unnote(tables, p)
    if any(p.places is None for p in r.pairings):
        if changed or cup.due_at != r.deadline:
            cup.due_at = r.deadline
            return []
        return None if len(out) == told else []
    active = len([e for e in cup.entrants if not e.out])
    if len(cup.played) < cup.total_rounds and active >= _least(cup):
        return _pair(tables, cup, texts, now)
    return _finish(tables, cup, texts, now)


def _pair(tables: Tables, cup: Cup, texts: Texts, now: float) -> list[Outbound]:
    """The next round: paired, stored with its announcement (once: the version of the
    tournament sees to it), its tables opened by the next steps."""
    number = len(cup.played) + 1
    results, byes = cup.results()
    playing = [e.user for e in cup.entrants if not e.out]
    forfeited: list[Pairing] = []
    if cup.system == "robin":
        everyone = [e.user for e in cup.entrants]
        pairs, bye = pairing.round_robin(everyone)[number - 1]
        groups: list[tuple[str, ...]] = []
        for a, b in pairs:
            out_a, out_b = cup.entrant(a), cup.entrant(b)
            gone = [u for u, e in ((a, out_a), (b, out_b)) if e is not None and e.out]
            if gone:
                # A game against someone who left: the other player wins it.
                places_ = [2 if u in gone else 1 for u in (a, b)]
                forfeited.append(Pairing([a, b], "", places_, "forfeit", gone, {}, True))
            else:
                groups.append((a, b))
        bye_list = [bye] if bye is not None and not cup.entrant(bye).out else []  # type: ignore[union-attr]
    else:
        ranked = pairing.order(playing, results, byes, _ratings(tables, cup))
        avoid = _teammates(cup, playing)
        if cup.size == 2:
            two, bye = pairing.swiss_pairs(ranked, results, byes, avoid)
            groups = [tuple(p) for p in two]
            bye_list = [bye] if bye is not None else []
        else:
            groups, bye_list = pairing.swiss_tables(ranked, results, byes, cup.size, avoid)
    deadline = now + cup.round_time
    made = [
        Pairing(list(g), f"{places.PREFIX}{cup.id}:{number}:{n}") for n, g in enumerate(groups, 1)
    ]
    r = Round(number, deadline, [*made, *forfeited], bye_list)
    cup.played.append(r)
    cup.due_at = now
    head = texts(
        "tournament.round_paired",
        number=number,
        count=cup.total_rounds,
        title=cup.title,
        left=format_duration(cup.round_time),
    )
    lines = [head, *round_lines(cup, r, texts)[1:]]
    # The places are known once the tables are opened: the links come with /tournament.
    return [Outbound(chat, "\n".join(lines)) for chat in cup.chats]


def _teammates(cup: Cup, playing: list[str]) -> set[frozenset[str]]:
    """In a team battle, players of one team are paired with each other only where no
    pairing across teams is left."""
    if not cup.teams:
        return set()
    team = {e.user: e.chat for e in cup.entrants}
    return {
        frozenset((a, b))
        for i, a in enumerate(playing)
        for b in playing[i + 1 :]
        if team.get(a) == team.get(b)
    }


def _open(
    tables: Tables, cup: Cup, r: Round, p: Pairing, texts: Texts, now: float, out: list[Outbound]
) -> list[Outbound]:
    """Open one table of the round: where each player sees it (a topic or thread opened
    for it where the platform can, else their community's chat), then the table itself,
    started with its players seated. Stored step by step, so a restart opens what was
    not opened yet and nothing twice."""
    n = r.pairings.index(p) + 1
    name = texts("tournament.table_name", title=cup.title, round=r.number, number=n)
    if not p.seen_at:
        opener = getattr(tables, "place_opener", None)
        where: dict[str, str] = {}
        for user in p.players:
            e = cup.entrant(user)
            home = e.chat if e is not None else cup.home
            if home not in where:
                opened = opener(home, name) if opener is not None else None
                where[home] = opened or home
            p.seen_at[user] = where[home]
        return []  # stored before the table opens: a topic is opened once
    shared = [c for c in set(p.seen_at.values()) if c in cup.chats]
    seats = [Seat(name=cup.name_of(u), user=u) for u in p.players]
    t = Table(
        chat=p.chat,
        title=name,
        version=1,
        status=LOBBY,
        host=p.players[0],
        host_name=cup.name_of(p.players[0]),
        seats=seats,
        options=Options(game=cup.game, team=cup.team, timeout=cup.clock, lang=cup.lang),
        tournament={
            "id": cup.id,
            "home": cup.home,
            "name": name,
            "places": dict(p.seen_at),
            "shared": shared,
        },
    )
    with tables.locks.hold(p.chat):
        # First the table with its players seated (a restart finds it), then its start.
        with contextlib.suppress(StaleTable):  # opened before a restart: started below
            tables.store.save(t, None)
        there = tables.store.load(p.chat)
        if there is not None and there.status == LOBBY and there.tournament:
            first = User(p.players[0], cup.name_of(p.players[0]))
            ctx = Context(
                Chat(p.chat, name), first, False, there, texts, now, tables.pictures, there.version
            )
            there.version += 1
            try:
                lobby.start(tables, ctx, Start())
            except Reject as exc:
                log.warning("tournament %s: table %s could not start: %s", cup.id, p.chat, exc.key)
                p.opened = True
                p.places = [1] * len(p.players)
                p.ended = "forfeit"
                return []
            if tables.save(ctx):
                tables.keep(ctx, there.version)
                out += ctx.out
    for user in p.players:
        _note(tables, p.seen_at[user], user, p.chat, add=True)
    p.opened = True
    return []


def _note(tables: Tables, place: str, user: str, chat: str, *, add: bool) -> None:
    key = places.AT.format(user=user)
    have = places.noted(tables.store.note(place, key))
    now = [c for c in have if c != chat] + ([chat] if add else [])
    tables.store.set_note(place, key, " ".join(now) or None)


def _unnote(tables: Tables, p: Pairing) -> None:
    for user, place in p.seen_at.items():
        _note(tables, place, user, p.chat, add=False)


def _result(
    tables: Tables, cup: Cup, p: Pairing, deadline: float, now: float, told: list[Outbound]
) -> tuple[list[int], str] | None:
    """Each player's place at table ``p`` once its game is over (played out by the
    computer first if the round's deadline has passed), and how it ended; ``None`` while
    it runs. Players who left the tournament finish last."""
    live = [u for u in p.players if u not in p.forfeits]
    if len(live) <= 1:
        return _with_forfeits(p, {u: 1 for u in live}), "forfeit"
    t = tables.store.load(p.chat)
    if t is None:
        return None
    if t.status == PLAYING:
        if now < deadline:
            return None
        told += _play_out(tables, p.chat, now)
        t = tables.store.load(p.chat)
        if t is None or t.status == PLAYING:
            return None
    game = _finished_game(t)
    if game is None:
        return _with_forfeits(p, {u: 1 for u in live}), "forfeit"
    ended = "deadline" if t.tournament.get("played_out") else "played"
    place = {s.player: s.place for s in game.seats}
    return _with_forfeits(p, {u: place.get(u, len(p.players)) for u in live}), ended


def _finished_game(t: Table) -> ratings.RatedGame | None:
    """The result of the game that ended at table ``t`` (its seats as they were at the end,
    a seat a computer took over counted for the person who left it)."""
    if t.status == PLAYING or t.record is None or not t.players:
        return None
    seats = [asdict(s) for s in t.players]
    left_by = {n: s.left_user for n, s in enumerate(t.players) if s.left and s.left_user}
    try:
        return ratings.from_table(
            {"chat": t.chat, "seats": seats, "record": t.record}, 0.0, left_by
        )
    except ValueError:
        return None


def _with_forfeits(p: Pairing, place: dict[str, int]) -> list[int]:
    """Places with those who left last: the others ranked among themselves by the game,
    the leavers tied behind them."""
    live = sorted(set(place.values()))
    rank = {v: 1 + sum(1 for u in place.values() if u < v) for v in live}
    last = len(place) + 1
    return [rank[place[u]] if u in place else last for u in p.players]


def _play_out(tables: Tables, chat: str, now: float) -> list[Outbound]:
    """The round's deadline has passed at a running table: the computer plays the rest
    of the game in its players' names (a timeout's move, turn after turn), told in one
    message with the result."""
    with tables.locks.hold(chat):
        t, people = tables.load(chat)
        if t is None or t.status != PLAYING:
            return []
        ctx = tables.clock_context(t, now)
        ctx.people = people
        try:
            game = tables.game(ctx)
        except Reject:
            return []
        t.version += 1
        level = tables.settings.level
        last: list[Event] = []
        actor = game.to_move
        moves = 0
        while not game.over:
            actor = game.to_move
            last = []
            for move in clock.think(games.copy(game), actor, level, t.seed + moves):
                last += game.play(move, actor)
                moves += 1
        intro = [ctx.texts("tournament.deadline_played", moves=moves)]
        t.tournament["played_out"] = True
        after_moves(tables, ctx, game, last, actor, intro)
        if not tables.save(ctx):
            return []
        return ctx.out


def _finish(tables: Tables, cup: Cup, texts: Texts, now: float) -> list[Outbound]:
    """The last round is over: the final standings and the winner, in every chat."""
    cup.status = FINISHED
    cup.due_at = None
    cup.finished_at = now
    table = standings(tables, cup)
    winners = [cup.name_of(x.player) for x in table if x.rank == 1]
    cup.final = {x.player: x.rank for x in table}
    cup.winners = winners
    out = []
    for chat in cup.chats:
        lines = [texts("tournament.winner", title=cup.title, names=", ".join(winners))]
        teams = team_scores(cup, table)
        if teams:
            lines.append(
                texts("tournament.winner_team", team=cup.team_names.get(teams[0][0], teams[0][0]))
            )
        lines += standings_lines(tables, cup, texts, chat)[1:]
        picture = standings_picture(tables, cup, texts) if tables.pictures else None
        out.append(Outbound(chat, "\n".join(lines), "result", attachment=picture))
    return out


def left_chat(
    tables: Tables, chat: str | Collection[str] | None, user: str, now: float
) -> list[Outbound]:
    """``user`` left ``chat`` (the platform says so; several chats: a server's channels):
    they leave every open or running tournament they joined from it, as ``/tournament
    leave`` would; ``chat`` ``None``: every tournament they are in (they asked to be
    forgotten)."""
    out: list[Outbound] = []
    if isinstance(chat, str):
        chat = {chat}
    if chat is None or len(chat) > 1:
        ids = tables.store.tournaments_with(json.dumps(user))
    else:
        ids = tables.store.tournaments_of(next(iter(chat), ""))
    for tid in ids:
        for _ in range(3):
            found = _load(tables, tid)
            if found is None:
                break
            version, cup = found
            who = cup.entrant(user)
            if cup.status not in (OPEN, RUNNING) or who is None or who.out:
                break
            if chat is not None and who.chat not in chat:
                break
            said = withdraw(tables, cup, who, Texts(cup.lang), now)
            if _store(tables, cup, version, said, now):
                out += said
                if cup.status == RUNNING:
                    out += work(tables, cup.id, now)
                break
    return out


def moved_chat(tables: Tables, old: str, new: str, separator: str) -> list[str]:
    """Chat ``old`` became chat ``new`` (a Telegram group that became a supergroup; its
    topics ``old`` + ``separator`` + thread move along): every tournament played from it
    follows, its home, teams, entrants and places, the running tables' places and the notes
    that route a player's moves typed there. Returns the tournaments that moved."""

    def moved(chat: str) -> str:
        if chat == old:
            return new
        return new + chat[len(old) :] if chat.startswith(old + separator) else chat

    done: list[str] = []
    for tid in tables.store.tournaments_with(json.dumps(old)[1:-1]):
        for _ in range(3):
            found = _load(tables, tid)
            if found is None:
                break
            version, cup = found
            before = cup.to_dict()
            cup.home = moved(cup.home)
            cup.teams = [moved(c) for c in cup.teams]
            cup.team_names = {moved(c): n for c, n in cup.team_names.items()}
            for e in cup.entrants:
                e.chat = moved(e.chat)
            # Each table whose places moved, with its players' places before.
            changed: list[tuple[Pairing, dict[str, str]]] = []
            for r in cup.played:
                for p in r.pairings:
                    seen = {u: moved(c) for u, c in p.seen_at.items()}
                    if seen != p.seen_at:
                        changed.append((p, dict(p.seen_at)))
                        p.seen_at = seen
            if cup.to_dict() == before:
                break
            if not _store(tables, cup, version, [], tables.clock()):
                continue  # changed meanwhile: read again
            for p, was in changed:
                _move_places(tables, p, was, moved)
            done.append(tid)
            break
    return done


def _move_places(
    tables: Tables, p: Pairing, was: dict[str, str], moved: Callable[[str], str]
) -> None:
    """A tournament table's places after a chat moved (``was``: each player's place
    before): its stored places, and the note naming the table under each moved place
    (what its player types there goes to it)."""
    with tables.locks.hold(p.chat):
        for _ in range(3):
            t = tables.store.load(p.chat)
            if t is None or not t.tournament:
                break
            info = dict(t.tournament)
            info["places"] = {u: moved(c) for u, c in (info.get("places") or {}).items()}
            info["shared"] = [moved(c) for c in info.get("shared") or []]
            if info == t.tournament:
                break
            version = t.version
            t.tournament, t.version = info, version + 1
            try:
                tables.store.save(t, version)
            except StaleTable:
                continue
            tables.forget(p.chat)
            break
    for user, place in p.seen_at.items():
        before = was.get(user, place)
        if before == place:
            continue
        key = places.AT.format(user=user)
        noted = tables.store.note(before, key)
        if noted is not None:
            tables.store.set_note(place, key, noted)
            tables.store.set_note(before, key, None)


# --- finding a tournament's table from a player's place -------------------------------


def routed(tables: Tables, chat: str, user: str, command: Command) -> str | None:
    """The tournament table a game command typed in ``chat`` is for: one of ``user``'s
    tournament tables seen there (the one where it is their turn, if several)."""
    if not command.at_seat:
        return None
    found = places.noted(tables.store.note(chat, places.AT.format(user=user)))
    if len(found) <= 1:
        return found[0] if found else None
    for table_chat in found:
        t = tables.store.load(table_chat)
        if t is None or t.status != PLAYING or t.record is None:
            continue
        facts = tables.game_facts(t)
        if facts is not None and t.seats[facts[1]].user == user:
            return table_chat
    return found[0]


HANDLERS: dict[type, Handler] = {TournamentCommand: tournament}
