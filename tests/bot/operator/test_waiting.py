"""A store that cannot be reached at start is waited for (issue 43): tries after 1, 2, 4 …
up to 60 s, a log line each, the operator's /healthz saying so meanwhile; what waiting
cannot mend stops the bot at once with exit status 2. The waits here are a fake sleep's:
nothing waits on the wall clock."""

from __future__ import annotations

import logging
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.operator import ops, waiting
from bot.store import SQLiteStore, Store, StoreDown, StoreError
from bot.store.base import safe_url
from tests.patience import PATIENCE

CLOSED = "127.0.0.1:1"  # nothing listens at port 1 (serving it needs root)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


class Opener:
    """Opens the store only at the ``up``-th try; before that the server is away."""

    def __init__(self, up: int, store: Store) -> None:
        self.up = up
        self.store = store
        self.tries = 0

    def __call__(self, location: str | Path) -> Store:
        self.tries += 1
        if self.tries < self.up:
            where = safe_url(str(location))  # as the store says it: no password
            raise StoreDown(f"{where}: connection failed: Connection refused")
        return self.store


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=PATIENCE) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_waits_double_from_a_second_to_a_minute() -> None:
    delays = waiting.delays()
    assert [next(delays) for _ in range(10)] == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]


def test_a_store_away_is_tried_again_with_backoff_and_a_line_each_try(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SQLiteStore(tmp_path / "t.db")
    clock = FakeClock()
    opener = Opener(up=10, store=store)
    told: list[str] = []
    url = "postgresql://genial:s3cret@db:5432/genial"
    with caplog.at_level(logging.INFO, logger="bot.operator.waiting"):
        got = waiting.wait_for_store(
            url, opener=opener, sleep=clock.sleep, clock=clock, told=told.append
        )
    assert got is store and opener.tries == 10
    assert clock.slept == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 10
    assert lines[0] == (
        "the store is not reachable yet (postgresql://genial@db:5432/genial: connection "
        "failed: Connection refused); trying again in 1 s (try 1, 0 s so far)"
    )
    assert lines[8].endswith("trying again in 60 s (try 9, 183 s so far)")
    assert [r.levelname for r in caplog.records] == ["WARNING"] * 9 + ["INFO"]
    assert lines[9] == "the store postgresql://genial@db:5432/genial is reachable after 10 tries"
    assert "s3cret" not in "".join(lines + told)
    assert told[0] == "store not reachable yet (try 1, 0 s so far; the next in 1 s)"
    assert told[-1] == "store not reachable yet (try 9, 183 s so far; the next in 60 s)"
    store.close()


def test_a_store_there_at_once_is_opened_without_a_wait_or_a_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    with caplog.at_level(logging.INFO, logger="bot.operator.waiting"):
        store = waiting.wait_for_store(tmp_path / "t.db", sleep=clock.sleep, clock=clock)
    store.close()
    assert clock.slept == [] and caplog.records == []


def test_what_waiting_cannot_mend_is_raised_at_once(tmp_path: Path) -> None:
    clock = FakeClock()
    for location in (f"pgsql://bob@{CLOSED}/genial", f"postgresql://bob@{CLOSED}:x/genial"):
        with pytest.raises(StoreError) as caught:
            waiting.wait_for_store(location, sleep=clock.sleep, clock=clock)
        assert not isinstance(caught.value, StoreDown)
    assert clock.slept == []


def test_health_says_the_store_is_not_reachable_while_waiting(tmp_path: Path) -> None:
    """The operator's view answers during the wait: 503 with what it waits for, then 200
    once the store is there."""
    operator = ops.Operator(None, "127.0.0.1", 0)
    answers: list[tuple[int, str]] = []
    clock = FakeClock()

    def sleep(seconds: float) -> None:  # between two tries: ask /healthz as Docker would
        answers.append(get(operator.port, "/healthz"))
        answers.append(get(operator.port, "/metrics"))
        clock.sleep(seconds)

    try:
        assert get(operator.port, "/healthz") == (503, "store not reachable yet\n")
        store = waiting.wait_for_store(
            "postgresql://db/genial",
            opener=Opener(up=3, store=SQLiteStore(tmp_path / "t.db")),
            sleep=sleep,
            clock=clock,
            told=operator.waiting,
        )
        operator.ready(store)
        assert answers == [
            (503, "store not reachable yet (try 1, 0 s so far; the next in 1 s)\n"),
            (503, "store not reachable yet (try 1, 0 s so far; the next in 1 s)\n"),
            (503, "store not reachable yet (try 2, 1 s so far; the next in 2 s)\n"),
            (503, "store not reachable yet (try 2, 1 s so far; the next in 2 s)\n"),
        ]
        assert get(operator.port, "/healthz") == (200, "ok\n")
        assert get(operator.port, "/metrics")[0] == 200
    finally:
        operator.close()
        if operator.store is not None:
            operator.store.close()


def _newer_sqlite(path: Path) -> str:
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 999")
    db.commit()
    db.close()
    return str(path)


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("no_port", 'invalid port number: "99999"'),
        ("scheme", "not a storage location"),
        ("setting", "unknown setting bot.storge (did you mean bot.storage?)"),
        ("newer", "made by a newer genial-bot (schema 999)"),
    ],
)
def test_a_configuration_error_still_stops_at_once_with_status_2(
    case: str,
    why: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_wait(seconds: float) -> None:
        raise AssertionError(f"waited {seconds} s for a configuration error")

    monkeypatch.setattr(waiting, "pause", no_wait)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GENIAL_TELEGRAM_TOKEN", raising=False)
    monkeypatch.delenv("GENIAL_DISCORD_TOKEN", raising=False)
    storage = {
        "no_port": "postgresql://bob@127.0.0.1:99999/genial",
        "scheme": f"pgsql://bob@{CLOSED}/genial",
        "setting": "genial.sqlite3",
        "newer": _newer_sqlite(tmp_path / "newer.sqlite3"),
    }[case]
    key = "storge" if case == "setting" else "storage"
    (tmp_path / "config.toml").write_text(f'[bot]\n{key} = "{storage}"\n')
    assert main(["--config", "config.toml", "console", "--no-images"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("genial-bot: ") and err.count("\n") == 1 and why in err, err


def test_sigterm_or_ctrl_c_while_waiting_is_a_stop_with_status_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In the launcher: a stop that comes while it sleeps between tries (the fake sleep
    stands for the signal handler, which raises the same) ends it with status 0, the
    health server closed. A real SIGTERM: tests/bot/store/test_store_late.py."""
    slept: list[float] = []

    def stopped(seconds: float) -> None:
        slept.append(seconds)
        raise waiting.Stopped

    monkeypatch.setattr(waiting, "pause", stopped)
    monkeypatch.chdir(tmp_path)
    from tests.bot.pgserver import free_port

    port = free_port()
    url = f"postgresql://bob@{CLOSED}/genial"
    args = ["console", "--db", url, "--no-images", "--metrics", f"127.0.0.1:{port}"]
    assert main(args) == 0
    assert slept == [1.0]
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("health and metrics: ")
    assert "the store is not reachable yet (" in err[1]
    assert err[2].endswith("stopped while waiting for the store")
    with pytest.raises(OSError):  # the health server is closed
        get(port, "/healthz")
