"""A person's data on request: ``/mydata`` and ``/forget me``.

What the bot keeps about a person: their seats (user id and name) at tables and in the
finished games, the ladders' ratings built from those games, and their notes (turn pings
on, a private chat that is closed). ``/mydata`` sends all of it to them privately as a
JSON file. ``/forget me``, sent twice within :data:`CONFIRM_WITHIN` seconds, forgets them:
in every finished game and every table their seats go to one new alias named "a former
player", so the games stay whole and everyone else's ratings stay exactly what they were,
while the alias is on no ladder; every other mention of their id (a takeback, a vote, a
tournament's) names the alias; their notes, their private chat's rows and the messages
waiting for them go, and the others waiting say "a former player" for their name
(:mod:`bot.store.forgetting`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from bot.community import identity, ratings
from bot.community import ladders as community
from bot.core.commands import Forget, MyData
from bot.core.outbound import Attachment, Outbound
from bot.core.table import LOBBY, PLAYING, Seat, Table
from bot.core.tables import Context, Handler, Reject, Tables
from bot.store import DamagedTable, StaleTable, forgetting
from bot.store.base import to_json

#: Seconds within which a second ``/forget me`` confirms the first.
CONFIRM_WITHIN = 600.0
#: The note, under a person's user id, of when they first sent ``/forget me``.
ASKED = "forget.asked"
#: How a forgotten person's seats are named where the name is stored (a finished game,
#: a table's last game); the ladders and /stats say it in the table's language.
FORMER_NAME = "a former player"
#: Tries at scrubbing one table that another command keeps changing meanwhile.
_TRIES = 5


def my_data(tables: Tables, ctx: Context, cmd: MyData) -> None:
    assert ctx.user is not None
    mine = identity.accounts(tables, ctx.user.id)
    data = collect(tables, ctx.user.id, ctx.user.name, ctx.now)
    if len(mine) > 1:
        # The accounts linked with this one on the other platform: one person (issue 49).
        data["linked"] = [collect(tables, a, ctx.user.name, ctx.now) for a in mine[1:]]
    body = json.dumps(data, ensure_ascii=False, indent=1).encode()
    ctx.out.append(
        Outbound(
            ctx.chat.id,
            ctx.texts("privacy.mydata"),
            "export",
            user=ctx.user.id,
            attachment=Attachment("mydata.json", body, "application/json"),
        )
    )


def collect(tables: Tables, user: str, name: str, now: float) -> dict[str, Any]:
    """Everything kept about ``user``, as plain JSON data."""
    running = []
    for chat in tables.store.playing(user):
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            continue
        if t is not None:
            running.append(_at_table(t, user))
    finished = []
    for row in tables.store.archived():
        seats = [n for n, s in enumerate(row.get("seats") or []) if _is(s, user)]
        if seats:
            finished.append(
                {
                    "chat": row["chat"],
                    "title": row.get("title", ""),
                    "finished_at": row["finished_at"],
                    "my_seats": seats,
                    "seats": row.get("seats"),
                    "options": row.get("options"),
                    "record": row.get("record"),
                }
            )
    ladder = community.fresh(tables).ladder
    person = community.of(tables).person(user)  # a linked account's ratings are its person's
    rated = [
        {
            "ladder": "global" if scope == ratings.GLOBAL else scope,
            "game": game,
            "rating": s.points,
            "mu": s.mu,
            "sigma": s.sigma,
            "games": s.games,
            "wins": s.wins,
            "history": ladder.history(person, game, scope),
        }
        for (scope, game), board in sorted(ladder.boards.items())
        if (s := board.get(person)) is not None
    ]
    solo = [
        {"ladder": "global" if scope == ratings.GLOBAL else scope, **asdict(best)}
        for (scope, player), best in sorted(ladder.solo.items())
        if player == person
    ]
    return {
        "user": user,
        "name": name,
        "made_at": now,
        "settings": tables.store.notes_of(user),
        "running_tables": running,
        "finished_games": finished,
        # What the other concerns keep (the tournaments that hold the person).
        **{
            key: value
            for concern in tables.concerns
            if concern.person is not None
            for key, value in concern.person.report(tables, user).items()
        },
        "ratings": rated,
        "solo": solo,
    }


def _is(seat: Any, user: str) -> bool:
    return isinstance(seat, dict) and user in (seat.get("user"), seat.get("left_user"))


def _at_table(t: Table, user: str) -> dict[str, Any]:
    return {
        "chat": t.chat,
        "title": t.title,
        "status": t.status,
        "my_seats": [n for n, s in enumerate(t.seats) if user in (s.user, s.left_user)],
        "seats": [asdict(s) for s in t.seats],
    }


def forget(tables: Tables, ctx: Context, cmd: Forget) -> None:
    assert ctx.user is not None
    user = ctx.user.id
    # The accounts linked with this one are the same person: all of them go (issue 49).
    mine = identity.accounts(tables, user)
    if any(tables.store.playing(account) for account in mine):
        raise Reject("privacy.seated")
    asked = tables.store.note(user, ASKED)
    try:
        confirmed = asked is not None and 0 <= ctx.now - float(asked) <= CONFIRM_WITHIN
    except ValueError:
        confirmed = False
    if not confirmed:
        tables.store.set_note(user, ASKED, repr(ctx.now))
        minutes = str(int(CONFIRM_WITHIN // 60))
        text = ctx.texts("privacy.forget_ask", minutes=minutes)
        ctx.out.append(Outbound(ctx.chat.id, text, "info", user=user))
        return
    alias = f"{community.FORMER}{uuid.uuid4().hex[:12]}"
    for account in mine:
        _forget_account(tables, ctx, account, alias)
    # The ladders and names of this process, rebuilt from the archive as it is now.
    community.renew(tables)
    ctx.out.append(Outbound(ctx.chat.id, ctx.texts("privacy.forgotten"), "info", user=user))


def _forget_account(tables: Tables, ctx: Context, user: str, alias: str) -> None:
    """Forget one account of the person who asked: its seats go to ``alias``."""
    assert ctx.user is not None
    names = called(tables, user, ctx.user.name)
    # The other concerns first (out of the tournaments, their remaining games lost, as a
    # leaver; their entries named by the alias).
    for concern in tables.concerns:
        if concern.person is not None:
            concern.person.forget(tables, ctx, user, alias, FORMER_NAME)
    # Their private chat's table goes with the rest kept there (by the store), and the
    # link that holds the account.
    tables.store.forget_player(user, alias, FORMER_NAME, sorted(names))
    tables.forget(user)
    # This chat's table too: /forget changes no table of its own, so the service saves
    # nothing after it and the stored table is scrubbed like any other.
    for chat in tables.store.tables_with(json.dumps(user)):
        _scrub_stored(tables, chat, user, alias, names)


def called(tables: Tables, user: str, name: str) -> set[str]:
    """What ``user`` was called: ``name`` now, and their names in the seats of the finished
    games and the tables that hold them (a name changes on the platform)."""
    names = {name}
    seats: list[Any] = [s for row in tables.store.archived() for s in row.get("seats") or []]
    for chat in tables.store.tables_with(json.dumps(user)):
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            continue
        if t is not None:
            seats += [asdict(s) for s in [*t.seats, *t.players]]
            if t.host == user:
                names.add(t.host_name)
    names |= {str(s.get("name")) for s in seats if _is(s, user) and s.get("name")}
    return names - {"", FORMER_NAME}


def _scrub_stored(tables: Tables, chat: str, user: str, alias: str, names: set[str]) -> None:
    """Scrub the stored table of ``chat`` over its version (another command that got there
    first makes it read again)."""
    for _ in range(_TRIES):
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            return
        if t is None or not scrub(t, user, alias, names):
            return
        loaded = t.version
        t.version += 1
        try:
            tables.store.save(t, loaded)
            return
        except StaleTable:
            continue


def scrub(t: Table, user: str, alias: str, names: Iterable[str] = ()) -> bool:
    """``t`` without ``user``: a lobby seat of theirs is given up, a seat of a game goes
    to ``alias`` named "a former player", they host no more, their takeback, turn ping
    and vote are gone, and the story told since the last person's move says ``names``
    (what they were called) as "a former player". Whether anything changed."""
    changed = _forget_turn(t, user, alias)
    for name in names:
        pending = [forgetting.named(line, name, FORMER_NAME) for line in t.pending]
        changed |= pending != t.pending
        t.pending = pending
    if t.status == LOBBY and any(s.user == user for s in t.seats):
        t.seats = [s for s in t.seats if s.user != user]
        changed = True
    for seat in [*t.seats, *t.players]:
        changed |= _forget_seat(seat, user, alias)
    if t.host == user:
        t.host, t.host_name = None, ""
        changed = True
    if t.status != PLAYING and t.seats and t.host is None:
        first = next((s for s in t.seats if s.user is not None and s.user != alias), None)
        if first is not None:
            t.host, t.host_name = first.user, first.name
    return changed


def _forget_turn(t: Table, user: str, alias: str) -> bool:
    """What a table keeps of ``user``'s turn and votes: their takeback (asked or not) is
    gone, their accepting one is taken back, a turn ping to them is not sent nor taken
    back; any other mention of their id (a vote on a player out of time, where they saw a
    tournament's table) names ``alias``."""
    before = to_json(t)
    u = t.undoable
    if u is not None and u.get("user") == user:
        t.undoable = None
    elif u is not None and isinstance(u.get("accepted"), list):
        u["accepted"] = [a for a in u["accepted"] if a != user]
    if t.ping_user == user:
        t.ping_at, t.ping_user, t.ping_turn = None, None, ""
    if t.pinged == user:
        t.pinged = None
    if t.out_of_time is not None:
        t.out_of_time = forgetting.ids(t.out_of_time, user, alias)
    t.tournament = forgetting.ids(t.tournament, user, alias)
    return to_json(t) != before


def _forget_seat(seat: Seat, user: str, alias: str) -> bool:
    changed = False
    if seat.user == user:
        seat.user, seat.name = alias, FORMER_NAME
        changed = True
    if seat.left_user == user:
        seat.left_user, seat.name = alias, FORMER_NAME
        changed = True
    return changed


HANDLERS: dict[type, Handler] = {MyData: my_data, Forget: forget}
