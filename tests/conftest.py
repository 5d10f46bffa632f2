"""Shared test fixtures: where the project's shared files (rules, examples) live; a
folder the processes of one test run share; and Hypothesis settings that hold on a busy
machine."""

from __future__ import annotations

import json
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


#: The slowest tests (a minute and more of a busy machine's run, slowest first): each
#: worker of a run in several processes starts with its share of them, so that none of
#: them starts late and keeps the run going alone at its end.
SLOWEST = (
    "tests/bot/telegram/test_one_turn_one_board.py::test_every_move_of_many_games_is_one_photo",
    "tests/test_deploy.py::test_the_dockerfiles_steps_run_as_a_script",
    "tests/engine/test_review_judge.py::test_the_reviews_best_placement_is_hints_first_in",
    "tests/bot/core/test_service_states.py::test_service_in_any_order",
    "tests/bot/store/test_kills.py::test_killed_bots_lose_no_move_they_told",
    "tests/bot/discord/test_store_down.py::test_a_restart_and_an_outage_under_a_running_discord",
    "tests/bot/discord/test_team_battle.py::test_a_team_battle_between_a_telegram_group_and_a",
    "tests/bot/core/test_one_turn_one_board.py::test_every_move_of_many_games_is_one_block",
    "tests/bot/discord/test_one_turn_one_board.py::test_every_move_of_many_games_is_one_message",
    "tests/bot/store/test_store_down.py::test_a_service_answers_through_a_restart_and_an_outage",
    "tests/bot/play/test_takeback.py::test_a_record_holds_so_many_takebacks_and_no_more",
    "tests/bot/core/test_fuzz.py::test_random_commands_never_crash_and_answer_briefly",
    "tests/bot/telegram/test_kill_before_post.py::test_a_board_cut_off_by_a_kill_is_posted",
    "tests/bot/telegram/test_store_down.py::test_a_restart_and_an_outage_under_a_running_telegram",
    "tests/bot/web/test_hostile.py::test_a_slow_body_gets_408_and_the_connection_closes",
    "tests/bot/store/test_store_opening.py::test_eight_processes_opening_one_new_file_all_end_on",
    "tests/bot/store/test_store_late.py::test_the_console_waits_for_a_server_that_starts_late",
    "tests/bot/discord/test_stop.py::test_a_busy_worker_thread_does_not_hold_the_stop",
    "tests/bot/discord/test_stop.py::test_sigterm_while_the_gateway_is_retried",
)


def _slowness(item: pytest.Item) -> int | None:
    """The place of ``item`` among :data:`SLOWEST` (``None``: not among them)."""
    for place, prefix in enumerate(SLOWEST):
        if item.nodeid.startswith(prefix):
            return place
    return None


def _mutmut_durations() -> dict[str, float] | None:
    """Under mutmut, with a mutant planted: each test's time from mutmut's stats run.

    mutmut hands a mutant's tests over in no order and stops at the first that fails; run
    fastest first, a killed mutant costs its cheapest killing test, not its slowest
    (docs/mutation.md)."""
    if os.environ.get("MUTANT_UNDER_TEST", "") in ("", "stats", "fail", "list_all_tests"):
        return None
    try:
        with open("mutmut-stats.json") as stats:  # mutmut runs the tests in mutants/
            durations = json.load(stats)["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return None
    return {name: float(seconds) for name, seconds in durations.items()}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a run in several processes, each worker's first tests are its share of the slowest
    ones, dealt round the workers slowest first. pytest-xdist's ``worksteal`` hands each
    worker a run of consecutive tests at the start (the rest divided evenly among the
    workers left), and a worker with nothing left takes the end of another's; every worker
    collects, in the same order. (The browser tests still go first: tests/bot/web.)"""
    timed = _mutmut_durations()
    if timed is not None:
        items.sort(key=lambda item: timed.get(item.nodeid, float("inf")))
        return
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    slow = sorted((i for i in items if _slowness(i) is not None), key=lambda i: _slowness(i) or 0)
    if workers < 2 or not slow:
        return
    rest = iter([i for i in items if _slowness(i) is None])
    ordered: list[pytest.Item] = []
    left = len(items)
    for worker in range(workers):
        size = left // (workers - worker)
        left -= size
        share = slow[worker::workers]
        ordered += share
        ordered += [next(rest) for _ in range(max(0, size - len(share)))]
    ordered += list(rest)
    items[:] = ordered
