"""The PostgreSQL server the store and service tests use beside SQLite.

``GENIAL_TEST_POSTGRES`` names a server's database (``.ci/run`` starts a throw-away one and
sets it); without it a throw-away server is started for the session from the installed
PostgreSQL binaries. In CI no server is a failure, never a skip; on a machine without
PostgreSQL (a newcomer with only Python) the PostgreSQL half is skipped, saying why.

A run in several processes (pytest-xdist) shares one server: ``GENIAL_TEST_POSTGRES``'s, or
one the first worker starts (``tests/bot/pgserver.py``); each worker works in a database
of its own on it (``genial_gw0``, ...).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine.review
from bot.operator import memory
from engine.ai.judge import judge
from render import prebuilt
from tests.bot import backends, known_reviews, pgserver
from tests.bot.pgserver import Server
from tests.bot.quick_bot import QUICK_JUDGE, QUICK_LEVEL, QUICK_SAMPLES

BACKENDS = ("sqlite", "postgres")


@pytest.fixture(autouse=True)
def unsettled(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """A bot started in this process (the launcher's tests call it) does not freeze the test
    run's objects (bot/operator/memory.py: settle, tested in processes of their own); each
    call is recorded instead."""
    calls: list[None] = []

    def settle() -> int:
        calls.append(None)
        return 0

    monkeypatch.setattr(memory, "settle", settle)
    return calls


@pytest.fixture(autouse=True)
def pieces_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot started in this process opens a file of the boards' pieces for the process
    (bot/core/images.py: prepare_pieces, render/prebuilt.py: ready), maybe one in a test's
    own folder: after the test the process takes its pieces from where it did before."""
    monkeypatch.setattr(prebuilt, "_store", prebuilt._store)
    monkeypatch.setattr(prebuilt, "_opened", prebuilt._opened)


@pytest.fixture(scope="session")
def postgres_url(run_dir: Path) -> Iterator[str]:
    url = os.environ.get("GENIAL_TEST_POSTGRES")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if url:
        yield pgserver.database_for(url, worker) if worker else url
        return
    if os.environ.get("CI") == "true":
        pytest.fail("CI: GENIAL_TEST_POSTGRES is not set (.ci/run starts the server)")
    try:
        if worker:  # the run's one server, stopped by its controller (tests/conftest.py)
            yield pgserver.database_for(pgserver.shared(run_dir), worker)
            return
        server = Server()
    except FileNotFoundError as exc:
        # A newcomer with only Python runs the README's test command: the PostgreSQL half
        # waits for a server (CI always has one, and there its absence fails the run).
        pytest.skip(f"{exc}: install PostgreSQL or set GENIAL_TEST_POSTGRES to test that store")
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test on each backend; ``tests.bot.helpers.make_service`` follows it."""
    name = request.param
    url = request.getfixturevalue("postgres_url") if name == "postgres" else None
    backends.current.update(name=name, url=url)
    try:
        yield name
    finally:
        backends.current.update(name="sqlite", url=None)
        while backends.opened:
            backends.opened.pop().close()
        if url is not None:
            backends.release(url)


@pytest.fixture
def server() -> Iterator[Server]:
    """A PostgreSQL server of the test's own, which it may restart and stop
    (``tests/bot/store/test_store_down.py``)."""
    try:
        srv = Server()
    except FileNotFoundError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: {exc}")
        pytest.skip(f"{exc}: install PostgreSQL to test a server that restarts")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def known_reviews_dir(run_dir: Path) -> Path:
    folder = run_dir / "reviews"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def unreviewed(monkeypatch: pytest.MonkeyPatch) -> None:
    """For the tests that play many games and look at nothing a review says (issue 24's
    turns): a finished game is left unreviewed. A review is worked out after the game and
    says nothing until ``/review`` asks; even the quick one is about a second of CPU a
    game, most of those tests' time. Reviews are tested in tests/engine/test_review.py and
    tests/bot/community/test_reviews.py."""
    from bot.community import reviews

    monkeypatch.setattr(reviews, "due", lambda tables, chat, now: None)


@pytest.fixture(autouse=True)
def quick_reviewer(monkeypatch: pytest.MonkeyPatch, known_reviews_dir: Path) -> Iterator[None]:
    """Every finished game is reviewed as due work (bot/community/reviews.py): with the expert's
    full budget that is seconds a game, so the service's tests review with the greedy
    player, and the review's judge picks each position's best placement with a small budget
    (:data:`QUICK_JUDGE`; the review and the judge themselves are tested in
    tests/engine/test_review.py and test_review_judge.py, the review's time measured by
    benchmarks/bench_review.py). The same seeded games are played again and again:
    each record's review and puzzles are worked out once a test run
    (``tests/bot/known_reviews.py``). Bots run in processes of their own by the tests review
    the same way (``tests/bot/quick_bot.py``)."""
    from bot.community import reviews

    monkeypatch.setattr(reviews, "LEVEL", QUICK_LEVEL)
    monkeypatch.setattr(reviews, "SAMPLES", QUICK_SAMPLES)
    # In this process, where the quicker player and judge are patched in (the reviewer's
    # own process is tested in tests/bot/community/test_reviewer.py).
    monkeypatch.setattr(reviews, "PROCESSES", 0)
    monkeypatch.setattr(engine.review, "judge", functools.partial(judge, config=QUICK_JUDGE))
    folder = known_reviews_dir
    monkeypatch.setattr(
        reviews, "review_game", known_reviews.review_game(folder, reviews.review_game)
    )
    monkeypatch.setattr(
        reviews, "find_puzzles", known_reviews.find_puzzles(folder, reviews.find_puzzles)
    )
    yield
