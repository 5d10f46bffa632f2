"""Outage credit (issue 43): players never pay for the bot's own outages. When the bot
could not act for longer than ``[bot] outage_credit`` (its processes down, its store not
answering), every running clock gets that time back (time banks, a turn's limit and its
reminder, a vote on a player out of time, a tournament's round) and each table whose
clocks moved is told once, in one line, through the stored outbox.

How long the bot was away is the store's heartbeat (:mod:`bot.core.heartbeat`), looked at
before every due pass, list of due tables and command (:func:`first`, :func:`looked`),
and when a service starts (:func:`start`): a restarted bot gives the time back before it
does anything else. The clocks themselves belong to the concerns, which move them through
their :class:`~bot.core.tables.Concern` hooks (``credit_table``, ``credit_own``); each
table notes the outage it got back (:attr:`~bot.core.table.Table.credited`) in the same
transaction, so a process killed while crediting, or two processes crediting at once,
give no table the time twice.

A platform that cannot reach its servers is not an outage here: the clock goes on then
(its messages wait in the outbox), so the time is not given back.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from bot.core.durations import format_left
from bot.core.heartbeat import Outage
from bot.core.outbound import Outbound
from bot.core.table import PLAYING
from bot.core.tables import Tables
from bot.store import DamagedTable, StoreBusy, StoreDown, StoreError

log = logging.getLogger(__name__)

#: Attempts at one table that other commands keep changing first.
TRIES = 3
#: Outages credited at one look at most (one left by a process killed while crediting,
#: then the gap since).
LOOKS = 3

P = ParamSpec("P")
S = TypeVar("S", bound=Tables)
R = TypeVar("R")


def look(tables: Tables) -> list[Outbound]:
    """Keep the store's heartbeat, and if the bot was away longer than the threshold,
    give every running clock that time back: what the tables are told (stored, claimed by
    this process). Costs nothing while this process looked a few seconds ago.

    Raises:
        StoreError: if the store does not answer (then the bot is away still).
    """
    beat = tables.heartbeat
    if beat is None or beat.fresh():
        return []
    out: list[Outbound] = []
    with beat.lock:
        try:
            for _ in range(LOOKS):
                if beat.fresh():
                    break
                outage = beat.find()
                if outage is None:
                    break
                out += credit(tables, outage)
                beat.credited(outage)
        except StoreError:
            beat.failed = tables.clock()
            raise
    beat.failed = None
    return out


def credit(tables: Tables, outage: Outage) -> list[Outbound]:
    """Every running clock gets the time of ``outage`` back: the concerns' own clocks
    first (a tournament's round), then each table with something due (a running clock
    always has), each in its own transaction with its one line. What the tables are told.

    Raises:
        StoreError: if the store stops answering (the outage stays recorded: the next look
            goes on with the tables not yet credited).
    """
    since, until = outage.since, outage.until
    log.warning(
        "the bot was away for %s: every running clock gets that time back",
        format_left(outage.gap),
    )
    told: list[str] = []
    for concern in tables.concerns:
        if concern.credit_own is None:
            continue
        try:
            told += concern.credit_own(tables, since, until)
        except (StoreBusy, StoreDown):
            raise
        except Exception:
            # A concern's broken clock must not keep the tables' clocks from their time.
            log.exception("the outage credit of %s failed", concern.name)
    tell = set(told)
    out: list[Outbound] = []
    for chat in dict.fromkeys([*tables.store.due(math.inf), *told]):
        try:
            out += _table(tables, chat, since, until, chat in tell)
        except (StoreBusy, StoreDown):
            raise
        except Exception:
            # One broken table must not keep every other table's clock from its time.
            log.exception("the outage credit of table %s failed", chat)
    return out


def _table(tables: Tables, chat: str, since: float, until: float, told: bool) -> list[Outbound]:
    """One table's clocks get the outage back (``told``: a concern's own clock for it
    moved already), and the table is told; nothing if it has it already."""
    for _ in range(TRIES):
        with tables.locks.hold(chat):
            try:
                t, people = tables.load(chat)
            except DamagedTable:
                return []
            if t is None or t.status != PLAYING or t.credited == since:
                return []
            ctx = tables.clock_context(t, tables.clock())
            ctx.people = people
            moved = told
            for concern in tables.concerns:
                if concern.credit_table is not None and concern.credit_table(
                    tables, ctx, since, until
                ):
                    moved = True
            if not moved:
                tables.keep(ctx, t.version)
                return []
            t.credited = since
            t.version += 1
            line = ctx.texts("clock.outage", gap=format_left(until - since))
            ctx.out.append(ctx.scene.chat_message([line]))
            if tables.save(ctx):
                tables.keep(ctx, t.version)
                return ctx.out
    log.warning("table %s kept changing: its clocks did not get the outage back", chat)
    return []


def start(tables: Tables) -> None:
    """A service starts: a bot that was away gives the time back before anything else
    (what the tables are told waits in the outbox for the first delivery)."""
    try:
        _hand_over(tables, look(tables))
    except StoreError as exc:
        log.warning("the heartbeat waits: %s", exc)
    except Exception:
        log.exception("the look at the heartbeat failed")


def first(
    method: Callable[Concatenate[S, P], list[Outbound]],
) -> Callable[Concatenate[S, P], list[Outbound]]:
    """A due pass (:meth:`~bot.core.service.TableService.due`) that looks at the heartbeat
    first: what the tables are told of an outage comes before the due work, which then
    finds their clocks with the time back. While the store does not answer there is no
    due pass (it would fail too; what is due stays due)."""

    @functools.wraps(method)
    def due(self: S, /, *args: P.args, **kwargs: P.kwargs) -> list[Outbound]:
        told = before_due(self)
        if told is None:
            return []
        return told + method(self, *args, **kwargs)

    return due


def before_due(tables: Tables) -> list[Outbound] | None:
    """The look at the heartbeat before a due pass (or a step of one): what the tables
    are told of an outage; ``None`` while the store does not answer (no due pass then)."""
    try:
        return _look_twice(tables)
    except StoreError as exc:
        log.warning("due work waits: %s", exc)
        return None
    except Exception:
        # A fault of the credit itself must not stop the clock.
        log.exception("the look at the heartbeat failed")
        return []


def looked(
    method: Callable[Concatenate[S, P], R],
) -> Callable[Concatenate[S, P], R]:
    """A look at what is due, or a command, after a look at the heartbeat: what the tables
    are told of an outage waits in the outbox for the next delivery (by any process); the
    call itself goes on even while the store does not answer (and says so in its own
    way)."""

    @functools.wraps(method)
    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        beat = self.heartbeat
        # While the store is away a command is not kept waiting for the heartbeat too: the
        # clock's next look finds the outage.
        if beat is not None and not beat.failed_lately():
            try:
                _hand_over(self, look(self))
            except StoreError as exc:
                log.warning("the heartbeat waits: %s", exc)
            except Exception:
                log.exception("the look at the heartbeat failed")
        return method(self, *args, **kwargs)

    return call


def _hand_over(tables: Tables, outs: list[Outbound]) -> None:
    """What the tables are told, when the caller does not deliver it, is left in the
    outbox for any process (another Discord shard's chats, another platform's) to take at
    its next look, not held for this one's."""
    ids = [o.stored.id for o in outs if o.stored is not None]
    if ids:
        tables.store.unclaim(tables.owner, ids)


def _look_twice(tables: Tables) -> list[Outbound]:
    """:func:`look`, once more on a fresh connection if the first met a lost one (a
    database server that restarted)."""
    try:
        return look(tables)
    except StoreDown:
        return look(tables)
