"""The operator's view: ``/healthz`` and Prometheus ``/metrics`` over HTTP.

Off by default; ``[metrics] port`` turns it on (``genial-bot telegram|discord`` starts it
beside the adapter). The figures are the bot's own (:mod:`bot.core.metrics`: commands
handled by command, turn latency, platform errors by kind) and, read from the store when
scraped, open tables by status and the due backlog (tables whose deadline has passed).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from bot.core.metrics import REGISTRY, PlatformErrors
from bot.store import Store, StoreDown


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
