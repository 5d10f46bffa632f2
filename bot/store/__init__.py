"""Where tables live between commands and across restarts.

:class:`Store` is the small interface the service needs; :mod:`bot.store.sqlite` is the
embedded default (one file). :func:`open_store` picks the backend from the configured
location; :mod:`bot.store.postgres` keeps tables in a PostgreSQL server, so several
processes can share them.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.store.base import (
    DamagedTable,
    SavedTournament,
    StaleTable,
    Store,
    StoreBusy,
    StoreDown,
    StoreError,
    safe_url,
)
from bot.store.sqlite import SQLiteStore

__all__ = [
    "URL_SCHEMES",
    "DamagedTable",
    "SQLiteStore",
    "SavedTournament",
    "StaleTable",
    "Store",
    "StoreBusy",
    "StoreDown",
    "StoreError",
    "open_store",
]

#: How a storage location that names a PostgreSQL server begins (in any case).
URL_SCHEMES = ("postgresql://", "postgres://")
#: What looks like a URL of some scheme (``pgsql://``, ``postgresql:/``): refused rather
#: than taken for a file name, so a mistyped server address never becomes a local file.
_URL_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")


def open_store(location: str | Path, *, wait: float | None = None) -> Store:
    """The store at ``location``: a ``postgresql://`` URL (a server database, for several
    processes), else a file path (SQLite, the embedded default). ``wait``: seconds a
    PostgreSQL store's command waits for a pooled connection (``[bot] store_wait``; None:
    the store's own default).

    Raises:
        StoreError: if it cannot be opened or is not a store of this bot, or if it looks
            like a URL of another scheme.
    """
    if isinstance(location, str):
        scheme, sep, rest = location.partition("://")
        if sep and f"{scheme.lower()}://" in URL_SCHEMES:
            # Imported here: a bot on a SQLite file never loads the PostgreSQL driver.
            from bot.store.postgres import PostgresStore

            url = f"{scheme.lower()}://{rest}"
            return PostgresStore(url) if wait is None else PostgresStore(url, wait=wait)
        if _URL_LIKE.match(location):
            raise StoreError(
                f"{safe_url(location)}: not a storage location; use a postgresql:// URL or a "
                "file path"
            )
    return SQLiteStore(location)
