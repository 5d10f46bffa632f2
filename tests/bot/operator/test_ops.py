"""The operator's view: /healthz and /metrics over HTTP, log lines that name their table,
the [metrics] settings, and the launcher starting it beside a platform."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bot.__main__ import main, start_operator
from bot.core import metrics
from bot.core.config import ConfigError, Settings, parse_settings
from bot.core.outbound import Outbound
from bot.operator import ops
from tests.bot.backends import location, store_at
from tests.bot.helpers import START, Clock, Room, make_service
from tests.patience import PATIENCE, wait_until

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=PATIENCE) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def sample_value(name: str, **labels: str) -> float:
    value = metrics.REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


def test_health_and_figures_of_the_tables(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    playing = Room(service, "g1")
    playing.ok("Ada", "/join")
    playing.ok("Bob", "/join")
    playing.ok("Ada", "/option timeout 1h")
    playing.ok("Ada", "/start")
    Room(service, "lobby").ok("Cid", "/join")
    closed = Room(service, "gone")
    closed.ok("Dan", "/join")
    closed.ok("Dan", "/abort", admin=True)
    operator = ops.Operator(store_at(tmp_path / "t.db"), "127.0.0.1", 0, clock=clock)
    try:
        assert get(operator.port, "/healthz") == (200, "ok\n")
        status, text = get(operator.port, "/metrics")
        assert status == 200
        lines = text.splitlines()
        assert 'genial_tables{status="playing"} 1.0' in lines
        assert 'genial_tables{status="lobby"} 1.0' in lines
        assert 'genial_tables{status="closed"} 1.0' in lines
        assert "genial_open_tables 2.0" in lines
        assert "genial_due_backlog 0.0" in lines
        # What the commands said waits until a platform posted it: here nobody did.
        (waiting,) = [x for x in lines if x.startswith("genial_outbox_waiting ")]
        said = 0
        while batch := service.waiting():
            said += len(batch)
            for out in batch:
                service.delivered(out)
        assert said > 0 and waiting == f"genial_outbox_waiting {said:.1f}"
        assert "genial_outbox_waiting 0.0" in get(operator.port, "/metrics")[1].splitlines()
        service.undelivered([Outbound("g1", "Telegram did not take this", "info")])
        assert "genial_outbox_waiting 1.0" in get(operator.port, "/metrics")[1].splitlines()
        clock.now = START + 1800  # half time at g1: its reminder is due
        assert "genial_due_backlog 1.0" in get(operator.port, "/metrics")[1].splitlines()
        assert get(operator.port, "/nothing")[0] == 404
    finally:
        operator.close()


def test_commands_and_turn_times_are_counted(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    joins = sample_value("genial_commands_total", command="join")
    invalid = sample_value("genial_commands_total", command="invalid")
    turns = sample_value("genial_turn_seconds_count")
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.say("Ada", "hello there")  # not a command: counted as invalid, never as its text
    before_play = sample_value("genial_commands_total", command="play")
    room.play_turn(random.Random(1))  # the first turn of a game places a tile: a /play
    room.error(room.to_move(), "/play 99 A1 A2")  # a refused turn is a turn command too
    assert sample_value("genial_commands_total", command="join") == joins + 2
    assert sample_value("genial_commands_total", command="invalid") == invalid + 1
    assert sample_value("genial_commands_total", command="play") == before_play + 2
    assert sample_value("genial_turn_seconds_count") == turns + 2
    assert sample_value("genial_commands_total", command="hello there") == 0.0


def test_platform_errors_are_counted_by_kind(tmp_path: Path) -> None:
    operator = ops.Operator(store_at(tmp_path / "t.db"), "127.0.0.1", 0)
    try:
        before = sample_value(
            "genial_platform_errors_total", platform="telegram", kind="TimeoutError"
        )
        warned = sample_value("genial_platform_errors_total", platform="discord", kind="warning")
        try:
            raise TimeoutError("the Bot API did not answer")
        except TimeoutError:
            logging.getLogger("bot.telegram.adapter").exception("could not deliver")
        logging.getLogger("discord.gateway").warning("shard 0 reconnecting")
        logging.getLogger("bot.service").warning("not a platform's")
        after = sample_value(
            "genial_platform_errors_total", platform="telegram", kind="TimeoutError"
        )
        assert after == before + 1
        assert (
            sample_value("genial_platform_errors_total", platform="discord", kind="warning")
            == warned + 1
        )
        assert sample_value("genial_platform_errors_total", platform="bot", kind="warning") == 0
    finally:
        operator.close()


def test_health_is_refused_when_the_store_is_gone(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    operator = ops.Operator(store, "127.0.0.1", 0)
    try:
        store.close()
        status, text = get(operator.port, "/healthz")
        assert status == 503 and text.startswith("store unreachable: ")
    finally:
        operator.close()


def test_log_lines_name_their_table(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    metrics.install_table_ids()
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    room = Room(service, "chat-7")
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option timeout 1h")
    room.ok("Ada", "/start")

    def broken(chat: str, now: float, *rest: object) -> None:
        raise RuntimeError("a table that cannot be read")

    service._due_table = broken  # type: ignore[assignment,method-assign]
    with caplog.at_level(logging.ERROR, logger="bot.core.service"):
        assert service.due(START + 1800) == []
    (record,) = [r for r in caplog.records if r.name == "bot.core.service"]
    assert record.getMessage() == "[table chat-7] the due work failed"
    assert record.table == "chat-7"  # type: ignore[attr-defined]
    logging.getLogger("bot.service").warning("outside any table")
    assert caplog.records[-1].getMessage() == "outside any table"


def test_metrics_settings_are_off_by_default_and_checked() -> None:
    assert (Settings().metrics_port, Settings().metrics_listen) == (0, "127.0.0.1")
    settings = parse_settings({"metrics": {"port": 9464, "listen": "0.0.0.0"}})
    assert (settings.metrics_port, settings.metrics_listen) == (9464, "0.0.0.0")
    with pytest.raises(ConfigError, match=r"^x.toml: metrics.port must be a port number"):
        parse_settings({"metrics": {"port": "9464"}}, "x.toml")


def test_the_launcher_serves_the_configured_port(tmp_path: Path) -> None:
    from tests.bot.backends import location
    from tests.bot.pgserver import free_port

    assert start_operator(Settings(storage=location(tmp_path / "t.db"))) is None  # off
    port = free_port()
    settings = Settings(storage=location(tmp_path / "t.db"), metrics_port=port)
    operator = start_operator(settings)
    assert operator is not None
    try:
        assert get(port, "/healthz") == (200, "ok\n")
        with pytest.raises(ConfigError, match=rf"^metrics.port: cannot serve on 127.0.0.1:{port} "):
            start_operator(settings)  # the port is taken
    finally:
        operator.close()
        operator.store.close()


def two_free_ports() -> int:
    """The first of two free ports side by side, below the kernel's ephemeral range: a port
    found free is closed again before the bot binds it, and in between any process's
    outgoing connection (a PostgreSQL client's among them) may be given a port of that
    range, never one below it."""
    low = 32768
    with contextlib.suppress(OSError, ValueError):
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    rng = random.Random()
    for _ in range(1000):
        first = rng.randrange(max(1024, low - 12000), low - 1)
        with socket.socket() as a, socket.socket() as b:
            try:
                a.bind(("127.0.0.1", first))
                b.bind(("127.0.0.1", first + 1))
            except OSError:
                continue
        return first
    raise AssertionError("no two free ports side by side below the ephemeral range")


def test_processes_with_one_config_take_the_ports_of_a_range_in_turn(tmp_path: Path) -> None:
    """Webhook workers start with one config: each serves health and metrics on the first
    free port of ``metrics.port = "A-B"``; with every port taken the next one says so."""
    from tests.bot.backends import location

    first = two_free_ports()
    parsed = parse_settings({"metrics": {"port": f"{first}-{first + 1}"}})
    assert (parsed.metrics_port, parsed.metrics_port_last) == (first, first + 1)
    settings = Settings(
        storage=location(tmp_path / "t.db"), metrics_port=first, metrics_port_last=first + 1
    )
    one = start_operator(settings)
    two = start_operator(settings)
    assert one is not None and two is not None
    try:
        assert (one.port, two.port) == (first, first + 1)
        assert get(first, "/healthz") == (200, "ok\n")
        assert get(first + 1, "/healthz") == (200, "ok\n")
        where = rf"127.0.0.1:{first}-{first + 1}"
        with pytest.raises(ConfigError, match=rf"^metrics.port: cannot serve on {where} "):
            start_operator(settings)
    finally:
        for operator in (one, two):
            operator.close()
            operator.store.close()
    for bad in ("9464-", "9470-9464", "0-5", "x-y", "9464-99999"):
        with pytest.raises(ConfigError, match=r"metrics\.port must be"):
            parse_settings({"metrics": {"port": bad}})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_console_serves_health_and_metrics(tmp_path: Path) -> None:
    """``genial-bot console --metrics 127.0.0.1:PORT``: the docs' examples with no token."""
    port = free_port()
    env = {**os.environ, "GENIAL_TELEGRAM_TOKEN": "", "GENIAL_DISCORD_TOKEN": ""}
    command = [sys.executable, "-m", "bot", "console", "--db", location(tmp_path / "t.db")]
    command += ["--no-images", "--name", "ada", "--metrics", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert proc.stdin is not None and proc.stderr is not None
    try:
        line = proc.stderr.readline()
        assert line == (
            f"health and metrics: http://127.0.0.1:{port}/healthz http://127.0.0.1:{port}/metrics\n"
        )
        # Served from before the store is open (503 while it is not reachable yet, issue 43).
        wait_until(lambda: get(port, "/healthz") == (200, "ok\n"), "the store open, /healthz ok")
        proc.stdin.write("/join\n/join\n/addbot random\n")
        proc.stdin.flush()

        def counted() -> bool:
            lines = get(port, "/metrics")[1].splitlines()
            return 'genial_commands_total{command="addbot"} 1.0' in lines

        wait_until(counted, "the console's /addbot counted")
        lines = get(port, "/metrics")[1].splitlines()
        assert 'genial_commands_total{command="join"} 2.0' in lines
        assert 'genial_tables{status="lobby"} 1.0' in lines
    finally:
        _, err = proc.communicate("", timeout=PATIENCE)
    assert proc.returncode == 0, err


@pytest.mark.parametrize("value", ["9464", "127.0.0.1:", "127.0.0.1:99999", ":9464"])
def test_a_console_metrics_address_that_is_none(
    value: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["console", "--db", str(tmp_path / "t.db"), "--metrics", value]) == 2
    assert capsys.readouterr().err == (
        "genial-bot: --metrics must be a host and a port, like 127.0.0.1:9464\n"
    )
