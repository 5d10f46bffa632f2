"""The stored outbox as the platforms deliver from it (docs/architecture.md, "The stored
outbox"): what waits there, claimed by this process; a letter delivered, or not taken by the
platform and left for the next try; a gone chat's letters forgotten; and the nudge that wakes
the bot's other processes on the store. :class:`Outbox` is that part of the core's
:class:`~bot.core.service.TableService`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.core import letters
from bot.core.outbound import Outbound, Stored
from bot.core.tables import LETTER_LEASE, Tables
from bot.store import StoreError

log = logging.getLogger(__name__)


class Outbox(Tables):
    """The outbox's side of the service: the letters a command or the clock left in the
    store, handed to the platform that delivers them and taken out once delivered."""

    # --- for adapters: the outbox ------------------------------------------------------

    def waiting(self, chat: str | None = None) -> list[Outbound]:
        """What waits in the stored outbox to be delivered (``chat``: for that table only),
        oldest first, now claimed by this process: what a command or the clock said that no
        platform delivered yet (the bot was killed before it could, or the platform did not
        take it). Deliver each, then call :meth:`delivered`, or :meth:`undelivered` if the
        platform did not take it. Tables whose letters another live process is delivering
        are left to it. Nothing while the store does not answer."""
        try:
            found = self.store.letters(self.owner, self.clock(), LETTER_LEASE, chat=chat)
        except StoreError as exc:
            log.warning("the outbox waits: %s", exc)
            return []
        out = []
        for kept in found:
            try:
                out.append(letters.outbound(kept))
            except ValueError as exc:
                log.warning("dropped a letter of table %s: %s", kept.chat, exc)
                self._quietly(self.store.posted, [kept.id])
        return out

    def delivered(self, out: Outbound) -> None:
        """``out`` was delivered (or will never be: the platform refused it for good), so
        it leaves the outbox. Answers that were never stored need no call."""
        if out.stored is not None:
            self._quietly(self.store.posted, [out.stored.id])

    def undelivered(self, outs: list[Outbound]) -> list[Outbound]:
        """The platform did not take ``outs`` now: they wait in the outbox (those never
        stored are stored now) for the next try by any process (:meth:`waiting`). Returns
        them as they wait (marked with where they are stored, if the store answered)."""
        kept = [out.stored.id for out in outs if out.stored is not None]
        fresh = [out for out in outs if out.stored is None]
        if kept:
            self._quietly(self.store.unclaim, self.owner, kept)
        if not fresh:
            return list(outs)
        now = self.clock()
        sent = [letters.letter(out) for out in fresh]
        try:
            ids = self.store.post(sent, owner=None, now=now, lease=0.0)
        except StoreError as exc:
            log.warning("the outbox could not be updated: %s", exc)
            return list(outs)
        stored = iter(
            replace(out, stored=Stored(id_, letters.key_of(kept_), now))
            for out, kept_, id_ in zip(fresh, sent, ids, strict=True)
        )
        return [out if out.stored is not None else next(stored) for out in outs]

    def forget_waiting(self, chat: str) -> None:
        """Nothing more is delivered to ``chat``'s table: its chat is gone for the bot."""
        self._quietly(self.store.drop_letters, chat)

    def waiting_tables(self) -> list[str]:
        """The tables with letters in the outbox, whoever holds them, the one waiting
        longest first: for adapters that deliver only some tables (a shard's), one table at
        a time (each with ``waiting(chat)``). None while the store does not answer."""
        try:
            return self.store.waiting()
        except StoreError as exc:
            log.warning("the outbox waits: %s", exc)
            return []

    def anything_waiting(self) -> bool:
        """Whether letters wait in the outbox (an adapter's clock then looks again soon)."""
        try:
            return bool(self.store.waiting())
        except StoreError:
            return True  # the store is away: look again soon, when it may be back

    def nudge(self) -> None:
        """Tell the bot's processes on this store that letters wait for them now (what a
        page's move said in a web board's own process): their clocks post it at once."""
        self._quietly(self.store.nudge)

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """Call ``wake`` (from another thread) whenever another process leaves letters
        for anyone to deliver (:meth:`nudge`), and once at the start. Returns the function
        that stops listening."""
        return self.store.listen(wake)

    def _quietly(self, call: Any, *args: Any, **kwargs: Any) -> None:
        """A change to the outbox that may fail while the store does not answer: the
        letter then waits (and may be delivered once more) rather than stop the delivery."""
        try:
            call(*args, **kwargs)
        except StoreError as exc:
            log.warning("the outbox could not be updated: %s", exc)
