"""The expert level with a tiny budget for the engine tests.

Its full budget (up to about half a second a move) would make the tests that run every
level slow; a few play-outs of a few placements run every part of it (the play-outs start
from the first move here, not only near the end) in a few milliseconds. The full budget is
measured by ``benchmarks/bench_ai.py`` and the matches in ``benchmarks/AI_RESULTS.md``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.ai import genial_players, master, spezial_players
from engine.ai.genial_players import ExpertConfig, StrongConfig
from engine.ai.master import MasterConfig
from engine.ai.spezial_players import SpezialConfig, SpezialExpertConfig

QUICK_EXPERT = ExpertConfig(
    candidates=3,
    budget=30,
    depth=6,
    min_samples=2,
    max_samples=3,
    endgame=1000,
    strong=StrongConfig(candidates=4, blocks=1, replies=1),
)
QUICK_SPEZIAL_EXPERT = SpezialExpertConfig(
    pool=6, candidates=3, playouts=3, endgame=10, strong=SpezialConfig(candidates=3, replies=1)
)
#: The master level with a budget a little above the quick expert's (more candidates and
#: replies), so that tests of every level run its code quickly too.
#: The Genial master's search (engine/ai/master.py) as small: three halving rounds of a few
#: short play-outs, from the first move on.
QUICK_MASTER_SEARCH = MasterConfig(
    shortlist=5,
    budget=60,
    depth=6,
    min_samples=2,
    max_samples=6,
    endgame=1000,
    strong=StrongConfig(candidates=5, blocks=2, replies=2),
)
QUICK_SPEZIAL_MASTER = SpezialExpertConfig(
    pool=8, candidates=4, playouts=3, endgame=10, strong=SpezialConfig(candidates=4, replies=2)
)


@pytest.fixture(autouse=True)
def quick_expert(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(genial_players, "DEFAULT_EXPERT", QUICK_EXPERT)
    monkeypatch.setattr(spezial_players, "DEFAULT_SPEZIAL_EXPERT", QUICK_SPEZIAL_EXPERT)
    monkeypatch.setattr(master, "DEFAULT_MASTER_SEARCH", QUICK_MASTER_SEARCH)
    monkeypatch.setattr(spezial_players, "DEFAULT_SPEZIAL_MASTER", QUICK_SPEZIAL_MASTER)
    yield
