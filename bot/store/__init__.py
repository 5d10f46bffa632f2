"""Where tables live between commands and across restarts.

:class:`Store` is the small interface the service needs; :mod:`bot.store.sqlite` is the
embedded default (one file). :func:`open_store` picks the backend from the configured
location; :mod:`bot.store.postgres` keeps tables in a PostgreSQL server, so several
processes can share them.
"""

from __future__ import annotations

from pathlib import Path

from bot.store.base import DamagedTable, StaleTable, Store, StoreBusy, StoreError
from bot.store.sqlite import SQLiteStore

__all__ = [
    "URL_SCHEMES",
    "DamagedTable",
    "SQLiteStore",
    "StaleTable",
    "Store",
    "StoreBusy",
    "StoreError",
    "open_store",
]

#: How a storage location that names a PostgreSQL server begins.
URL_SCHEMES = ("postgresql://", "postgres://")


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a ``postgresql://`` URL (a server database, for several
    processes), else a file path (SQLite, the embedded default).

    Raises:
        StoreError: if it cannot be opened or is not a store of this bot.
    """
    if isinstance(location, str) and location.startswith(URL_SCHEMES):
        # Imported here: a bot on a SQLite file never loads the PostgreSQL driver.
        from bot.store.postgres import PostgresStore

        return PostgresStore(location)
    return SQLiteStore(location)
