"""What tournaments hand the core: ``/tournament``, a tournament's due work under its own
keys (``tournament:<id>``), where a tournament's tables are seen (its players' chats) and
the moves typed there, a finished table counted in its round at once, the tournaments in
a person's ``/mydata`` and ``/forget me``, their finished tournaments in ``/stats``, and the
round's deadline given back after an outage."""

from __future__ import annotations

from typing import Any

from bot.core.outbound import Outbound
from bot.core.table import Table
from bot.core.tables import Concern, Context, OwnDue, PersonData, Tables
from bot.store import DamagedTable
from bot.tournaments import chats, commands, credit, places, rounds


def _owns(key: str) -> bool:
    """A tournament's own due key, ``tournament:<id>`` (its tables' chats go on with
    ``:<round>:<table>`` and are tables like any other)."""
    return places.is_tournament_table(key) and key.count(":") == 1


def _keys(tables: Tables, now: float) -> list[str]:
    return [places.PREFIX + tid for tid in tables.store.due_tournaments(now)]


def _next_due(tables: Tables) -> float | None:
    return tables.store.next_tournament_due()


def _work(tables: Tables, key: str, now: float) -> list[Outbound]:
    return rounds.work(tables, key[len(places.PREFIX) :], now)


def _answers(tables: Tables, chat: str, outs: list[Outbound]) -> list[Outbound]:
    """A command typed at a tournament's table itself (a move from the private chat):
    what it says in public goes to its players' places; errors go back to where the
    command came from, as platforms answer them."""
    if not places.is_tournament_table(chat):
        return outs
    try:
        t = tables.store.load(chat)
    except DamagedTable:
        return outs  # its answers stay where they were typed
    if t is None or not t.tournament:
        return outs
    kept = [o for o in outs if o.stored is not None or o.kind == "error"]
    loose = [o for o in outs if o.stored is None and o.kind != "error"]
    return kept + places.fan_out(t, loose)


def _fan_out(t: Table, outs: list[Outbound]) -> list[Outbound]:
    return places.fan_out(t, outs) if t.tournament else outs


def _finished(tables: Tables, ctx: Context) -> None:
    if ctx.table.tournament.get("id"):
        # The round may be over: the tournament looks now, not at its deadline.
        places.poke(tables.store, str(ctx.table.tournament["id"]), ctx.now)


def _report(tables: Tables, user: str) -> dict[str, Any]:
    return {"tournaments": places.tournaments_of_person(tables.store, user)}


def _forget(tables: Tables, ctx: Context, user: str, alias: str, name: str) -> None:
    # Out of the tournaments they are in (their remaining games lost), as a leaver.
    ctx.out += chats.left_chat(tables, None, user, ctx.now)
    places.forget_in_tournaments(tables.store, user, alias, name)


TOURNAMENTS = Concern(
    name="tournaments",
    handlers=commands.HANDLERS,
    route=chats.routed,
    fan_out=_fan_out,
    fan_out_answers=_answers,
    finished=_finished,
    own_due=OwnDue(owns=_owns, keys=_keys, next_due=_next_due, work=_work),
    credit_own=credit.credit_own,
    person=PersonData(report=_report, forget=_forget),
    stats_lines=lambda tables, chat, player, texts: places.finished_lines(
        tables.store, chat, player, texts
    ),
)
