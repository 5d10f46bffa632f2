"""Genial Spezial (RULES.md section 3). Placeholder until the Spezial engine lands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import InvalidRecord


class SpezialGame:
    def __init__(
        self, players: int, tokens: Sequence[str] | None = None, seed: int | None = None
    ) -> None:
        raise InvalidRecord("Genial Spezial records are not supported yet")

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)
