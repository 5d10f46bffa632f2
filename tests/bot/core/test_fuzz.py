"""The command fuzz in CI: a few thousand seeded random commands at several tables."""

from __future__ import annotations

import random
from pathlib import Path

from bot.core.config import Settings
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from tests.bot.fuzz import ANSWER_LIMIT, Fuzz


def test_random_commands_never_crash_and_answer_briefly(tmp_path: Path) -> None:
    clock = [1_700_000_000.0]
    service = Service(
        SQLiteStore(tmp_path / "fuzz.db"),
        # Computer players of the random level: the fuzz is about commands, not thinking.
        Settings(level="random"),
        clock=lambda: clock[0],
        rng=random.Random(16),
        pictures=False,
    )
    fuzz = Fuzz(service, random.Random(16), clock)
    result = fuzz.run(2000)
    assert result.exceptions == []
    assert result.too_long == []
    assert result.longest < ANSWER_LIMIT
    # The fuzz reached the game, not only the lobby: games began and some ended.
    assert result.games_started >= 5
    assert result.games_finished >= 1
