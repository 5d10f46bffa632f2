"""Time banks (``/option clock 3d+1d``, ``10m+5s``): each player's time, charged when their
turn ends and topped up by the increment (never above the bank's start), and the time of
every turn in the record's ``clock`` extension (docs/records.md).

Everything here is arithmetic on the stored table and the service's clock (never a
process's own), so banks survive restarts and are the same for every process on one store.
"""

from __future__ import annotations

from typing import Any

from bot.core.durations import LIVE_BANK
from bot.core.table import Table
from bot.store import Store

#: The record's extension key for the time control and each turn's time.
CLOCK = "clock"
#: The note (by person) of their vacation (``/away``): ``since:until``, seconds since
#: the epoch.
AWAY = "away"


def away_until(store: Store, user: str | None, now: float) -> float | None:
    """When ``user``'s vacation ends, if they are away at ``now`` (clocks paused, no
    pings)."""
    if user is None:
        return None
    return away_by(store.note(user, AWAY), now)


def away_by(note: str | None, now: float) -> float | None:
    """When a vacation ends, from the person's :data:`AWAY` note, if it runs at ``now``."""
    if not note:
        return None
    since, _, until = note.partition(":")
    try:
        start, end = float(since), float(until)
    except ValueError:
        return None
    return end if start <= now < end else None


def clocked(t: Table) -> bool:
    """Whether the table plays with time banks."""
    return t.options.clock_bank > 0


def live(t: Table) -> bool:
    """A clock of minutes (one sitting) rather than of hours and days (by message)."""
    return 0 < t.options.clock_bank <= LIVE_BANK


#: The least default grace of a live clock (README, ``/rules``): one increment is seconds
#: there (``10m+5s``), too short for the others to read that a player ran out of time and
#: press a button, so a live table could never vote; two minutes are enough at a table
#: whose people are there, and keep a game of minutes from standing still for long.
LIVE_GRACE = 120


def grace(t: Table) -> float:
    """How long the other persons may vote on a player out of time (0: no vote): as the
    table set it (``/option grace``), else one increment, at least :data:`LIVE_GRACE` on
    a live clock."""
    o = t.options
    if o.grace >= 0:
        return float(o.grace)
    if not clocked(t):
        return 0.0
    if live(t):
        return float(max(o.clock_increment, LIVE_GRACE))
    return float(o.clock_increment)


def begin(t: Table) -> None:
    """A new game: full banks, and the record's clock extension (kept for every game, so
    ``/stats`` can tell the time per move of games without a clock too)."""
    o = t.options
    t.banks = [float(o.clock_bank)] * len(t.seats) if clocked(t) else []
    assert t.record is not None
    t.record[CLOCK] = {"bank": o.clock_bank, "increment": o.clock_increment, "turns": []}


def span(t: Table, seat: int) -> float | None:
    """The seconds the person at ``seat`` has for the turn from its start: the bank when
    the table has a clock, else the turn's limit; ``None`` for no limit."""
    if clocked(t) and seat < len(t.banks):
        return t.banks[seat]
    return float(t.options.timeout) if t.options.timeout else None


def charge(t: Table, seat: int, now: float, moves: int, computer: bool) -> None:
    """The turn of ``seat`` ended at ``now`` after ``moves`` moves of the game: its time
    goes into the record and, for a person, off their bank (then the increment on)."""
    started = t.turn_started if t.turn_started is not None else now
    used = max(0.0, now - started)
    left: float | None = None
    if clocked(t) and not computer and seat < len(t.banks):
        o = t.options
        left = min(float(o.clock_bank), max(0.0, t.banks[seat] - used) + o.clock_increment)
        t.banks[seat] = left
    ext = _extension(t)
    if ext is None:
        return
    turn: dict[str, Any] = {"seat": seat, "moves": moves, "used": round(used, 3)}
    if computer:
        turn["computer"] = True
    if left is not None:
        turn["left"] = round(left, 3)
    ext["turns"].append(turn)


def truncate(t: Table, moves: int) -> None:
    """The turns that ended after ``moves`` moves are gone (a takeback)."""
    ext = _extension(t)
    if ext is not None:
        ext["turns"] = [turn for turn in ext["turns"] if turn.get("moves", 0) <= moves]


def left(t: Table, seat: int, now: float, to_move: bool) -> float | None:
    """The time ``seat`` has left at ``now`` (the turn's own time counted while it is to
    move and its turn has begun: a turn started in the future is a paused clock); nothing
    for a player out of time while the others vote (an outage's credit may have moved
    their turn's start on, not given them time)."""
    if not clocked(t) or seat >= len(t.banks):
        return None
    if to_move and out_of_time(t, seat):
        return 0.0
    bank = t.banks[seat]
    if to_move and t.turn_started is not None:
        bank -= max(0.0, now - t.turn_started)
    return max(0.0, bank)


def turn_left(t: Table, seat: int, now: float) -> float | None:
    """The time the person at ``seat``, to move, has left of their turn at ``now``: their
    bank, or the turn's limit, less the turn's time so far (none while their clock is
    paused by a vacation), never below zero; ``None`` for no limit. What every place that
    shows time left shows (``/board``, ``/games``, the web board)."""
    if out_of_time(t, seat):
        return 0.0
    limit = span(t, seat)
    if limit is None:
        return None
    if t.turn_started is not None:
        limit -= max(0.0, now - t.turn_started)
    return max(0.0, limit)


def out_of_time(t: Table, seat: int) -> bool:
    """Whether the person at ``seat`` ran out of time and the others vote (or voted to
    wait) on them."""
    out = t.out_of_time
    return out is not None and out.get("seat") == seat


def person_times(record: dict[str, Any], seats: list[int]) -> list[float]:
    """The time of each turn that ``seats`` played themselves, from a record's clock."""
    ext = record.get(CLOCK)
    if not isinstance(ext, dict) or not isinstance(ext.get("turns"), list):
        return []
    return [
        float(turn["used"])
        for turn in ext["turns"]
        if isinstance(turn, dict)
        and turn.get("seat") in seats
        and not turn.get("computer")
        and isinstance(turn.get("used"), int | float)
    ]


def _extension(t: Table) -> dict[str, Any] | None:
    if t.record is None:
        return None
    ext = t.record.get(CLOCK)
    if not isinstance(ext, dict):
        return None
    ext.setdefault("turns", [])
    return ext
