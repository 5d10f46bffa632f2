"""Where finished games' reviews are worked out: in a process beside the bot's, one at a
time, so that no chat waits for another chat's review.

A review is seconds of the expert's CPU (``benchmarks/bench_review.py``; 2 s a game on
average in the run below, on the 2-core machine of 2026-12-08). Worked out in the due
step of the table whose game ended, it held that group's lock and a worker thread, and as
pure Python it held the interpreter's lock against every other chat's commands and
steps: in 60 Telegram groups at once (``benchmarks/bench_many_chats.py``, 59 games
reviewed in 8 minutes) reminders came p95 19.6 s late and boards p95 5 s after their
moves. In a process of its own a review takes at most one core, nothing of the bot's
interpreter, and no lock; the step only hands it over, and the result is stored when it
comes.

A :class:`multiprocessing.pool.Pool` of the ``spawn`` kind: a fresh interpreter (no copy of
the bot's threads and locks, as ``fork`` would make) whose workers are daemonic, so a
stopping bot neither waits for a review under way nor leaves its process behind
(:mod:`multiprocessing` ends them as the interpreter exits). A review lost with its
process is no error: its claim in the store runs out and the table's next due work claims
it again.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections.abc import Callable, Hashable
from multiprocessing.pool import Pool
from typing import Any

log = logging.getLogger(__name__)


class Reviewer:
    """Work handed to ``processes`` processes of its own, one piece at a time in each,
    in the order given; each result handed to its ``done`` in a thread of the pool's."""

    def __init__(self, processes: int = 1, forget_after: float = 3600.0) -> None:
        self.processes = processes
        #: Seconds after which work handed over but never answered (its process died
        #: under it: a pool's task is then lost) no longer counts as under way.
        self.forget_after = forget_after
        self._pool: Pool | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        #: Work under way, by key: when it was handed over.
        self._pending: dict[Hashable, float] = {}

    def submit(
        self,
        key: Hashable,
        work: Callable[..., Any],
        args: tuple[Any, ...],
        done: Callable[[Any], None],
    ) -> bool:
        """Hand ``work(*args)`` (a module-level function: it is pickled) to the reviewer's
        process; ``done(result)`` is called with what it returns. False, and nothing
        handed over, if work under ``key`` is still under way here."""
        with self._lock:
            now = time.monotonic()
            since = self._pending.get(key)
            if since is not None and now - since < self.forget_after:
                return False
            if self._pool is None:
                self._pool = multiprocessing.get_context("spawn").Pool(self.processes)
            self._pending[key] = now
            pool = self._pool

        def finished(result: Any) -> None:
            self._finish(key)
            try:
                done(result)
            except Exception:  # in the pool's thread: logged, never raised there
                log.exception("a review worked out could not be kept")

        def failed(exc: BaseException) -> None:
            self._finish(key)
            log.error("a review failed in its process: %r", exc)

        pool.apply_async(work, args, callback=finished, error_callback=failed)
        return True

    def _finish(self, key: Hashable) -> None:
        with self._lock:
            self._pending.pop(key, None)
            self._idle.notify_all()

    def under_way(self) -> int:
        """How many pieces of work are under way (handed over, not yet answered)."""
        with self._lock:
            return len(self._pending)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until no work is under way, or ``timeout`` seconds; whether none is."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def close(self) -> None:
        """End the reviewer's processes now, with what they were doing (the reviews stay
        wanted in the store, claimed until their lease runs out)."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._pending.clear()
            self._idle.notify_all()
        if pool is not None:
            pool.terminate()
