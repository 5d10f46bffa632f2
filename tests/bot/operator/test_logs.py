"""``[log] format = "json"``: one JSON object a line, the table id a field, the platform's
redaction kept; ``[log] level``."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot.core import metrics
from bot.core.config import Settings
from bot.discord.app import HideSecret
from bot.operator import logs


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(HideSecret("s3cret-token"))
    root = logging.getLogger()
    level = root.level
    metrics.install_table_ids()
    logs.apply(handler, Settings(log_format="json", log_level="warning"))
    root.addHandler(handler)
    try:
        yield out
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_a_table_line_as_json(stream: io.StringIO) -> None:
    log = logging.getLogger("bot.test")
    with metrics.at_table("-100777"):
        log.warning("sending with s3cret-token failed: %s", "Forbidden")
    log.info("not written: below the level")
    log.error("outside any table")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert {k: first[k] for k in ("level", "logger", "table", "message")} == {
        "level": "warning",
        "logger": "bot.test",
        "table": "-100777",
        "message": "sending with [token] failed: Forbidden",
    }
    assert first["time"][:2] == "20" and first["time"].endswith("Z")
    assert (second["table"], second["message"], second["level"]) == (
        None,
        "outside any table",
        "error",
    )


def test_a_traceback_stays_on_its_line(stream: io.StringIO) -> None:
    try:
        raise RuntimeError("boom s3cret-token")
    except RuntimeError:
        logging.getLogger("bot.test").exception("it failed")
    (line,) = stream.getvalue().splitlines()
    message = json.loads(line)["message"]
    assert message.startswith("it failed\nTraceback (most recent call last):")
    assert message.endswith("RuntimeError: boom [token]")
