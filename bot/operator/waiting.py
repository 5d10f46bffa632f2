"""Waiting at start for a store that cannot be reached yet (issue 43).

After a reboot the bot may start before its PostgreSQL server (or before the server's
host name resolves, or while the server is still starting up): the launcher waits for it,
trying again after 1 s, then 2, 4 … up to a minute between tries, forever, with one log
line each try. What cannot get better by waiting (a storage value that is no store, a URL
whose settings are wrong, a database made by a newer genial-bot, a SQLite file the bot
cannot use) is raised at once, so the bot stops with its one line and exit status 2.

SIGTERM and Ctrl-C end the wait at any moment: :func:`stop_on_signals` turns them into
:class:`Stopped`, an exit with status 0.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.store import Store, StoreDown, open_store
from bot.store.base import safe_url

log = logging.getLogger(__name__)

#: Seconds before the second try; each wait is twice the one before, up to :data:`LONGEST`.
FIRST = 1.0
LONGEST = 60.0


class Stopped(SystemExit):
    """SIGTERM or Ctrl-C while the bot waited for its store: an exit with status 0, however
    deep in a connection attempt it surfaces (a ``SystemExit``: no ``except Exception``
    on the way takes it for a failure)."""

    def __init__(self) -> None:
        super().__init__(0)


def delays(first: float = FIRST, longest: float = LONGEST) -> Iterator[float]:
    """The seconds between tries: ``first``, twice that, … and ``longest`` from then on."""
    delay = first
    while True:
        yield min(delay, longest)
        delay = min(delay * 2, longest)


def pause(seconds: float) -> None:
    """The wait between two tries (``time.sleep``; a test puts a fake one here)."""
    time.sleep(seconds)


def wait_for_store(
    location: str | Path,
    *,
    opener: Callable[[str | Path], Store] = open_store,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    told: Callable[[str], None] | None = None,
) -> Store:
    """The store at ``location``, opened as soon as it can be reached.

    Each try that finds it not reachable (:class:`StoreDown`) is logged with the reason
    and when the next one comes, and told to ``told`` in a few words (what the operator's
    ``/healthz`` answers meanwhile); then ``sleep`` (default :func:`pause`) waits 1, 2, 4 …
    up to 60 s.

    Raises:
        StoreError: what waiting cannot mend (anything but :class:`StoreDown`), at once.
        Stopped: from ``sleep`` or ``opener``, if SIGTERM or Ctrl-C came meanwhile (see
            :func:`stop_on_signals`).
    """
    start = clock()
    where = safe_url(location) if isinstance(location, str) else str(location)
    for tries, delay in enumerate(delays(), start=1):
        try:
            store = opener(location)
        except StoreDown as exc:
            waited = clock() - start
            if told is not None:  # before the line: whoever reads the line finds it told
                told(
                    f"store not reachable yet (try {tries}, {_seconds(waited)} so far; "
                    f"the next in {_seconds(delay)})"
                )
            log.warning(
                "the store is not reachable yet (%s); trying again in %s (try %d, %s so far)",
                exc,
                _seconds(delay),
                tries,
                _seconds(waited),
            )
            (sleep or pause)(delay)
            continue
        if tries > 1:
            log.info("the store %s is reachable after %d tries", where, tries)
        return store
    raise AssertionError("delays() never ends")  # pragma: no cover


def _seconds(value: float) -> str:
    return f"{value:.0f} s"


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Meanwhile SIGTERM and Ctrl-C (SIGINT) raise :class:`Stopped` wherever the main
    thread is (asleep between tries, or inside a connection attempt). Off the main thread,
    where Python takes no signal handler, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Stopped

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
