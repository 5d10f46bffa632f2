"""A PostgreSQL server that comes up after the bot, as after a reboot (issue 43): the bot
waits for it, its /healthz saying so, and serves once it is there; SIGTERM during the wait
is a clean stop. Real processes and a real server; every wait is for the thing itself,
with a ceiling of minutes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot.operator.test_waiting import get
from tests.bot.pgserver import Server, bin_dir, free_port
from tests.bot.store.test_store_down import CEILING, ROOT, _Lines

NOT_YET = "the store is not reachable yet ("


def _console(db: str, metrics: int, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "GENIAL_TELEGRAM_TOKEN": "", "GENIAL_DISCORD_TOKEN": ""}
    command = [sys.executable, "-m", "bot", "console", "--db", db, "--no-images"]
    command += ["--name", "ada", "--metrics", f"127.0.0.1:{metrics}"]
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
    )


def test_the_console_waits_for_a_server_that_starts_late(tmp_path: Path) -> None:
    binaries = bin_dir()
    if binaries is None or not (binaries / "pg_ctl").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI: no PostgreSQL server binaries")
        pytest.skip("no PostgreSQL server binaries: install PostgreSQL to test a late server")
    port, metrics = free_port(), free_port()
    console = _console(f"postgresql://postgres@127.0.0.1:{port}/genial", metrics, tmp_path)
    assert console.stdin is not None
    out, err = _Lines(console.stdout), _Lines(console.stderr)
    server: Server | None = None
    try:
        err.wait_for(NOT_YET)
        status, text = get(metrics, "/healthz")
        assert status == 503 and text.startswith("store not reachable yet (try "), text
        server = Server(port=port)  # the database comes up: the next try finds it
        out.wait_for("Genial in the terminal")
        err.wait_for("is reachable after")
        assert get(metrics, "/healthz") == (200, "ok\n")
        console.stdin.write("/join\n")
        console.stdin.flush()
        out.wait_for("sits down.")
        console.stdin.write("/quit\n")
        console.stdin.flush()
        assert console.wait(timeout=CEILING) == 0
    finally:
        if console.poll() is None:
            console.kill()
            console.wait()
        if server is not None:
            server.stop()
    text = "".join(err.seen) + "".join(out.seen)
    assert "Traceback" not in text and "genial-bot: " not in text


def test_sigterm_while_waiting_stops_at_once_with_status_0(tmp_path: Path) -> None:
    """SIGTERM in the middle of the wait between two tries (the third: 4 s) ends it there,
    not after the next try: a service manager's stop is not held up by the backoff."""
    metrics = free_port()
    console = _console(f"postgresql://postgres@127.0.0.1:{free_port()}/genial", metrics, tmp_path)
    err = _Lines(console.stderr)
    try:
        err.wait_for("(try 3,")  # waiting 4 s for the fourth
        console.send_signal(signal.SIGTERM)
        assert console.wait(timeout=CEILING) == 0
    finally:
        if console.poll() is None:
            console.kill()
            console.wait()
    err.wait_for("stopped while waiting for the store")
    tries = [line for line in err.seen if NOT_YET in line]
    assert len(tries) in (3, 4), err.seen  # 4: a machine too busy to deliver it in 4 s
    assert "Traceback" not in "".join(err.seen)
