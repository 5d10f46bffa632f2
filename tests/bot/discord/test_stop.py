"""SIGTERM and Ctrl-C stop ``genial-bot discord`` at any moment, start-up included (issue
23): while it logs in over a network that swallows requests, while discord.py retries a
Discord that answers 502, while it retries a gateway it cannot reach, while it runs, and
while a worker thread is busy. Each time the process ends with status 0 and no traceback,
not by running out of retries (status 1) or of patience. The process talks to a Discord of
its own on 127.0.0.1 (:mod:`tests.bot.discord.local_discord`); ``benchmarks/bench_stop.py``
measures how long the stop takes."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.discord.app import HideSecret
from tests.bot.discord.local_discord import LocalDiscord, closed_port, silent_port
from tests.patience import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "MTIz.not-a-real-token.x"


class Bot:
    """``genial-bot discord`` as a process, its standard error read line by line."""

    def __init__(self, folder: Path, env: dict[str, str], storage: str | None = None) -> None:
        storage = storage or str(folder / "t.db")
        (folder / "config.toml").write_text(f'[bot]\nstorage = "{storage}"\n')
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.bot.discord.local_discord", "discord"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env, "GENIAL_DISCORD_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)},
            cwd=folder,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def _gone(self) -> str | None:
        if self.process.poll() is None:
            return None
        return f"the bot ended ({self.process.returncode}):\n{''.join(self.lines)}"

    def wait_for(self, text: str) -> None:
        wait_until(lambda: self.said(text), f"the bot to say {text!r}", alive=self._gone)

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        """Send ``sig``; the exit status."""
        self.process.send_signal(sig)
        return self.wait()

    def wait(self) -> int:
        status = self.process.wait(timeout=PATIENCE)
        self._reader.join(timeout=PATIENCE)
        return status

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def bots() -> Iterator[list[Bot]]:
    started: list[Bot] = []
    yield started
    for bot in started:
        bot.kill()


@pytest.fixture
def local() -> Iterator[list[LocalDiscord]]:
    servers: list[LocalDiscord] = []
    yield servers
    for server in servers:
        server.close()


def start(tmp_path: Path, bots: list[Bot], env: dict[str, str], storage: str | None = None) -> Bot:
    bot = Bot(tmp_path, env, storage)
    bots.append(bot)
    return bot


def assert_stopped_cleanly(bot: Bot, status: int, said: str = "stopping") -> None:
    assert status == 0, bot.text
    assert "Traceback" not in bot.text
    assert "genial-bot:" not in bot.text  # no failure line: stopped, not given up
    assert bot.said(said)


def test_sigterm_while_the_store_is_opened(tmp_path: Path, bots: list[Bot]) -> None:
    """A PostgreSQL server that takes the connection and never answers: the store waits
    10 s for it, then the launcher would try again and again (issue 43). SIGTERM in the
    middle of the connection attempt stops it."""
    sock, port = silent_port()
    sock.settimeout(PATIENCE)
    try:
        gateway = f"ws://127.0.0.1:{closed_port()}/gateway"
        env = {
            "GENIAL_TEST_DISCORD_API": f"http://127.0.0.1:{closed_port()}/api/v10",
            "GENIAL_TEST_DISCORD_GATEWAY": gateway,
        }
        bot = start(tmp_path, bots, env, f"postgresql://postgres@127.0.0.1:{port}/genial")
        attempt, _ = sock.accept()  # the bot connected, and waits for an answer
        try:
            assert_stopped_cleanly(bot, bot.stop(), "stopped while waiting for the store")
        finally:
            attempt.close()
    finally:
        sock.close()


def test_sigterm_while_logging_in_over_a_silent_network(tmp_path: Path, bots: list[Bot]) -> None:
    sock, port = silent_port()
    try:
        env = {
            "GENIAL_TEST_DISCORD_API": f"http://127.0.0.1:{port}/api/v10",
            "GENIAL_TEST_DISCORD_GATEWAY": f"ws://127.0.0.1:{port}/gateway",
        }
        bot = start(tmp_path, bots, env)
        bot.wait_for("logging in using static token")
        assert_stopped_cleanly(bot, bot.stop())
    finally:
        sock.close()


def test_sigterm_while_discord_py_retries_a_502(
    tmp_path: Path, bots: list[Bot], local: list[LocalDiscord]
) -> None:
    discord = LocalDiscord(status=502)
    local.append(discord)
    bot = start(tmp_path, bots, discord.env)
    # discord.py asks again after 1, 3, 5, 7 and 9 s, then gives up (status 1).
    wait_until(lambda: discord.logins >= 2, "a second try at logging in", alive=bot._gone)
    assert_stopped_cleanly(bot, bot.stop())


def test_a_503_at_start_is_one_line(
    tmp_path: Path, bots: list[Bot], local: list[LocalDiscord]
) -> None:
    discord = LocalDiscord(status=503)
    local.append(discord)
    bot = start(tmp_path, bots, discord.env)
    assert bot.wait() == 1  # Discord away, no setting to fix: a service manager restarts it
    assert bot.lines[-1] == "genial-bot: cannot reach Discord (503 Service Unavailable)\n"
    assert "Traceback" not in bot.text


def test_sigterm_while_the_gateway_is_retried(
    tmp_path: Path, bots: list[Bot], local: list[LocalDiscord]
) -> None:
    """discord.py 2.7 died of an AttributeError (a 40-line traceback, status 1) when the
    first gateway connection failed; now the bot tries again, in one line each time."""
    discord = LocalDiscord(gateway=False)
    local.append(discord)
    bot = start(tmp_path, bots, discord.env)
    bot.wait_for("cannot reach Discord's gateway yet; trying again in 2 s")  # the second time
    assert_stopped_cleanly(bot, bot.stop())
    assert bot.said("Attempting a reconnect")  # discord.py's retry, in one line


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_running_bot_stops_on_sigterm_and_ctrl_c(
    tmp_path: Path, bots: list[Bot], local: list[LocalDiscord], sig: signal.Signals
) -> None:
    discord = LocalDiscord()
    local.append(discord)
    bot = start(tmp_path, bots, discord.env)
    bot.wait_for("has connected to Gateway")
    assert_stopped_cleanly(bot, bot.stop(sig))


def test_a_busy_worker_thread_does_not_hold_the_stop(
    tmp_path: Path, bots: list[Bot], local: list[LocalDiscord]
) -> None:
    discord = LocalDiscord()
    local.append(discord)
    bot = start(tmp_path, bots, {**discord.env, "GENIAL_TEST_BUSY_WORKER": "1"})
    bot.wait_for("a worker thread is busy now")  # for an hour
    assert_stopped_cleanly(bot, bot.stop())
    assert bot.said("stopped with work under way in a worker thread, given up")


def test_only_discord_py_s_retries_lose_their_traceback() -> None:
    """A retry after a network failure is one line; an exception in one of our event
    handlers, which discord.py logs the same way, keeps its traceback."""
    formatter = HideSecret("secret-token")

    def record(msg: str, *args: object) -> logging.LogRecord:
        try:
            raise ConnectionRefusedError(111, "Connect call failed secret-token")
        except OSError:
            info = sys.exc_info()
        return logging.LogRecord("discord.client", logging.ERROR, "x", 1, msg, args, info)

    retry = formatter.format(record("Attempting a reconnect in %.2fs", 1.5))
    assert retry.splitlines() == [retry]
    assert retry.endswith(
        "WARNING discord.client: Attempting a reconnect in 1.50s (ConnectionRefusedError)"
    )
    ours = formatter.format(record("Ignoring exception in %s", "on_resumed"))
    assert "Traceback" in ours and "secret-token" not in ours and "[token]" in ours
