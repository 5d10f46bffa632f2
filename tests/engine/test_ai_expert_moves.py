"""The cheaper expert chooses exactly the moves the expert chose before it was made cheaper.

The expected moves are in ``data/expert_moves.json``, written by running
``python -m tests.engine.expert_fixture`` on main at commit ef52061, before any of the
expert's speed work (see that module): positions from fixed games of every setup, the
expert's seed per position, and the move it chose there in record notation, with its own
budget and with the tiny budget the engine tests use (which plays out from the first move).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.ai import choose_move, genial_players, spezial_players
from engine.ai.genial_players import ExpertConfig
from engine.ai.spezial_players import SpezialExpertConfig
from tests.engine.expert_fixture import FIXTURE, move_text, positions

ENTRIES: list[dict[str, Any]] = json.loads(FIXTURE.read_text())


def _name(entry: dict[str, Any]) -> str:
    return "-".join(str(x) for x in (entry["game"], entry["players"], entry["mode"], entry["seed"]))


def _chosen(entry: dict[str, Any]) -> dict[str, str]:
    chosen = {}
    for n, game in positions(entry):
        move = choose_move(game.view(game.to_move), "expert", entry["seed"] * 1000 + n)
        chosen[str(n)] = move_text(game, move)
    return chosen


@pytest.mark.parametrize("entry", ENTRIES, ids=_name)
def test_the_expert_chooses_the_recorded_moves(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The expert's own budget, not the tiny one tests/engine/conftest.py sets.
    monkeypatch.setattr(genial_players, "DEFAULT_EXPERT", ExpertConfig())
    monkeypatch.setattr(spezial_players, "DEFAULT_SPEZIAL_EXPERT", SpezialExpertConfig())
    expected = entry["expert"]
    assert len(expected) > 5
    assert _chosen(entry) == expected


@pytest.mark.parametrize("entry", ENTRIES, ids=_name)
def test_the_quick_expert_chooses_the_recorded_moves(entry: dict[str, Any]) -> None:
    # conftest's tiny budget: play-outs from the first move, on boards still nearly empty.
    expected = entry["quick"]
    assert len(expected) > 5
    assert _chosen(entry) == expected
