"""Live pages: which tables have open pages, and telling those pages when a table changed.

One watch per table with open pages polls the table's version in the store (so a move made
by any process on the same store shows), and :meth:`Live.poke` looks at once (a move made
through this process's page or chat). Pages of a table wait on one :class:`asyncio.Event`
each; the watch stops when the last page closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

#: Seconds between two looks at a watched table's version in the store.
POLL = 0.25


class Watch:
    """The open pages of one table and the version they were last told."""

    def __init__(self) -> None:
        self.version: int | None = None
        self.pages: set[asyncio.Event] = set()
        self.task: asyncio.Task[None] | None = None
        self.poked = asyncio.Event()
        self.stopped = False


class Live:
    """The watches of every table with open pages, in one event loop."""

    def __init__(
        self, version_of: Callable[[str], Awaitable[int | None]], poll: float = POLL
    ) -> None:
        self._version_of = version_of
        self._poll = poll
        self._watches: dict[str, Watch] = {}

    @property
    def pages(self) -> int:
        return sum(len(w.pages) for w in self._watches.values())

    @property
    def tables(self) -> int:
        return len(self._watches)

    def version(self, chat: str) -> int | None:
        watch = self._watches.get(chat)
        return None if watch is None else watch.version

    def join(self, chat: str, version: int | None) -> asyncio.Event:
        """A page of ``chat`` opens, having been shown ``version``: its event is set when
        the table changes."""
        watch = self._watches.get(chat)
        if watch is None:
            watch = self._watches[chat] = Watch()
            watch.version = version
            watch.task = asyncio.get_running_loop().create_task(self._run(chat, watch))
        event = asyncio.Event()
        watch.pages.add(event)
        if version != watch.version:
            event.set()  # it changed while the page was loading
        return event

    def leave(self, chat: str, event: asyncio.Event) -> None:
        watch = self._watches.get(chat)
        if watch is None:
            return
        watch.pages.discard(event)
        if not watch.pages:
            del self._watches[chat]
            watch.stopped = True
            if watch.task is not None:
                watch.task.cancel()

    def poke(self, chat: str) -> None:
        """Look at ``chat``'s version now (call in the loop's thread)."""
        watch = self._watches.get(chat)
        if watch is not None:
            watch.poked.set()

    async def _run(self, chat: str, watch: Watch) -> None:
        while not watch.stopped:
            try:
                version = await self._version_of(chat)
            except Exception:  # the store away: the pages wait, the watch looks again
                log.warning("the version of a watched table could not be read", exc_info=True)
                version = watch.version
            if version != watch.version:
                watch.version = version
                for event in watch.pages:
                    event.set()
            watch.poked.clear()
            # asyncio.timeout, not wait_for: on Python 3.11 a cancel that arrives as the
            # poke ends the wait is swallowed by wait_for, and the watch would go on.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._poll):
                    await watch.poked.wait()

    async def close(self) -> None:
        """Stop every watch and tell every page (which then ends its stream)."""
        tasks = []
        for watch in self._watches.values():
            watch.stopped = True  # one whose cancel got lost still ends at its next look
            if watch.task is not None:
                tasks.append(watch.task)
        for task in tasks:
            task.cancel()
        for event in [e for w in self._watches.values() for e in w.pages]:
            event.set()
        self._watches.clear()
        await asyncio.gather(*tasks, return_exceptions=True)
