"""``python -m engine replay|ai|match`` (RECORD.md)."""

from __future__ import annotations

from engine.cli import main

raise SystemExit(main())
