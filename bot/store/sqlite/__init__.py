"""The embedded store: tables in one SQLite file (standard library ``sqlite3``).

Every save is one transaction that succeeds only if the table still has the version it
was loaded with, so two commands racing for one table (a double click, two adapter
threads) cannot both be accepted.

:class:`SQLiteStore` is put together from one part per concern, each speaking through the
connection (:mod:`~bot.store.sqlite.connection`): the tables and their due work
(:mod:`~bot.store.sqlite.tables`), the outbox (:mod:`~bot.store.sqlite.letters`), the
adapters' notes (:mod:`~bot.store.sqlite.notes`), the archive of finished games, reviews
and puzzles (:mod:`~bot.store.sqlite.archive`), the tournaments
(:mod:`~bot.store.sqlite.tournaments`) and the linked accounts
(:mod:`~bot.store.sqlite.people`); the schema is :mod:`~bot.store.sqlite.schema`.
"""

from __future__ import annotations

from bot.store.sqlite.archive import SQLiteArchive
from bot.store.sqlite.connection import BUSY_TIMEOUT
from bot.store.sqlite.letters import LISTEN_POLL, SQLiteLetters
from bot.store.sqlite.notes import SQLiteNotes
from bot.store.sqlite.people import SQLitePeople
from bot.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from bot.store.sqlite.tables import SQLiteTables
from bot.store.sqlite.tournaments import SQLiteTournaments

__all__ = ["BUSY_TIMEOUT", "LISTEN_POLL", "MIGRATIONS", "SCHEMA_VERSION", "SQLiteStore"]


class SQLiteStore(
    SQLiteTables, SQLiteLetters, SQLiteNotes, SQLiteArchive, SQLiteTournaments, SQLitePeople
):
    """Tables in one SQLite file (``:memory:`` for a throw-away store)."""
