"""A database server that restarts, or is away for a while, is a pause, not a crash
(issue 23): every command gets an answer, nothing accepted is lost or doubled, and no
traceback reaches a player or the terminal. Each test starts a PostgreSQL server of its
own, so it can restart and stop it."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from bot.core.outbound import Chat
from bot.service import Service
from bot.store.postgres import PostgresStore
from tests.bot.helpers import user
from tests.bot.pgserver import Server

ROOT = Path(__file__).resolve().parents[3]
#: The longest any wait here may take on a busy machine.
CEILING = 300.0
DOWN = "The game store is not answering; please send that again in a minute."


def test_a_service_answers_through_a_restart_and_an_outage(server: Server) -> None:
    # A command waits 1 s, not 5, for a pooled connection while the server is away: the
    # outage is answered sooner, and a live pool hands out a connection at once anyway.
    store = PostgresStore(server.url, wait=1.0)
    service = Service(store)
    chat = Chat("kitchen", "Kitchen")
    ada, bob = user("ada"), user("bob")
    service.handle(chat, ada, "/join")
    service.handle(chat, bob, "/join")
    service.handle(chat, ada, "/option lang de")
    before = service.table(chat.id)
    assert before is not None

    server.restart()  # every pooled connection is closed by the server
    out = service.handle(chat, ada, "/option hints on")
    assert out and "Traceback" not in out[0].text
    after = service.table(chat.id)
    assert after is not None and after.options.hints is True
    assert after.version == before.version + 1  # accepted once, not twice

    server.halt()
    try:
        (answer,) = service.handle(chat, ada, "/option order random")
        # The table's language (German), though the store cannot say so now.
        assert answer.text.startswith("Der Spielspeicher antwortet gerade nicht")
        assert service.due() == []  # the clock waits
        assert service.next_due() is not None  # and looks again later
    finally:
        server.resume()
    (out2,) = service.handle(chat, ada, "/option order random")
    assert "Spielspeicher" not in out2.text
    final = service.table(chat.id)
    assert final is not None and final.options.order == "random"
    assert final.version == before.version + 2  # the refused command changed nothing
    store.close()


class _Lines:
    """A process's output, line by line, waited for by what it says."""

    def __init__(self, stream: object) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            for line in stream:  # type: ignore[attr-defined]
                self._queue.put(line)
            self._queue.put(None)

        threading.Thread(target=read, daemon=True).start()

    def wait_for(self, text: str) -> str:
        deadline = time.monotonic() + CEILING
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"{text!r} never came; the output was:\n{''.join(self.seen)}")


def test_a_console_lives_through_a_restart_and_an_outage(server: Server) -> None:
    # Each command waits [bot] store_wait (5 s, twice while the server is away) for a
    # pooled connection: a fifth of a second here, so the outage is not waited out.
    env = {**os.environ, "GENIAL_BOT__STORE_WAIT": "200ms"}
    console = subprocess.Popen(
        [sys.executable, "-m", "bot", "console", "--db", server.url, "--no-images"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert console.stdin is not None
    out = _Lines(console.stdout)
    err = _Lines(console.stderr)

    def say(line: str) -> None:
        assert console.stdin is not None
        console.stdin.write(line + "\n")
        console.stdin.flush()

    try:
        out.wait_for("Genial in the terminal")
        say("/join")
        out.wait_for("sits down.")
        server.restart()
        say("/option hints on")
        out.wait_for("changed the options")
        server.halt()
        try:
            say("/option order random")
            out.wait_for(DOWN)
        finally:
            server.resume()
        say("/option order random")
        out.wait_for("changed the options")
        say("/quit")
        assert console.wait(timeout=CEILING) == 0
    finally:
        if console.poll() is None:
            console.kill()
            console.wait()
    console.stderr.close()  # type: ignore[union-attr]
    text = "".join(err.seen) + "".join(out.seen)
    assert "Traceback" not in text
    assert "AdminShutdown" not in text
