"""A tournament's round after an outage of the bot (:mod:`bot.core.outage`): its deadline
is every table's clock (a game not over by then is played out), so it moves on by the time
the bot was away, and the round's tables are told with their own clocks'."""

from __future__ import annotations

import logging
import math

from bot.core.tables import Tables
from bot.store import DamagedTable
from bot.tournaments import places
from bot.tournaments.cup import RUNNING, _load, _store

log = logging.getLogger(__name__)

#: Attempts at one tournament that its due work keeps changing first (another process).
TRIES = 3


def credit_own(tables: Tables, since: float, until: float) -> list[str]:
    """Every running round whose deadline had not passed when the bot went away at
    ``since`` gets the time until ``until`` back; the tables of those rounds still
    playing (each told once, with its own clocks)."""
    told: list[str] = []
    for tid in tables.store.due_tournaments(math.inf):
        try:
            told += _round(tables, tid, since, until)
        except DamagedTable:
            continue  # its due work says so, and the others go on
    return told


def _round(tables: Tables, tid: str, since: float, until: float) -> list[str]:
    for _ in range(TRIES):
        with tables.locks.hold(places.PREFIX + tid):
            found = _load(tables, tid)
            if found is None:
                return []
            version, cup = found
            if cup.status != RUNNING or not cup.played:
                return []
            r = cup.played[-1]
            playing = [p.chat for p in r.pairings if p.places is None and p.chat]
            if cup.credited == since:
                return playing  # given back before (a process killed while crediting)
            if r.deadline <= since:
                return []  # it had passed: the round ends as it would have
            old = r.deadline
            r.deadline = old + (until - since)
            if cup.due_at == old:
                cup.due_at = r.deadline
            cup.credited = since
            if _store(tables, cup, version, [], tables.clock()):
                return playing
    log.warning("tournament %s kept changing: its round did not get the outage back", tid)
    return []
