"""The PostgreSQL server the store and service tests use beside SQLite.

``GENIAL_TEST_POSTGRES`` names a server's database (``.ci/run`` starts a throw-away one and
sets it); without it a throw-away server is started for the session from the installed
PostgreSQL binaries. No server at all is a failure, never a skip: the PostgreSQL store
would go untested.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.bot import backends
from tests.bot.pgserver import Server

BACKENDS = ("sqlite", "postgres")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    url = os.environ.get("GENIAL_TEST_POSTGRES")
    if url:
        yield url
        return
    if os.environ.get("CI") == "true":
        pytest.fail("CI: GENIAL_TEST_POSTGRES is not set (.ci/run starts the server)")
    try:
        server = Server()
    except FileNotFoundError as exc:
        pytest.fail(f"{exc}: install PostgreSQL or set GENIAL_TEST_POSTGRES")
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
