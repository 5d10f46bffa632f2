"""Shared test fixtures: where the project's shared files (rules, examples) live; a
folder the processes of one test run share; and Hypothesis settings that hold on a busy
machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's default deadline (200 ms an example) and its too-slow health check measure
# the machine, not the code: on a busy one an example takes ten times as long and the
# test fails though nothing is wrong. Neither, for every property test (CI's profile,
# which Hypothesis picks by itself there, already has neither).
settings.register_profile(
    "patient",
    settings.default,
    deadline=None,
    suppress_health_check=list(
        dict.fromkeys([*settings.default.suppress_health_check, HealthCheck.too_slow])
    ),
)
settings.load_profile("patient")

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``../shared`` beside the repository (as in CI), else the workplace copy."""
    for candidate in (ROOT.parent / "shared", Path("/work/shared")):
        if (candidate / "RULES.md").exists():
            return candidate
    raise FileNotFoundError("the shared/ folder (RULES.md, examples/) is missing")


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_dir()


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder every process of this test run shares: the run's temporary folder, in which
    each pytest-xdist worker has its own (``popen-gw0``, ...)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_folder(tmp_path_factory)


@pytest.fixture(scope="session", autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The per-user cache of this test run's processes (and the bots they start) is the
    run's own folder: a bot started by a test writes the boards' pieces there
    (render/prebuilt.py), never into the user's ~/.cache."""
    os.environ["XDG_CACHE_HOME"] = str(run_folder(tmp_path_factory) / "cache")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller of a test run in several processes stops the PostgreSQL server they
    shared (``tests/bot/pgserver.py``), once every worker is done."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    if hasattr(session.config, "workerinput") or factory is None:
        return
    from tests.bot.pgserver import stop_shared

    stop_shared(factory.getbasetemp())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the README's test command): a worker more than there are cores. Many
    tests spend seconds waiting (a PostgreSQL server restarting, SimCord settling the
    client, a bot process starting, Chromium drawing): a worker per core leaves a core idle
    then, and one more fills those gaps (on 2 cores, busy with other work: 4 min with 3
    workers against 4 min 45 s with 2, and 5 min 40 s against 7 min 20 s).
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still says how many, as pytest-xdist documents."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own reading of it
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores + 1
