"""Shared test fixtures: where the project's shared files (rules, examples) live."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``../shared`` beside the repository (as in CI), else the workplace copy."""
    for candidate in (ROOT.parent / "shared", Path("/work/shared")):
        if (candidate / "RULES.md").exists():
            return candidate
    raise FileNotFoundError("the shared/ folder (RULES.md, examples/) is missing")


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_dir()
