"""Where tables live between commands and across restarts.

:class:`Store` is the small interface the service needs; :mod:`bot.store.sqlite` is the
embedded default (one file). :func:`open_store` picks the backend from the configured
location, so a server database can be added beside it without touching the service.
"""

from __future__ import annotations

from pathlib import Path

from bot.store.base import DamagedTable, StaleTable, Store, StoreBusy, StoreError
from bot.store.sqlite import SQLiteStore

__all__ = [
    "DamagedTable",
    "SQLiteStore",
    "StaleTable",
    "Store",
    "StoreBusy",
    "StoreError",
    "open_store",
]


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a file path (SQLite, the embedded default).

    Raises:
        StoreError: if it cannot be opened or is not a store of this bot.
    """
    return SQLiteStore(location)
