"""A bot killed between the commit and the post says it after the restart, once (issue
23): on SQLite and on PostgreSQL, ``genial-bot telegram`` is SIGKILLed as it posts a move's
board (the request never reaches the fake Telegram), started again on the same store, and
the group gets that board exactly once; no other board is lost or doubled either."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.backends import location
from tests.bot.telegram.fake_api import FakeBotAPI
from tests.bot.telegram.post_kills import TOKEN, KillRun

pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    yield api
    api.close()


def test_a_board_cut_off_by_a_kill_is_posted_once_after_the_restart(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    run = KillRun(api, tmp_path, location(tmp_path / "t.db"), seed=3)
    try:
        figures = run.play(kills=3)
    finally:
        run.close()
    assert figures.kills == 3
    assert len(api.cuts) == 3  # each kill cut off a board of the group
    assert figures.lost == [] and figures.doubled == []
