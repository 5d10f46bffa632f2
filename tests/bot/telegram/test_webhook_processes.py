"""The webhook workers of docs/operating.md, run exactly as it shows them: two
``genial-bot telegram`` processes started with one config file serve one port and one
database; every update posted to the port is handled by one of them, once. Runs on SQLite and
on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from bot.store import open_store
from tests.bot.backends import location
from tests.bot.pgserver import free_port
from tests.bot.telegram.fake_api import FakeBotAPI, post_update
from tests.patience import PATIENCE, wait_until

pytestmark = pytest.mark.usefixtures("backend")

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "operating.md"
TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA, BOB = 101, 202


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    api.user(ADA, "Ada")
    api.user(BOB, "Bob")
    yield api
    api.close()


def documented_workers() -> tuple[dict[str, Any], list[list[str]]]:
    """The config and the command lines of docs/operating.md's "Telegram webhook workers"."""
    section = DOC.read_text().split("### Telegram webhook workers\n", 1)[1]
    section = re.split(r"\n#{1,3} ", section, maxsplit=1)[0]
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)
    (config,) = [tomllib.loads(text) for kind, text in blocks if kind == "toml"]
    (lines,) = [text for kind, text in blocks if kind == "sh"]
    commands = [line.split("#")[0].replace("&", " ").split() for line in lines.splitlines()]
    return config, [argv for argv in commands if argv]


def test_two_worker_processes_on_one_port(api: FakeBotAPI, tmp_path: Path) -> None:
    config, commands = documented_workers()
    assert commands == [[".venv/bin/genial-bot", "telegram"]] * 2
    telegram = config["telegram"]
    assert telegram["mode"] == "webhook"
    # The documented config, with a free port, the fake Bot API's address instead of
    # Telegram's, and the webhook on the port itself (no reverse proxy in front).
    port = free_port()
    url = f"http://{telegram['listen']}:{port}{urlsplit(telegram['webhook_url']).path}"
    telegram = {**telegram, "webhook_url": url, "port": port, "base_url": api.base_url}
    storage = location(tmp_path / "t.db")
    (tmp_path / "config.toml").write_text(
        f"[bot]\nstorage = {json.dumps(storage)}\n\n[telegram]\n"
        + "".join(f"{key} = {json.dumps(value)}\n" for key, value in telegram.items())
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), GENIAL_TELEGRAM_TOKEN=TOKEN)
    # The documented commands, from the folder with config.toml: `genial-bot` is `bot`'s
    # main, run here by this interpreter.
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", *argv[1:]],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in commands
    ]

    def wait_for(what: str, done: Callable[[], object]) -> None:
        """Until ``done``; a worker that exits meanwhile fails the wait with its output."""

        def alive() -> str | None:
            for i, worker in enumerate(workers):
                if worker.poll() is not None:
                    out, err = worker.communicate()
                    return f"worker {i} exited with {worker.returncode}: {out}{err}"
            return None

        wait_until(done, what, alive=alive)

    def lobby_texts() -> list[str]:
        return [c.text for c in api.sent(GROUP, "sendMessage", "editMessageText")]

    try:
        # Both set the webhook, each once it serves the port: the second binds the port the
        # first already serves (SO_REUSEPORT) instead of failing.
        wait_for("both workers set the webhook", lambda: len(api.of("setWebhook")) == 2)
        assert [w.poll() for w in workers] == [None, None]
        assert api.webhook is not None and api.webhook["url"] == url

        def post(update_id: int, who: int, text: str) -> None:
            update = {"update_id": update_id, "message": api.new_message(GROUP, who, text)}
            assert post_update(url, TOKEN, update) == 200

        post(1, ADA, "/join")
        wait_for("Ada's /join", lambda: any("Ada sits down." in t for t in lobby_texts()))
        post(2, BOB, "/join")
        wait_for("Bob's /join", lambda: any("Bob sits down." in t for t in lobby_texts()))
        for update_id in range(3, 9):  # each a connection of its own, to either worker
            post(update_id, BOB, "/rules")
        wait_for("six answers to /rules", lambda: len(api.sent(GROUP, "sendMessage")) >= 7)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        outputs = [worker.communicate(timeout=PATIENCE) for worker in workers]
    assert [w.returncode for w in workers] == [0, 0], outputs
    # Both stopped cleanly, which they do only once every update they took is handled: an
    # update handled twice shows now. One lobby message (edited in place as Bob sat down),
    # six answers to six /rules.
    assert len(api.sent(GROUP, "sendMessage")) == 7
    assert sum(t.startswith("Ada sits down.") for t in lobby_texts()) == 1
    assert sum(t.startswith("Bob sits down.") for t in lobby_texts()) == 1
    assert all(TOKEN not in out + err for out, err in outputs)
    store = open_store(storage)
    try:
        table = store.load(str(GROUP))
    finally:
        store.close()
    assert table is not None and [s.name for s in table.seats] == ["Ada", "Bob"]
