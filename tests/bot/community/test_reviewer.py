"""The reviewer's process (bot/community/reviewer.py): a finished game's review is worked
out beside the bot's process, the table's due work hands it over without waiting for it,
and a review lost with its process is claimed again once its lease runs out."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import engine.review
from bot.community import reviews
from bot.community.reviewer import Reviewer
from engine.ai.judge import judge
from engine.record import Record
from engine.review import GameReview
from tests.bot.community.test_reviews import finished_room
from tests.patience import PATIENCE


def test_work_is_done_in_a_process_of_its_own() -> None:
    reviewer = Reviewer(1)
    got: list[int] = []
    try:
        assert reviewer.submit("pid", os.getpid, (), got.append)
        assert reviewer.wait(PATIENCE)
    finally:
        reviewer.close()
    assert len(got) == 1
    assert got[0] != os.getpid()


def test_work_whose_key_is_under_way_is_not_handed_over_twice() -> None:
    reviewer = Reviewer(1)
    try:
        assert reviewer.submit("game", time.sleep, (PATIENCE,), lambda _: None)
        assert not reviewer.submit("game", os.getpid, (), lambda _: None)
        assert reviewer.under_way() == 1
    finally:
        # As a stopping bot: its process ends at once, with the work it was doing.
        reviewer.close()
    assert reviewer.under_way() == 0
    assert reviewer.wait(0)


def test_the_due_step_hands_the_review_over_and_it_is_kept_when_it_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reviews, "PROCESSES", 1)  # as a bot runs (tests/bot/conftest.py: 0)
    monkeypatch.setattr(reviews, "LEVEL", "greedy")
    reviewer = reviews.reviewer(1)
    try:
        # The reviewer's process is busy for longer than any test waits: if the game's last
        # due step waited for its review, the game below would never end.
        assert reviewer.submit("another game", time.sleep, (10 * PATIENCE,), lambda _: None)
        room = finished_room(tmp_path)
        assert reviewer.under_way() == 2  # the game's review waits behind the other work
        assert room.error("Ada", "/review") == (
            "The review of the last game is not ready yet: ask again in a minute."
        )
    finally:
        reviewer.close()  # the bot stops: the review is lost with its process
    # Still claimed by this process until its lease runs out; then the table's due work
    # claims it again and a new reviewer works it out.
    reviewer = reviews.reviewer(1)
    try:
        reviews.due(room.service, "chat-1", room.service.clock())
        assert reviewer.under_way() == 0
        room.service.clock.advance(reviews.LEASE + 1)  # type: ignore[attr-defined]
        reviews.due(room.service, "chat-1", room.service.clock())
        assert reviewer.under_way() == 1
        assert reviewer.wait(PATIENCE)
    finally:
        reviewer.close()
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    assert not data.get("failed")
    # The review the bot's own process works out of the same record with the same player
    # and judge (this test's process has the quicker judge patched in: the real one here).
    record = Record.from_dict(row["record"])
    monkeypatch.setattr(engine.review, "judge", judge)
    assert GameReview.from_dict(data) == engine.review.review_game(
        record, level="greedy", samples=8
    )
    moves = len(record.moves)
    text = room.ok("Ada", "/review")[0].text
    assert text.startswith(f"The expert's review ({moves} moves):")
    assert "Ada: accuracy" in text
