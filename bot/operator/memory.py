"""A long-running bot gives the memory it freed back to the system.

A bot serving tables for weeks allocates and frees the same kinds of objects all day
(tables loaded and saved, messages built and sent, from several threads). glibc's
allocator keeps much of what is freed in the middle of its heaps instead of returning it,
so the process's resident size creeps up although what the bot holds stays flat: the soak
(``benchmarks/soak.py``) saw the freed-but-held part grow from 3 to 10 MB over 900 tables
while the memory in use stayed level. ``malloc_trim`` returns those pages; calling it
now and then keeps the resident size at what the bot really uses. On C libraries without
it (musl, macOS) this does nothing.

And it keeps what it built as it started out of the garbage collector's way: the modules,
classes and tables of a started bot are some 90,000 objects that live as long as the
process, and each full collection walked them all (35 ms of CPU on the machine of
2026-12-07, ``benchmarks/bench_settle.py``, with every chat's turn waiting behind it; a new
process's first board paid for one when it fell there). :func:`settle` moves them out of
its reach once, at the start.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

#: Seconds between two trims: often enough that little piles up, rare enough to cost
#: nothing measurable (a trim of the bot's heap takes about a millisecond).
TRIM_EVERY = 60.0


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(None)  # the C library the interpreter runs on
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_TRIM = _malloc_trim()
_started = threading.Lock()
_thread: threading.Thread | None = None


def give_back() -> bool:
    """Return the free memory the C allocator holds to the system; whether it could
    (``False`` on a C library without ``malloc_trim``)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


def settle() -> int:
    """Collect the start-up's garbage once, then freeze what is left (``gc.freeze``): the
    objects a started bot holds for good are no longer walked by each full collection,
    which then looks only at what the bot made since. Called once the bot has started,
    before its first message. Returns the number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def keep_giving_back(every: float = TRIM_EVERY) -> bool:
    """Start a background thread that calls :func:`give_back` every ``every`` seconds for
    the rest of the process (once per process; later calls do nothing). Whether such a
    thread runs."""
    global _thread
    if _TRIM is None:
        return False
    with _started:
        if _thread is None:
            stop = threading.Event()  # never set: the thread ends with the process

            def loop() -> None:
                while not stop.wait(every):
                    try:
                        give_back()
                    except Exception:  # never let housekeeping take the bot down
                        log.exception("giving memory back failed")

            _thread = threading.Thread(target=loop, name="genial-memory", daemon=True)
            _thread.start()
    return True
