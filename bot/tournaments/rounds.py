"""A tournament's due work (issue 30): the start on time, each round's pairings and tables,
the round's deadline and the end.

Every round is paired once, by whichever process claimed the tournament's due work (as a
table's is claimed), and its pairings are said in the same transaction that stores them: of
two processes, the second finds the round paired and pairs nothing. Each pairing is a table
of its own (:mod:`bot.tournaments.places`), started at once with its players seated; the
round's deadline is every table's clock: a game not over by then is handed to the
computer, which plays it out in its players' names, as a turn that times out is, so a round
always ends. It plays a turn at a time at the clock's ordinary steps, each turn told, so a
round's play-out holds back no other chat's clock; the round closes (its results, the next
round) when its last table ends.

The pairings are :mod:`bot.tournaments.pairing`'s (plain values).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import asdict

from bot.community import ratings
from bot.core.commands import Start
from bot.core.deadlines import schedule
from bot.core.outbound import Chat, Outbound, User
from bot.core.table import LOBBY, PLAYING, Options, Seat, Table
from bot.core.tables import Context, Reject, Tables
from bot.play import clock, lobby
from bot.store import StaleTable, StoreBusy, StoreDown
from bot.tournaments import pairing, places
from bot.tournaments.cup import (
    CANCELLED,
    FINISHED,
    OPEN,
    RUNNING,
    Cup,
    Pairing,
    Round,
    _load,
    _store,
)
from bot.tournaments.standings import (
    _ratings,
    round_lines,
    standings,
    standings_lines,
    standings_picture,
    team_scores,
)
from bot.words.texts import Texts

log = logging.getLogger(__name__)

#: Seconds a process holds its claim on a tournament's due work (as on a table's).
LEASE = 60.0
#: Steps of one tournament's due work at one look (opening, results, the next round).
MAX_STEPS = 20
#: Seconds between two looks at a round whose tables the computer plays out after its
#: deadline (each table's end brings the next look forward at once: this is a safety net).
PLAY_OUT_LOOK = 60.0


def _least(cup: Cup) -> int:
    """The fewest players a round is played with: two, or three at tables of 3 or 4 (with
    fewer a round would be all byes)."""
    return 2 if cup.size == 2 else 3


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
        result = _result(tables, cup, p, r.deadline, now)
        if result is not None:
            p.places, p.ended = result
            changed = True
            _unnote(tables, p)
    if any(p.places is None for p in r.pairings):
        look = _look_again(cup, r, now)
        if changed or cup.due_at != look:
            cup.due_at = look
            return []
        return None if len(out) == told else []
    active = len([e for e in cup.entrants if not e.out])
    if len(cup.played) < cup.total_rounds and active >= _least(cup):
        return _pair(tables, cup, texts, now)
    return _finish(tables, cup, texts, now)


def _look_again(cup: Cup, r: Round, now: float) -> float:
    """When the tournament looks at its running round again: at its deadline; past it,
    while the clock plays its open tables out, each table's end brings the look forward
    (:func:`bot.tournaments.places.poke`), and a look every :data:`PLAY_OUT_LOOK` seconds
    finds an end whose poke was lost (a bot stopped between the two)."""
    if now < r.deadline:
        return r.deadline
    if cup.due_at is not None and cup.due_at > now:
        return cup.due_at
    return now + PLAY_OUT_LOOK


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
        left=texts.duration(cup.round_time),
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
    name = texts("tournament.table_name", title=cup.title, id=cup.id, round=r.number, number=n)
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
    tables: Tables, cup: Cup, p: Pairing, deadline: float, now: float
) -> tuple[list[int], str] | None:
    """Each player's place at table ``p`` once its game is over, and how it ended;
    ``None`` while it runs (handed to the computer to play out once the round's deadline
    has passed). Players who left the tournament finish last."""
    live = [u for u in p.players if u not in p.forfeits]
    if len(live) <= 1:
        return _with_forfeits(p, {u: 1 for u in live}), "forfeit"
    t = tables.store.load(p.chat)
    if t is None:
        return None
    if t.status == PLAYING:
        if now >= deadline:
            _hand_over(tables, p.chat, now)  # the clock plays it out, turn by turn
        return None
    game = _finished_game(t)
    if game is None:
        return _with_forfeits(p, {u: 1 for u in live}), "forfeit"
    # (``played_out``: a game played out whole at one look, before play-outs took steps.)
    deadline_ended = t.autoplay or t.tournament.get("played_out")
    ended = "deadline" if deadline_ended else "played"
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


def _hand_over(tables: Tables, chat: str, now: float) -> None:
    """The round's deadline has passed at a running table: its game is handed to the
    computer, which plays the rest in its players' names as a turn that times out is, a
    turn a step of the clock, each told as a computer player's turn is
    (:mod:`bot.play.clock`), so no other chat's clock waits behind a round's play-out.
    Stored with the table, so a restarted bot goes on with it; said with its first turn."""
    with tables.locks.hold(chat):
        t, people = tables.load(chat)
        if t is None or t.status != PLAYING or t.autoplay:
            return
        ctx = tables.clock_context(t, now)
        ctx.people = people
        try:
            game = tables.game(ctx)
        except Reject:
            return
        t.version += 1
        t.autoplay = True
        # Nobody's clock runs any more: no vote on a player out of time, no held ping.
        t.out_of_time = None
        t.ping_at = None
        t.pending = [*t.pending, ctx.texts("tournament.deadline_playing")]
        schedule(t, game, now, new_turn=False)
        if tables.save(ctx):
            tables.keep(ctx, t.version)


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
        lines = [texts("tournament.winner", title=cup.title, id=cup.id, names=", ".join(winners))]
        teams = team_scores(cup, table)
        # Teams on the best score share the win, as tied persons do.
        best = [cup.team_names.get(t, t) for t, score in teams if score == teams[0][1]]
        if len(best) > 1:
            lines.append(texts("tournament.winner_teams_tied", teams=", ".join(best)))
        elif best:
            lines.append(texts("tournament.winner_team", team=best[0]))
        lines += standings_lines(tables, cup, texts, chat)[1:]
        picture = standings_picture(tables, cup, texts) if tables.pictures else None
        out.append(Outbound(chat, "\n".join(lines), "result", attachment=picture))
    return out
