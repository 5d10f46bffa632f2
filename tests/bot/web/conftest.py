"""One headless Chromium for the browser tests (``browser.py``), launched by the first of
them and closed after the last of a run of consecutive ones: they run first, one after
another, so a test run starts one Chromium. Each test's pages are closed when it ends.

Playwright's synchronous API runs an event loop in the test's thread while Chromium is
open, so Chromium must be closed before a test that runs an event loop of its own
(pytest-asyncio's, ``asyncio.run``) comes."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest

from tests.bot.web.browser import chromium

#: The open Chromium, if any: Playwright's generator (closing it closes the browser and
#: stops Playwright) and the browser.
_open: list[tuple[Generator[Any, None, None], Any]] = []


def _uses_browser(item: pytest.Item | None) -> bool:
    return item is not None and "browser" in getattr(item, "fixturenames", ())


@pytest.fixture
def browser() -> Iterator[Any]:
    """The open Chromium (launched if none is); the browser contexts (and their pages) the
    test opened are closed after it."""
    if not _open:
        launch = chromium()
        _open.append((launch, next(launch)))
    browser = _open[0][1]
    before = set(browser.contexts)
    yield browser
    for context in browser.contexts:
        if context not in before:
            context.close()


def _close() -> None:
    while _open:
        launch, _ = _open.pop()
        launch.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield
    if not _uses_browser(nextitem):
        _close()


def pytest_sessionfinish() -> None:
    _close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that drive the browser go first, one after another: one Chromium serves
    them all, and the longest of them (a whole game by taps) does not start last. In a test
    run in several processes the first of them takes the run's first tests (pytest-xdist
    hands each worker a run of consecutive tests), so one Chromium serves the run."""
    items[:] = [i for i in items if _uses_browser(i)] + [i for i in items if not _uses_browser(i)]
