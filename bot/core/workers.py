"""The worker threads of a platform's event loop, and a loop that does not wait for them.

Every call into the service runs in a worker thread (``asyncio.to_thread``). A call may
take long (a table of computer players plays a whole game in one call), and
``asyncio.run`` waits for every such call before it returns: SIGTERM would wait for that
game. :class:`Workers` knows the calls under way, so a stopping bot waits for them only so
long, and :func:`run_loop` ends its loop without waiting for them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Workers(concurrent.futures.ThreadPoolExecutor):
    """The event loop's worker threads (every call into the service runs in one), which
    know the calls still under way, so a stopping bot waits for them only so long."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="genial-worker")
        self._running: set[concurrent.futures.Future[Any]] = set()

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        future = super().submit(fn, *args, **kwargs)
        self._running.add(future)
        future.add_done_callback(self._running.discard)
        return future

    def finish(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the calls under way; whether all ended."""
        concurrent.futures.wait(list(self._running), timeout=max(0.0, timeout))
        return not self._running


def run_loop(main: Coroutine[Any, Any, T], workers: Workers) -> T:
    """Run ``main`` on an event loop of its own whose worker threads are ``workers``;
    unlike ``asyncio.run``, the loop's end does not wait for calls still in them (see
    :meth:`Workers.finish`)."""
    loop = asyncio.new_event_loop()
    loop.set_default_executor(workers)
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            if tasks:
                loop.run_until_complete(asyncio.wait(tasks))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
