"""The operator's view: ``/healthz`` and Prometheus ``/metrics`` over HTTP, and log lines
that name the table they are about.

Off by default; ``[metrics] port`` turns it on (``genial-bot telegram|discord`` starts it
beside the adapter). The figures: commands handled by command, turn latency, open tables
by status, the due backlog (tables whose deadline has passed), and platform errors by kind
(counted from the warnings and errors the platform adapters and their libraries log, so
the adapters need no metrics code of their own).
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from bot.store import Store, StoreDown

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


class _StoreFigures(Collector):
    """Open tables and the due backlog, read from the operator's store when scraped."""

    def __init__(self, operator: Operator, clock: Callable[[], float]) -> None:
        self.operator = operator
        self.clock = clock

    def collect(self) -> Iterator[Metric]:
        store = self.operator.store
        if store is None:
            raise StoreDown(self.operator.not_ready)
        census = store.census(self.clock())
        tables = GaugeMetricFamily("genial_tables", "Tables by status.", labels=["status"])
        for status in ("lobby", "playing", "closed"):
            tables.add_metric([status], census[status])
        yield tables
        yield GaugeMetricFamily(
            "genial_open_tables",
            "Tables in a lobby or a running game.",
            value=census["lobby"] + census["playing"],
        )
        yield GaugeMetricFamily(
            "genial_due_backlog", "Tables whose deadline has passed.", value=census["due"]
        )
        yield GaugeMetricFamily(
            "genial_outbox_waiting",
            "Messages stored and not yet delivered to their platform.",
            value=census["waiting"],
        )


class Operator:
    """The HTTP server of ``/healthz`` and ``/metrics`` (threads of its own).

    Started with no store (``None``) while the launcher waits for one, it answers both with
    503 and :attr:`not_ready` (a process alive but not ready, to a container's health check)
    until :meth:`ready` hands it the store.
    """

    def __init__(
        self, store: Store | None, listen: str, port: int, clock: Callable[[], float] = time.time
    ) -> None:
        """Start serving.

        Raises:
            OSError: the port cannot be bound.
        """
        self.store = store
        #: What ``/healthz`` says while there is no store (the waiting's progress).
        self.not_ready = "store not reachable yet"
        self._figures = _StoreFigures(self, clock)
        REGISTRY.register(self._figures)
        self._errors = PlatformErrors()
        logging.getLogger().addHandler(self._errors)
        operator = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, kind, body = operator.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # a scrape every few seconds is not news

        try:
            self.server = ThreadingHTTPServer((listen, port), Handler)
        except OSError:
            self.close_figures()
            raise
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def answer(self, path: str) -> tuple[int, str, bytes]:
        """Status, content type and body for a GET of ``path``."""
        path = path.split("?", 1)[0]
        store = self.store
        if store is None and path in ("/healthz", "/metrics"):
            return 503, "text/plain", f"{self.not_ready}\n".encode()
        if path == "/healthz":
            assert store is not None
            try:
                store.next_due()
            except Exception as exc:  # whatever the backend raises: the store is not there
                return 503, "text/plain", f"store unreachable: {type(exc).__name__}\n".encode()
            return 200, "text/plain", b"ok\n"
        if path == "/metrics":
            try:
                return 200, CONTENT_TYPE_LATEST, generate_latest(REGISTRY)
            except Exception as exc:
                return 503, "text/plain", f"store unreachable: {type(exc).__name__}\n".encode()
        return 404, "text/plain", b"not found: try /healthz or /metrics\n"

    def waiting(self, why: str) -> None:
        """While there is no store: ``why`` is what ``/healthz`` answers."""
        self.not_ready = why

    def ready(self, store: Store) -> None:
        """The store, reachable now: from here on the figures are read from it."""
        self.store = store

    def close_figures(self) -> None:
        REGISTRY.unregister(self._figures)
        logging.getLogger().removeHandler(self._errors)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()
        self.close_figures()
