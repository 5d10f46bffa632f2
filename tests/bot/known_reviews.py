"""The service's reviews of finished games, worked out once per test run for each record.

Every game the service tests finish is reviewed as due work (``bot/reviews.py``): the
greedy player's review (``quick_reviewer``) and the search for the game's puzzle positions,
which asks the score of every legal placement of every position (a second or more a game,
most of the time of the tests that play many games). Both are pure functions of the record
(``engine/review.py``), and the tests play the same seeded games again and again: each
game on SQLite and on PostgreSQL, the same games in the console, on Telegram and on
Discord. So the answer for a record is kept in a folder the test run's processes share
(pytest-xdist's workers), and a record seen before gets the very answer the engine gave
for it; a record not seen yet is worked out by the engine (once: a process that asks for
a record another is working out waits for its answer), and a record that does not replay
raises as it does there. What the engine's review and puzzles say is tested in
``tests/engine/test_review.py``, on the engine itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from engine.record import Record
from engine.review import GameReview, Puzzle


def _key(kind: str, record: Record, *args: Any) -> str:
    data = json.dumps([kind, record.to_dict(), list(args)], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def _load(folder: Path, key: str) -> Any:
    try:
        return json.loads((folder / f"{key}.json").read_text("utf-8"))
    except FileNotFoundError:
        return None


@contextmanager
def _alone(folder: Path, key: str) -> Iterator[None]:
    """While no other process of the run works out the answer for ``key``."""
    with open(folder / f"{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _save(folder: Path, key: str, data: Any) -> None:
    """Written whole or not at all: another process may read it at any moment."""
    fd, name = tempfile.mkstemp(dir=folder, prefix=".part-")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out)
    os.replace(name, folder / f"{key}.json")


def review_game(folder: Path, real: Callable[..., GameReview]) -> Callable[..., GameReview]:
    """``engine.review.review_game``, its answers kept in ``folder``."""

    def known(record: Record, **kw: Any) -> GameReview:
        # What is not given is left to the engine's defaults, as a call of the engine's own
        # would leave it (a default of this wrapper's would hide a caller that forgot one).
        key = _key("review", record, sorted(kw.items()))
        with _alone(folder, key):
            data = _load(folder, key)
            if data is not None:
                return GameReview.from_dict(data)
            review = real(record, **kw)
            data = review.to_dict()
            # What is kept reads back as the same review, or it is not kept.
            if GameReview.from_dict(json.loads(json.dumps(data))) == review:
                _save(folder, key, data)
            return review

    return known


def find_puzzles(folder: Path, real: Callable[..., list[Puzzle]]) -> Callable[..., list[Puzzle]]:
    """``engine.review.find_puzzles``, its answers kept in ``folder``."""

    def read(data: dict[str, Any]) -> Puzzle:
        return Puzzle(**{**data, "lowest": tuple(data["lowest"])})

    def known(record: Record, *args: Any, **kw: Any) -> list[Puzzle]:
        key = _key("puzzles", record, args, sorted(kw.items()))
        with _alone(folder, key):
            data = _load(folder, key)
            if data is not None:
                return [read(p) for p in data]
            puzzles = real(record, *args, **kw)
            data = [asdict(p) for p in puzzles]
            if [read(p) for p in json.loads(json.dumps(data))] == puzzles:
                _save(folder, key, data)
            return puzzles

    return known
