"""A process that leaves letters for others (a web board's own process) nudges them through
the store, so their clocks post the letters at once instead of on their next look
(docs/web.md). Each listener hears every other process's letters, on SQLite and on
PostgreSQL, and again after a server restart."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.store.base import Letter
from bot.store.postgres import PostgresStore
from tests.bot.backends import store_at
from tests.bot.pgserver import Server
from tests.patience import PATIENCE


class Ears:
    """What a listener heard: a count of wakes and an event set on each."""

    def __init__(self) -> None:
        self.heard = threading.Event()
        self.count = 0
        self._lock = threading.Lock()

    def wake(self) -> None:
        with self._lock:
            self.count += 1
        self.heard.set()

    def next(self, what: str) -> None:
        assert self.heard.wait(PATIENCE), what
        self.heard.clear()


@pytest.mark.usefixtures("backend")
def test_a_listener_hears_letters_left_by_another_process(tmp_path: Path) -> None:
    bot_side, web_side = store_at(tmp_path / "t.db"), store_at(tmp_path / "t.db")
    ears = Ears()
    stop = bot_side.listen(ears.wake)
    try:
        ears.next("a listener wakes once at its start (letters may wait already)")
        # The web board's process leaves a move's message for anyone, and says so.
        web_side.post([Letter("chat-1", '{"text": "Ann placed"}')], owner=None, now=1.0, lease=0)
        web_side.nudge()
        ears.next("the letter left by the other process is heard")
        assert [ltr.chat for ltr in bot_side.letters("bot", 2.0, 60.0)] == ["chat-1"]
    finally:
        stop()


@pytest.mark.usefixtures("backend")
def test_a_stopped_listener_hears_nothing_more(tmp_path: Path) -> None:
    bot_side, web_side = store_at(tmp_path / "t.db"), store_at(tmp_path / "t.db")
    ears = Ears()
    stop = bot_side.listen(ears.wake)
    ears.next("started")
    stop()
    # A second listener that keeps listening shows the nudge was made and heard by it.
    other = Ears()
    stop_other = bot_side.listen(other.wake)
    try:
        other.next("the second listener started")
        before = ears.count
        web_side.post([Letter("chat-2", "{}")], owner=None, now=1.0, lease=0)
        web_side.nudge()
        other.next("the second listener hears the nudge")
        assert ears.count == before
    finally:
        stop_other()


def test_a_listener_listens_again_after_a_server_restart(server: Server) -> None:
    bot_side, web_side = PostgresStore(server.url), PostgresStore(server.url)
    ears = Ears()
    stop = bot_side.listen(ears.wake)
    try:
        ears.next("started")
        server.restart()  # the listening connection is closed by the server
        ears.next("listening again after the restart (what was missed meanwhile)")
        web_side.nudge()
        ears.next("a nudge after the restart is heard")
    finally:
        stop()
        bot_side.close()
        web_side.close()
