"""The store's heartbeat: when the bot last showed it could act, kept in the store (not in
one process), so that a restarted bot, or the bot once its store answers again, knows how
long it was away (:mod:`bot.core.outage` gives that time back to every running clock).

Two notes under a chat no table has (:data:`CHAT`):

- :data:`BEAT`: the last moment a process of the bot looked at the clock or saved a
  change (the service's clock: seconds since the epoch). Written at most every
  :data:`REFRESH` seconds by each process; every process reads and writes the same note,
  so a process that restarts while another kept it fresh finds no outage.
- :data:`CREDIT`: an outage found and not yet given back to every table, ``since:until``.
  Recorded with :meth:`~bot.store.Store.swap_note` (of processes finding one outage at
  once, one records it, and the others credit the one it recorded), cleared once every
  table has it: a process killed while crediting leaves it for the next look.

Nothing here knows a table; :mod:`bot.core.outage` does the crediting.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from bot.store import Store, StoreError

#: The notes' chat: no chat of any platform is spelt so.
CHAT = "bot:outage"
BEAT = "beat"
CREDIT = "credit"
#: Seconds between two writes of the heartbeat by one process (and between two reads while
#: another process writes it): far under any outage worth crediting.
REFRESH = 10.0


@dataclass(frozen=True)
class Outage:
    """The bot was away from ``since`` (the last heartbeat) until ``until`` (when a
    process found the gap)."""

    since: float
    until: float

    @property
    def gap(self) -> float:
        return self.until - self.since

    def text(self) -> str:
        return f"{self.since!r}:{self.until!r}"

    @classmethod
    def read(cls, text: str | None) -> Outage | None:
        """The outage a :data:`CREDIT` note holds; ``None`` for none (or one not ours)."""
        since, _, until = (text or "").partition(":")
        start, end = _number(since), _number(until)
        if start is None or end is None or end < start:
            return None
        return cls(start, end)


class Heartbeat:
    """This process's side of the store's heartbeat: it reads and writes the notes, and
    remembers the last beat it knew of, so that most looks cost nothing."""

    def __init__(self, store: Store, clock: Callable[[], float], threshold: float) -> None:
        """
        Args:
            clock: the service's clock.
            threshold: seconds of a gap that count as an outage; 0: none do (the heartbeat
                is still kept, so switching the credit on later gives back no old gap).
        """
        self.store = store
        self.clock = clock
        self.threshold = threshold
        #: Held while an outage is found and credited: this process's other threads wait,
        #: then act on tables whose clocks have the time back.
        self.lock = threading.Lock()
        self.refresh = min(REFRESH, threshold / 4) if threshold > 0 else REFRESH
        # The store's last beat as this process last knew it (``None``: look again).
        self._seen: float | None = None
        #: When this process's last look failed (the store did not answer), else ``None``.
        self.failed: float | None = None

    def fresh(self) -> bool:
        """Whether this process knows of a beat so recent that no look is needed now."""
        seen = self._seen
        return seen is not None and 0.0 <= self.clock() - seen < self.refresh

    def failed_lately(self) -> bool:
        """Whether this process's last look failed a few seconds ago (the store is away)."""
        failed = self.failed
        return failed is not None and 0.0 <= self.clock() - failed < self.refresh

    def find(self) -> Outage | None:
        """The outage to credit now: one recorded and not yet given back to every table, or
        a gap since the last beat longer than the threshold (recorded now); else ``None``,
        and the beat is kept (written if this process's turn to).

        Raises:
            StoreError: if the store does not answer.
        """
        pending = Outage.read(self.store.note(CHAT, CREDIT))
        if pending is not None:
            return pending
        now = self.clock()
        last = _number(self.store.note(CHAT, BEAT))
        if last is not None and self.threshold > 0 and now - last > self.threshold:
            found = Outage(last, now)
            if self.store.swap_note(CHAT, CREDIT, None, found.text()):
                return found
            # Another process found it first: credited as it recorded it (or done).
            return Outage.read(self.store.note(CHAT, CREDIT))
        # Never back: a process on a machine whose clock is behind another's (by more than
        # the threshold) would make that one find a gap at every look.
        if last is None or now - last >= self.refresh:
            self.store.set_note(CHAT, BEAT, repr(now))
            last = now
        self._seen = last
        return None

    def credited(self, outage: Outage) -> None:
        """Every table has the time of ``outage`` back: the heartbeat goes on from its end
        (a gap after it, while a killed process was crediting, is found by the next look).

        Raises:
            StoreError: if the store does not answer.
        """
        last = _number(self.store.note(CHAT, BEAT))
        if last is None or last < outage.until:
            self.store.set_note(CHAT, BEAT, repr(outage.until))
        self.store.swap_note(CHAT, CREDIT, outage.text(), None)
        self._seen = None

    def alive(self) -> None:
        """A change was saved: the bot can act. The heartbeat goes on through a long due
        pass (a game of computer players) between the clock's looks, but only while this
        process looked lately enough that no outage can hide behind the beat."""
        seen = self._seen
        if seen is None:
            return
        now = self.clock()
        limit = self.threshold if self.threshold > 0 else float("inf")
        if not self.refresh <= now - seen <= limit:
            return
        try:
            self.store.set_note(CHAT, BEAT, repr(now))
        except StoreError:
            return  # the next look finds the gap, if the store stays away
        self._seen = now


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and value == value and abs(value) != float("inf") else None
