"""How a platform's clock takes turns among the due tables: one step at each table at a time
(a computer player's turn, a reminder, a timeout), the next step at a table only once its
chat has been told the last one, and no table's reminder kept waiting behind another
table's game.

The platform runs each step in a task of its own and tells :class:`Turns` when one starts
and ends; :meth:`Turns.ready` says which due tables to start now and :meth:`Turns.wait` how
long the clock may sleep. A step that could do nothing (another process holds the table's
due work, or the table changed while a computer player thought) lets its table rest a
little, so a clock never spins on it.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Seconds a table whose step could do nothing rests before the clock tries it again.
REST = 5.0


class Turns:
    """The tables a clock is stepping now, and those resting after a step that did
    nothing. Used from one event loop."""

    def __init__(self, rest: float = REST) -> None:
        self.rest = rest
        #: Tables whose step is under way (worked out, or being told).
        self.busy: set[str] = set()
        #: Tables resting after a step that did nothing, until when.
        self.resting: dict[str, float] = {}

    def ready(self, due: Iterable[str], now: float) -> list[str]:
        """Of the tables due at ``now``, those to start a step at now."""
        return [c for c in due if c not in self.busy and self.resting.get(c, 0.0) <= now]

    def started(self, chat: str) -> None:
        self.busy.add(chat)

    def ended(self, chat: str, *, did: bool, now: float) -> None:
        """A step at ``chat`` ended; ``did``: it said or changed something (else the table
        rests)."""
        self.busy.discard(chat)
        if did:
            self.resting.pop(chat, None)
        else:
            self.resting[chat] = now + self.rest
        for other, until in list(self.resting.items()):
            if until <= now:
                del self.resting[other]

    def wait(
        self, due: float | None, later: float | None, due_now: Iterable[str], now: float
    ) -> float | None:
        """Seconds the clock may sleep: until ``due`` (the next due time of any table) if
        it is still to come; when it has come, until the first of ``later`` (the next due
        time after now) and the end of a rest, or not at all if a table due now
        (``due_now``) waits for a step. ``None``: nothing is due (sleep the longest)."""
        if due is None:
            return None
        if due > now:
            return due - now
        waits = [] if later is None else [later - now]
        for chat in due_now:
            if chat in self.busy:
                continue  # its step ends by waking the clock
            until = self.resting.get(chat, 0.0)
            if until <= now:
                return 0.0
            waits.append(until - now)
        return max(0.0, min(waits)) if waits else None
