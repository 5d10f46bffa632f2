"""SimCord with the patience of the other tests: an operation (a slash command, a click,
``advance_time``) may take up to :data:`tests.patience.PATIENCE` of real time to settle,
not SimCord's 5 s, and otherwise everything settles exactly as before.

SimCord's settle timeout does two jobs. It is the real time an operation may take before
SimCord calls the bot stuck, which on a busy machine (ten times slower) runs out while
the bot is still working. And it is the horizon of what counts as a *parked* timer: a
sleep of the bot's that would end after the deadline (the clock's nap, a Retry-After)
waits for ``advance_time``; one that ends sooner is work in progress that SimCord waits
out in real time. The tests are written against the 5 s horizon (``faults.RETRY_AFTER``
is above it, the client's 5 s retry sleep at it), so only the first job changes: every
deadline SimCord sets is :data:`EXTRA` seconds later, and whether a timer is parked is
decided against the deadline without them, the one SimCord would have set.

A settle also looks again at the bot's work in progress every 5 ms instead of every
50 ms: the client's clock, woken, starts a nap task that SimCord sees as parked only at
its next look, and every wake cost a whole 50 ms of doing nothing (42 of the Discord
tests' 50 s). How often it looks changes nothing of what counts as settled.

For a client registered with :func:`settle_on_waits` (discord.py's own rate-limit handling
in :mod:`tests.bot.discord.paced_discord`), a task waiting on a lock, an event or a bare
future counts as parked too when the whole bot is quiet: every task of the bot suspended,
no worker thread running and no callback due before the horizon. Then nothing but virtual
time can wake anyone: the lock is held by a task sleeping out a rate limit (discord.py's
``Ratelimit`` sleeps under its ``_sleeping`` lock while the bucket's other requests wait on
futures; our delivery holds a table's post lock while its post waits), which is waiting on
the clock, not working. SimCord calls such a wait unknown and waits for it in real time
until its deadline, which with a few channels past their budget was every settle: the
many-channels run hung for the whole patience (300 s) and failed. A bot that waits on
something outside (a socket, a thread not started by ``to_thread``) is not quiet by this
rule; the harnesses that register have none.
"""

from __future__ import annotations

import importlib.metadata
import weakref
from typing import Any

import discord
import simcord._settlement
import simcord.env

from tests.patience import PATIENCE

#: The SimCord whose internals this knows (pinned in pyproject.toml).
VERSION = "3.2.1"
#: SimCord's own settle timeout, the horizon of parked timers.
HORIZON = 5.0
#: Seconds added to every SimCord deadline.
EXTRA = PATIENCE - HORIZON

#: How often a settle looks again at work in progress (SimCord's default: 0.05 s).
IDLE = 0.005

_installed = False

#: Clients whose settles take a wait on a lock or future of a quiet bot as parked.
_patient_of_waits: weakref.WeakSet[discord.Client] = weakref.WeakSet()


def settle_on_waits(client: discord.Client) -> None:
    """Settle ``client``'s operations once the whole bot waits (the module's docstring)."""
    install()
    _patient_of_waits.add(client)


def _quiet(state: Any, deadline: float) -> bool:
    """Every task of the bot suspended, no worker thread, no callback before ``deadline``."""
    work = state.work
    if work.executors:
        return False
    for task in work.tasks:
        if task.done():
            continue
        waiter = getattr(task, "_fut_waiter", None)
        if waiter is None or waiter.done():
            return False
    # SimCord's own test (not the patched one: ``deadline`` is without the extra seconds).
    callback_is_parked = simcord._settlement._callback_is_parked
    return all(
        callback_is_parked(state, record, deadline)
        for record in work.callbacks
        if record.handle is not None and not record.handle.cancelled()
    )


def install() -> None:
    """Patch SimCord (once) as the module's docstring says."""
    global _installed
    if _installed:
        return
    found = importlib.metadata.version("simcord")
    assert found == VERSION, f"SimCord {found}: check tests/bot/discord/patient_simcord.py"
    env_class: Any = simcord.env.Env
    module: Any = simcord.env
    assert env_class.__init__.__kwdefaults__["settle_timeout"] == HORIZON

    init = env_class.__init__

    def patient_init(self: Any, *args: Any, settle_timeout: float = HORIZON, **kw: Any) -> None:
        init(self, *args, settle_timeout=settle_timeout + EXTRA, **kw)

    settle = env_class._settle_internal

    async def patient_settle(
        self: Any, *, timeout: float | None = None, idle: float = IDLE, **kw: Any
    ) -> None:
        # An explicit timeout (SimCord's start-up settle, env.settle(timeout=...)) gets the
        # same extra seconds as the default one.
        timeout = None if timeout is None else timeout + EXTRA
        await settle(self, timeout=timeout, idle=min(idle, IDLE), **kw)

    is_parked = module._is_parked
    callback_is_parked = module._callback_is_parked

    def parked(state: Any, task: Any, deadline: float) -> bool:
        if is_parked(state, task, deadline - EXTRA):
            return True
        return state.bot in _patient_of_waits and _quiet(state, deadline - EXTRA)

    def callback_parked(state: Any, record: Any, deadline: float) -> bool:
        return bool(callback_is_parked(state, record, deadline - EXTRA))

    env_class.__init__ = patient_init
    env_class._settle_internal = patient_settle
    module._is_parked = parked
    module._callback_is_parked = callback_parked
    _installed = True
