"""The tests' kept reviews (tests/bot/known_reviews.py) stand for the engine's review of a
record exactly: what a caller leaves out is the engine's default, not the wrapper's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.record import Record
from engine.review import GameReview
from tests.bot import known_reviews
from tests.bot.review_fixtures import greedy_game


def test_a_review_asked_without_samples_or_level_gets_the_engines_defaults(
    tmp_path: Path,
) -> None:
    asked: list[dict[str, Any]] = []
    review = GameReview("genial", None, 2, ("R",), (), (), (), (), None)

    def real(record: Record, **kw: Any) -> GameReview:
        asked.append(kw)
        return review

    known = known_reviews.review_game(tmp_path, real)
    record = greedy_game(players=2)
    assert known(record) == review
    assert known(record, samples=8) == review
    assert known(record, level="greedy", samples=8) == review
    # Each a question of its own, passed on as asked; asked again, the kept answer.
    assert asked == [{}, {"samples": 8}, {"level": "greedy", "samples": 8}]
    assert known(record, samples=8) == review
    assert len(asked) == 3
