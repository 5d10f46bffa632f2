"""A finished game with its review in a store, for the platforms' /review tests."""

from __future__ import annotations

import json
from pathlib import Path

from bot.store import Store
from engine.record import Record
from engine.review import GameReview, review_game


def store_reviewed_game(
    store: Store, chat: str, users: tuple[str, str], shared: Path
) -> tuple[GameReview, list[str]]:
    """Example 01 (Ada against Bob, finished) archived at ``chat`` and reviewed by the
    greedy player (quick); the review and the seats' names."""
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    names = ["Ada", "Bob"]
    seats = [{"name": n, "user": u, "level": None, "left": False} for n, u in zip(names, users)]
    row = {"chat": chat, "seats": seats, "options": {"lang": "en"}, "record": record}
    store.archive(chat, 100.0, row)
    store.want_review(chat, 100.0)
    review = review_game(Record.from_dict(record), level="greedy")
    assert store.save_review(chat, 100.0, review.to_dict())
    return review, names
