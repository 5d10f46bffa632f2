"""The computer players' innermost loops in C, where they were built (issue 31).

``pip install`` compiles ``engine/ai/_kernel.c`` from source (an optional extension: a
machine without a C compiler installs without it). Where it is missing, or where
``GENIAL_PURE_PYTHON=1`` is set, :data:`kernel` is None and the players use the pure-Python
code beside each call, which gives the same values bit for bit (the same doubles added in
the same order; ``tests/engine/test_kernel.py`` checks both on many positions, and the
pinned expert moves with each). Nothing outside the standard library is imported.
"""

from __future__ import annotations

import os
from types import ModuleType

kernel: ModuleType | None
try:
    from engine.ai import _kernel as kernel
except ImportError:  # pragma: no cover - not built on this machine: pure Python
    kernel = None

if os.environ.get("GENIAL_PURE_PYTHON") == "1":
    kernel = None


def active() -> bool:
    """Whether the C loops are used."""
    return kernel is not None


__all__ = ["active", "kernel"]
