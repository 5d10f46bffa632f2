"""The container and the service unit (issue 28): what can be tried without a Docker daemon
is tried here on every run.

- ``Dockerfile``: its steps as a script: the checkout copied as its COPY steps say, its
  install step run in a fresh virtual environment, then its CMD with its ENV (no token:
  the console), answering its HEALTHCHECK. Where a Docker daemon answers, the image is
  built and run until Docker calls it healthy; elsewhere that one test is skipped, saying
  so.
- ``compose.yaml``: valid YAML, PostgreSQL and two bot processes on it, every
  ``GENIAL_<SECTION>__<KEY>`` a setting the bot accepts, no secret written in it.
- ``deploy/genial-bot.service``: ``systemd-analyze verify`` finds nothing to say.
- What restarts what (issue 43): the unit, the compose file, the image and
  docs/operating.md's table of exit statuses say the same.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml

from bot.core.config import load_settings
from tests.patience import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[1]


def instructions(path: Path) -> list[tuple[str, str]]:
    """A Dockerfile's instructions (word, rest), continuation lines joined, comments out."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def exec_form(rest: str) -> list[str]:
    """A JSON-array instruction (CMD, HEALTHCHECK's CMD) as its argument list."""
    import json

    args = json.loads(rest)
    assert isinstance(args, list) and all(isinstance(a, str) for a in args)
    return args


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


DOCKERFILE = instructions(ROOT / "Dockerfile")


def one(word: str) -> str:
    (rest,) = [r for w, r in DOCKERFILE if w == word]
    return rest


def environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in DOCKERFILE:
        if word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def test_the_image_runs_as_a_user_of_its_own_with_the_store_on_a_volume() -> None:
    assert re.fullmatch(r"python:3\.1[1-9]-slim", one("FROM"))
    user = one("USER")
    assert user not in ("root", "0")
    runs = [r for w, r in DOCKERFILE if w == "RUN"]
    assert any("useradd --system --uid 10001 --user-group" in r and r.endswith(user) for r in runs)
    (volume,) = shlex.split(one("VOLUME"))
    assert Path(environment()["GENIAL_BOT__STORAGE"]).parent == Path(volume)
    healthcheck = one("HEALTHCHECK")
    assert "/healthz" in healthcheck and f":{environment()['GENIAL_METRICS__PORT']}/" in healthcheck
    # The copied parts are what the package is made of: the bot installs from them alone.
    copied = [name for w, r in DOCKERFILE if w == "COPY" for name in shlex.split(r)[:-1]]
    assert {"engine", "render", "bot", "pyproject.toml", "README.md"} <= set(copied)


def test_the_dockerfiles_steps_run_as_a_script(tmp_path: Path) -> None:
    """COPY, the install RUN in a fresh virtual environment, then CMD with the ENV: the bot
    starts (the console, with no token) and the HEALTHCHECK's command passes."""
    prefix = "/opt/genial-bot"
    venv = tmp_path / "opt"
    src = tmp_path / "src"
    src.mkdir()
    for word, rest in DOCKERFILE:
        if word != "COPY":
            continue
        *sources, _ = shlex.split(rest)
        for name in sources:
            origin = ROOT / name
            if origin.is_dir():
                shutil.copytree(
                    origin, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
                )
            else:
                shutil.copy(origin, src / name)
    installs = [r for w, r in DOCKERFILE if w == "RUN" and r.startswith("python -m venv")]
    assert len(installs) == 1
    script = installs[0].replace(prefix, str(venv)).replace("python ", f"{sys.executable} ", 1)
    subprocess.run(["sh", "-ec", script], cwd=src, check=True, timeout=PATIENCE)

    port = free_port()
    data = tmp_path / "data"
    data.mkdir()
    env = {"HOME": str(tmp_path), "LANG": "C.UTF-8"}
    for key, value in environment().items():
        value = value.replace("$PATH", os.environ.get("PATH", "/usr/bin:/bin"))
        env[key] = value.replace(prefix, str(venv)).replace("/var/lib/genial", str(data))
    env["GENIAL_METRICS__PORT"] = str(port)
    command = exec_form(one("CMD"))
    bot = subprocess.Popen(
        command,
        env=env,
        cwd=data,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert bot.stderr is not None
        assert bot.stderr.readline().startswith("health and metrics: http://127.0.0.1:")
        check = exec_form(one("HEALTHCHECK").split(" CMD ", 1)[1])
        check = [a.replace(":9464/", f":{port}/") for a in check]

        def healthy() -> bool:
            run = subprocess.run(check, env=env, capture_output=True, timeout=PATIENCE)
            return run.returncode == 0

        # /healthz answers from the start, 503 until the store is open (issue 43).
        wait_until(healthy, "the HEALTHCHECK's command passing", interval=0.2)
        assert (data / "genial.sqlite3").is_file()
    finally:
        _, err = bot.communicate("", timeout=PATIENCE)
    assert bot.returncode == 0, err
    # And the check fails once nothing answers.
    assert subprocess.run(check, env=env, capture_output=True, timeout=PATIENCE).returncode != 0


def docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        probe = subprocess.run(["docker", "info"], capture_output=True, timeout=PATIENCE)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def test_the_image_builds_and_is_healthy() -> None:
    if not docker_answers():
        pytest.skip("no Docker daemon answers here (docker info): the image was not built")
    tag = f"genial-bot-test:{uuid.uuid4().hex[:8]}"
    subprocess.run(["docker", "build", "-t", tag, str(ROOT)], check=True, timeout=PATIENCE)
    # No token: the console, kept open by -i, serving /healthz inside the container.
    run = subprocess.run(
        ["docker", "run", "-d", "-i", tag], capture_output=True, text=True, check=True
    )
    container = run.stdout.strip()
    try:

        def status() -> str:
            return subprocess.run(
                ["docker", "inspect", "--format", "{{.State.Health.Status}}", container],
                capture_output=True,
                text=True,
            ).stdout.strip()

        wait_until(lambda: status() in ("healthy", "unhealthy"), "Docker's health check")
        assert status() == "healthy"
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)


COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SAMPLE = {
    "GENIAL_TELEGRAM_TOKEN": "123:abc",
    "POSTGRES_PASSWORD": "pw",
    "WEBHOOK_URL": "https://bot.example.org/genial",
}


def substituted(value: str) -> str:
    """``${NAME:?why}`` as compose fills it in from ``.env``."""
    return re.sub(r"\$\{(\w+)(:[?-][^}]*)?\}", lambda m: SAMPLE[m.group(1)], value)


def test_compose_runs_two_bots_on_one_postgresql() -> None:
    services = COMPOSE["services"]
    assert set(services) == {"db", "worker-1", "worker-2"}
    assert services["db"]["image"].startswith("postgres:")
    workers = [services["worker-1"], services["worker-2"]]
    storages = set()
    for worker in workers:
        assert worker["build"] == "."
        assert worker["command"] == ["genial-bot", "telegram"]
        # Only orders `docker compose up`: the bot waits for the database itself.
        assert worker["depends_on"]["db"]["condition"] == "service_started"
        assert worker["restart"] == "unless-stopped"
        env = {k: substituted(str(v)) for k, v in worker["environment"].items()}
        storages.add(env["GENIAL_BOT__STORAGE"])
        # Every setting the workers are given is one the bot accepts, as it would at start.
        settings = load_settings(None, environ=env)
        assert settings.telegram.mode == "webhook"
        assert settings.storage.startswith("postgresql://genial@db:5432/")
        assert settings.token("telegram", env) == "123:abc"
        for port in worker["ports"]:
            assert port.startswith("127.0.0.1:")
    assert len(storages) == 1  # one database for both
    text = (ROOT / "compose.yaml").read_text()
    # Secrets come from .env, never written in the file.
    assert re.findall(r"^ +\w*(?:TOKEN|PASSWORD): (\S+)", text, re.MULTILINE) == [
        "${GENIAL_TELEGRAM_TOKEN:?set",
        "${POSTGRES_PASSWORD:?set",
        "${POSTGRES_PASSWORD:?set",
    ]


def unit_lines(name: str) -> dict[str, str]:
    text = (ROOT / "deploy" / name).read_text()
    return {line.partition("=")[0]: line.partition("=")[2] for line in text.splitlines()}


UNITS = ("genial-bot.service", "genial-bot-backup.service", "genial-bot-backup.timer")
BOT = str(Path(sys.executable).parent / "genial-bot")


def test_the_systemd_units_verify(tmp_path: Path) -> None:
    lines = unit_lines("genial-bot.service")
    assert lines["Restart"] == "on-failure"
    assert lines["EnvironmentFile"] == "/etc/genial-bot/env"
    assert lines["User"] not in ("", "root")
    unit = (ROOT / "deploy" / "genial-bot.service").read_text()
    assert "TOKEN" not in unit.replace("GENIAL_TELEGRAM_TOKEN=...", "")
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here")
    # The installed bot where the units expect it: this checkout's.
    for name in UNITS:
        text = (ROOT / "deploy" / name).read_text()
        (tmp_path / name).write_text(text.replace("/opt/genial-bot/.venv/bin/genial-bot", BOT))
    result = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / n) for n in UNITS)],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert (result.returncode, result.stderr, result.stdout) == (0, "", "")


def test_the_backup_units_commands_make_a_dated_backup_and_drop_old_ones(
    tmp_path: Path,
) -> None:
    """The nightly backup's ExecStart and ExecStartPost, run as systemd would (its ``%%``
    is a ``%``), in a folder standing for /var/lib/genial."""
    import os

    from bot.store import open_store

    lines = unit_lines("genial-bot-backup.service")
    assert lines["Type"] == "oneshot"
    assert unit_lines("genial-bot-backup.timer")["Persistent"] == "true"
    state = tmp_path / "state"
    state.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[bot]\nstorage = "{state / "genial.sqlite3"}"\n')
    open_store(state / "genial.sqlite3").close()
    old = state / "backup-2000-01-01.jsonl"
    old.write_text("{}\n")
    os.utime(old, (0, 0))
    recent = state / "backup-2099-01-01.jsonl"  # younger than two weeks: kept
    recent.write_text("{}\n")

    def run(command: str) -> None:
        command = command.replace("%%", "%").replace("/opt/genial-bot/.venv/bin/genial-bot", BOT)
        command = command.replace("/etc/genial-bot/config.toml", str(config))
        command = command.replace("/var/lib/genial", str(state))
        subprocess.run(shlex.split(command), cwd=state, check=True, timeout=PATIENCE)

    run(lines["ExecStart"])
    made = sorted(p.name for p in state.glob("backup-*.jsonl"))
    (new,) = [n for n in made if n not in (old.name, recent.name)]
    assert re.fullmatch(r"backup-\d{4}-\d{2}-\d{2}\.jsonl", new)
    assert '"genial_backup": 2' in (state / new).read_text().splitlines()[0]
    run(lines["ExecStartPost"])
    assert sorted(p.name for p in state.glob("backup-*.jsonl")) == sorted([new, recent.name])


def test_the_alert_rules_name_series_the_bot_serves(tmp_path: Path) -> None:
    """Every series an alert rule of deploy/alerts.yaml reads is one /metrics serves."""
    from prometheus_client.exposition import generate_latest

    from bot.core import metrics
    from bot.operator import ops
    from bot.store import open_store

    rules = yaml.safe_load((ROOT / "deploy" / "alerts.yaml").read_text())
    (group,) = rules["groups"]
    exprs = {rule["alert"]: rule["expr"] for rule in group["rules"]}
    assert len(exprs) == 6 and all(rule["for"] for rule in group["rules"])
    metrics.record_command("play", 0.01)  # so the counters have a sample to show
    store = open_store(tmp_path / "t.db")
    operator = ops.Operator(store, "127.0.0.1", 0)
    try:
        served = generate_latest(metrics.REGISTRY).decode()
    finally:
        operator.close()
        store.close()
    series = set(re.findall(r"^(genial_\w+)", served, re.MULTILINE))
    wanted = {name for expr in exprs.values() for name in re.findall(r"\bgenial_\w+", expr)}
    assert wanted == {
        "genial_due_backlog",
        "genial_turn_seconds_bucket",
        "genial_platform_errors_total",
        "genial_commands_total",
        "genial_open_tables",
        "genial_outbox_waiting",
    }
    # Platform errors have no sample until one is counted; the family is registered.
    assert wanted - {"genial_platform_errors_total"} <= series
    families = {(m.name, m.type) for m in metrics.REGISTRY.collect()}
    assert ("genial_platform_errors", "counter") in families


def doc_section(title: str) -> str:
    text = (ROOT / "docs" / "operating.md").read_text()
    section = text.split(f"\n## {title}\n", 1)[1]
    return re.split(r"\n## ", section, maxsplit=1)[0]


def test_the_step_by_step_config_is_one_the_bot_takes(tmp_path: Path) -> None:
    """docs/operating.md's config of two processes passes the bot's own check, and its
    alert rules are the ones of deploy/alerts.yaml."""
    import textwrap
    import tomllib

    from bot.operator.tools import check_levels

    section = doc_section("From nothing to two processes on PostgreSQL")
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)
    (config,) = [textwrap.dedent(text) for kind, text in blocks if kind == "toml"]
    path = tmp_path / "config.toml"
    path.write_text(config)
    settings = load_settings(path, environ={})
    check_levels(settings)
    assert settings.telegram.mode == "webhook"
    assert (settings.metrics_port, settings.metrics_port_last) == (9464, 9465)
    assert settings.storage == "postgresql://genial@127.0.0.1:5432/genial"
    assert tomllib.loads(config)["bot"]["storage"].count(":") == 2  # no password in it
    shown = yaml.safe_load(re.findall(r"```yaml\n(.*?)```", doc_section("What to watch"), re.S)[0])
    rules = yaml.safe_load((ROOT / "deploy" / "alerts.yaml").read_text())["groups"][0]["rules"]
    for rule in shown:
        (same,) = [r for r in rules if r["alert"] == rule["alert"]]
        assert (same["expr"], same["for"]) == (rule["expr"], rule["for"])


def exit_statuses() -> tuple[list[str], dict[str, list[str]]]:
    """docs/operating.md's table of exit statuses: its header, and each status's cells."""
    lines = [
        line for line in doc_section("What restarts what").splitlines() if line.startswith("|")
    ]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    return cells[0], {row[0]: row for row in cells[2:]}


def test_the_unit_the_compose_file_the_image_and_the_docs_agree_on_restarts() -> None:
    """Exit status 2 is a setting to fix and nothing else, and only it is kept from a
    restart by the unit; what a transient outage can end in (1) is restarted everywhere; a
    late database is no exit at all; the docs say each of these as the files do."""
    header, rows = exit_statuses()
    assert set(rows) == {"0", "1", "2"}
    unit = unit_lines("genial-bot.service")
    assert unit["Restart"] == "on-failure" and f"(`Restart={unit['Restart']}`)" in header[2]
    prevented = set(unit["RestartPreventExitStatus"].split())
    assert prevented == {"2"}
    assert f"`RestartPreventExitStatus={unit['RestartPreventExitStatus']}`" in rows["2"][2]
    for status, row in rows.items():
        restarted = status != "0" and status not in prevented  # on-failure: not after 0
        assert row[2].startswith("restarts" if restarted else "does not restart"), row
    # A database the bot cannot do without is not one it is stopped with.
    text = (ROOT / "deploy" / "genial-bot.service").read_text()
    assert not re.search(r"^(Requires|BindsTo|PartOf|Requisite)=.*postgresql", text, re.M)
    assert "setting to fix" in rows["2"][1]
    assert "may mend" in rows["1"][1] and "unreachable" in rows["1"][1]
    assert "the store lost" in rows["1"][1] and "while it waits for the store" in rows["0"][1]

    policies = {name: service["restart"] for name, service in COMPOSE["services"].items()}
    # After a reboot Docker starts again only always and unless-stopped containers that
    # stopped cleanly (the shutdown's SIGTERM is status 0); on-failure ones stay down.
    assert set(policies.values()) == {"unless-stopped"}
    assert "(`restart: unless-stopped`)" in header[3]
    assert [rows[s][3].startswith("restarts") for s in ("0", "1", "2")] == [False, True, True]

    # The image: the bot itself as the first process (it gets docker stop's SIGTERM), and
    # a health check on /healthz that the workers keep, on the port they serve it on.
    assert exec_form(one("CMD")) == ["genial-bot"]
    healthcheck = one("HEALTHCHECK")
    port = environment()["GENIAL_METRICS__PORT"]
    assert f"127.0.0.1:{port}/healthz" in healthcheck
    for name in ("worker-1", "worker-2"):
        worker = COMPOSE["services"][name]
        assert "healthcheck" not in worker
        assert worker["environment"].get("GENIAL_METRICS__PORT", port) == port
        assert worker["environment"]["GENIAL_METRICS__LISTEN"] in ("0.0.0.0", "127.0.0.1")

    # The late database, as the docs tell it and the bot logs it.
    from bot.operator import waiting

    section = doc_section("What restarts what")
    line = "the store is not reachable yet ("
    assert line in section and line in Path(waiting.__file__).read_text()
    assert "store not reachable yet (try " in section
    assert "stops it at once with status 0" in section
    # The other places that tell of restarts point here.
    for title in ("Containers", "A systemd service"):
        assert "(#what-restarts-what)" in doc_section(title), title
