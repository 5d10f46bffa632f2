"""The server store: tables in PostgreSQL (psycopg 3 with a connection pool), for several
bot processes on one database.

The same rules as the embedded store: every save is one transaction that succeeds only if
the table still has the version it was loaded with, so whichever process saves first wins
and the other is told :class:`StaleTable`. Due work is claimed row by row with
``FOR UPDATE SKIP LOCKED`` and a lease, so two processes never claim one table at once.

:class:`PostgresStore` is put together from one part per concern, as the SQLite store is,
each speaking through the pool (:mod:`~bot.store.postgres.connection`): the tables and
their due work (:mod:`~bot.store.postgres.tables`), the outbox
(:mod:`~bot.store.postgres.letters`), the adapters' notes (:mod:`~bot.store.postgres.notes`),
the archive of finished games, reviews and puzzles (:mod:`~bot.store.postgres.archive`),
the tournaments (:mod:`~bot.store.postgres.tournaments`) and the linked accounts
(:mod:`~bot.store.postgres.people`); the schema is :mod:`~bot.store.postgres.schema`.
"""

from __future__ import annotations

from bot.store.postgres.archive import PostgresArchive
from bot.store.postgres.connection import CONNECT_TIMEOUT, POOL_SIZE, WAIT
from bot.store.postgres.letters import LISTEN_LOOK, NUDGES, PostgresLetters
from bot.store.postgres.notes import PostgresNotes
from bot.store.postgres.people import PostgresPeople
from bot.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION
from bot.store.postgres.tables import PostgresTables
from bot.store.postgres.tournaments import PostgresTournaments

__all__ = [
    "CONNECT_TIMEOUT",
    "LISTEN_LOOK",
    "MIGRATIONS",
    "NUDGES",
    "POOL_SIZE",
    "SCHEMA_VERSION",
    "WAIT",
    "PostgresStore",
]


class PostgresStore(
    PostgresTables,
    PostgresLetters,
    PostgresNotes,
    PostgresArchive,
    PostgresTournaments,
    PostgresPeople,
):
    """Tables in a PostgreSQL database at ``url`` (``postgresql://user@host:5432/genial``)."""
