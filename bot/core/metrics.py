"""The bot's figures and the table each log line is about: commands handled by command,
turn latency and platform errors by kind (counted from the warnings and errors the
platform adapters and their libraries log, so the adapters need no metrics code of their
own), kept in this process's own registry; the operator's HTTP view of them is
:mod:`bot.operator.ops`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

#: Every figure of this process (its own registry: nothing of the library's defaults).
REGISTRY = CollectorRegistry()
COMMANDS = Counter(
    "genial_commands", "Commands handled, by command word.", ["command"], registry=REGISTRY
)
#: Seconds the service takes for an accepted or refused /play, /swap or /keep.
TURN_SECONDS = Histogram(
    "genial_turn_seconds",
    "Seconds for one turn command, from command in to messages out.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
PLATFORM_ERRORS = Counter(
    "genial_platform_errors",
    "Warnings and errors logged by a platform adapter or its library, by kind.",
    ["platform", "kind"],
    registry=REGISTRY,
)
TURN_COMMANDS = frozenset({"play", "swap", "keep"})
PLATFORMS = ("telegram", "discord")

#: The table a thread (or task) is working on, for log lines.
_table: contextvars.ContextVar[str | None] = contextvars.ContextVar("genial_table", default=None)


@contextmanager
def at_table(chat: str) -> Iterator[None]:
    """Log lines written meanwhile carry ``chat``'s table id."""
    token = _table.set(chat)
    try:
        yield
    finally:
        _table.reset(token)


def record_command(command: str, seconds: float) -> None:
    """Count one command (``command``: its word, ``play``) and time it if it is a turn."""
    COMMANDS.labels(command).inc()
    if command in TURN_COMMANDS:
        TURN_SECONDS.observe(seconds)


class _TableRecords:
    """Makes log records carry the table id (``record.table``) and put it in front of the
    message, so every handler's lines show it without a format of its own."""

    def __init__(self, make: Callable[..., logging.LogRecord]) -> None:
        self.make = make

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.make(*args, **kwargs)
        table = _table.get()
        record.table = table
        if table is not None:
            record.msg = f"[table {table}] {record.msg}"
        return record


def install_table_ids() -> None:
    """From now on log lines written at a table (see :func:`at_table`) name it. Once per
    process; a second call changes nothing."""
    factory = logging.getLogRecordFactory()
    if not isinstance(factory, _TableRecords):
        logging.setLogRecordFactory(_TableRecords(factory))


class PlatformErrors(logging.Handler):
    """Counts warnings and errors of the platform loggers (``bot.telegram...``,
    ``telegram...``, ``bot.discord...``, ``discord...``) by the exception's kind."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        parts = record.name.split(".")
        name = parts[1] if parts[0] == "bot" and len(parts) > 1 else parts[0]
        if name not in PLATFORMS:
            return
        if record.exc_info and record.exc_info[0] is not None:
            kind = record.exc_info[0].__name__
        else:
            kind = record.levelname.lower()
        PLATFORM_ERRORS.labels(name, kind).inc()
