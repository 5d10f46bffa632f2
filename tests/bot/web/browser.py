"""Headless Chromium for the browser tests: Debian's ``chromium`` package driven by
Playwright for Python (Playwright's own browser download is not used). In CI a missing
browser fails the run (``.ci/run`` installs it); elsewhere those tests are skipped, saying
what to install."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.patience import PATIENCE

CHROMIUM = os.environ.get("GENIAL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: Chromium's own pages that a headless window loads for its address bar's popup: Chromium
#: 156 builds it as a web page (WebUI) for every browser context, in a renderer of its own,
#: and that was most of the renderers' CPU in the browser tests (test_aim.py: 16.7 s of
#: Chromium's CPU with it, 7.7 s without). The tests' pages never show an address bar.
CHROME_UI_OFF = (
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,"
    "PreloadTopChromeWebUI"
)
#: A phone's screen, in CSS pixels.
PHONE = {"width": 390, "height": 844}


def chromium() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI: playwright is not installed (pip install -e '.[dev]')")
        pytest.skip("pip install playwright to run the browser tests")
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium)")
        pytest.skip("apt-get install chromium to run the browser tests")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", CHROME_UI_OFF])
        try:
            yield browser
        finally:
            browser.close()


def until(page: Any, script: str, what: str, timeout: float = PATIENCE) -> Any:
    """Ask the page ``script`` (a function) until it answers something true; no fixed
    wait. The page's policy forbids eval, so Playwright's own polling cannot be used."""
    deadline = time.monotonic() + timeout
    while True:
        got = page.evaluate(script)
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        page.wait_for_timeout(20)  # lets the page's own events run between looks


def tap_cell(page: Any, cell: str) -> None:
    """Tap ``cell`` on the board as a thumb does: where the cells are small (a phone), the
    first tap zooms to the region around it (issue 48), and the second takes the cell."""
    if page.evaluate("() => document.body.dataset.zoom") == "out":
        page.click(f'.cell[data-cell="{cell}"]')
        until(page, "() => document.body.dataset.zoom === 'in'", "the board zoomed")
    page.click(f'.cell[data-cell="{cell}"]')
