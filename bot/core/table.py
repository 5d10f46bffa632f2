"""A table as the core, its concerns and the platforms name it.

The table is what the store keeps (:mod:`bot.store.table`: seats, options, the game's record,
plain data with a JSON round-trip), so it is defined under the store, which imports nothing
of the core; the core hands the same values on under this name.
"""

from __future__ import annotations

from bot.store.table import (
    CLOSED,
    LOBBY,
    MAX_SEATS,
    PLAYING,
    STATUSES,
    Options,
    Seat,
    Table,
)

__all__ = ["CLOSED", "LOBBY", "MAX_SEATS", "PLAYING", "STATUSES", "Options", "Seat", "Table"]
