"""How long a test waits for another thread, process or server: until the thing it waits
for happens (a line printed, a request the fake server saw, a row in the store), at most
:data:`PATIENCE`.

The ceiling is generous on purpose: on a machine busy with other work (a load of 9 on two
cores) a test takes ten times as long as on a quiet one, and a wait of a few seconds that
suffices on a quiet machine runs out there. Nothing waits for the ceiling when all is
well: a wait ends as soon as what it waits for is there; the ceiling only turns a hang
into a failure that says what was awaited.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Seconds to wait for something another thread or process does before calling it stuck.
PATIENCE = 300.0


def wait_until(
    done: Callable[[], object],
    what: str,
    *,
    timeout: float = PATIENCE,
    interval: float = 0.01,
    alive: Callable[[], str | None] | None = None,
) -> None:
    """Look at ``done()`` every ``interval`` seconds until it is true.

    ``alive``, if given, is asked between looks: a text (say, the output of a process
    that exited) means what is awaited can no longer come, and fails the wait at once.

    Raises:
        AssertionError: ``what`` did not happen within ``timeout`` seconds, or ``alive``
            said it never will.
    """
    deadline = time.monotonic() + timeout
    while not done():
        if alive is not None:
            gone = alive()
            if gone is not None:
                raise AssertionError(f"{what}: {gone}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(interval)
