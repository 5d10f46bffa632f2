"""Where the log lines go and how they look: ``[log] level`` and ``[log] format``.

A platform makes its handler (standard error, its token taken out of every line) and hands
it to :func:`apply`, which sets the level and, for ``format = "json"``, makes each line one
JSON object for a log collector: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``table``
(the chat id of the table the line is about, :func:`bot.core.metrics.at_table`, or null) and
``message`` (a traceback included), the token taken out as in text lines.
"""

from __future__ import annotations

import copy
import datetime
import json
import logging

from bot.core.config import Settings

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class JsonLines(logging.Formatter):
    """One JSON object a line. ``inner`` is the platform's formatter: the message goes
    through it (with a format of the message alone), so whatever it takes out of a line
    (the bot's token) is taken out here too."""

    def __init__(self, inner: logging.Formatter | None = None) -> None:
        super().__init__()
        self.inner = copy.copy(inner) if inner is not None else logging.Formatter()
        # The message (and traceback) alone: time, level and logger are fields of their own.
        self.inner._style = logging.PercentStyle("%(message)s")
        self.inner._fmt = "%(message)s"

    def format(self, record: logging.LogRecord) -> str:
        message = self.inner.format(record)
        table = getattr(record, "table", None)
        prefix = f"[table {table}] "
        if table is not None and message.startswith(prefix):
            message = message[len(prefix) :]  # the field says it
        when = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        return json.dumps(
            {
                "time": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "level": record.levelname.lower(),
                "logger": record.name,
                "table": table,
                "message": message,
            },
            ensure_ascii=False,
        )


def apply(handler: logging.Handler, settings: Settings) -> logging.Handler:
    """Set the root logger's level from ``[log] level`` and, for ``format = "json"``,
    ``handler``'s format; returns ``handler``."""
    logging.getLogger().setLevel(LEVELS[settings.log_level])
    if settings.log_format == "json":
        handler.setFormatter(JsonLines(handler.formatter))
    return handler


def last_line(message: str, settings: Settings | None) -> str:
    """The line a process ends with when it stops for ``message`` (a setting to fix, a store
    or platform out of reach): one JSON object like every other line where ``[log] format``
    is ``"json"`` (a log collector reads the reason too), else ``genial-bot: message``.
    ``settings`` is None when they could not be read: then the plain line."""
    if settings is None or settings.log_format != "json":
        return f"genial-bot: {message}"
    record = logging.LogRecord("genial-bot", logging.ERROR, __file__, 0, message, None, None)
    return JsonLines().format(record)
