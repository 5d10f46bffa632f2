"""The store interface: what the table service needs of any backend, and its errors."""

from __future__ import annotations

import json
from typing import Protocol

from bot.table import PLAYING, Table

#: Tables one :meth:`Store.claim` takes at most: a process works through a backlog batch by
#: batch, and others take the rest meanwhile.
CLAIM_BATCH = 50


class StaleTable(Exception):
    """The table changed since it was loaded (another command got there first)."""


class StoreError(Exception):
    """The store cannot be opened or read (a bad path, a file that is no database of ours)."""


def seated(table: Table) -> list[str]:
    """The people seated at ``table``'s running game (none when no game runs): what the
    players index holds for it."""
    if table.status != PLAYING:
        return []
    return [s.user for s in table.seats if s.user is not None]


def to_json(table: Table) -> str:
    """The table as stored: the JSON of :meth:`Table.to_dict`, written straight from the
    table's fields (``to_dict`` copies the whole game record first, a millisecond a turn).
    """
    data = {
        **vars(table),
        "seats": [vars(seat) for seat in table.seats],
        "options": vars(table.options),
    }
    return json.dumps(data, separators=(",", ":"))


class Store(Protocol):
    """What the table service needs of a store."""

    def load(self, chat: str) -> Table | None:
        """The table of a chat, or ``None`` if the chat never had one."""
        ...

    def save(self, table: Table, loaded_version: int | None) -> None:
        """Write a table in one transaction.

        Args:
            loaded_version: the version the table had when loaded, ``None`` for a new table.

        Raises:
            StaleTable: the stored table is not at ``loaded_version`` any more.
        """
        ...

    def due(self, now: float) -> list[str]:
        """The chats whose tables have something due at or before ``now``, soonest first."""
        ...

    def next_due(self) -> float | None:
        """The earliest moment any table has something due, ``None`` if none has: an
        adapter's clock sleeps until then instead of polling."""
        ...

    def note(self, chat: str, key: str) -> str | None:
        """What an adapter noted for a chat under ``key`` (a lobby's message id, a thread),
        ``None`` if nothing. Notes live beside the table, outside its version."""
        ...

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        """Note ``value`` for a chat under ``key``; ``None`` forgets it."""
        ...

    def move(self, old: str, new: str) -> bool:
        """Move a table and its notes to another chat id (a Telegram group that became a
        supergroup). False, changing nothing, if ``old`` has no table or ``new`` has one."""
        ...

    def chats(self) -> list[str]:
        """Every chat with a table."""
        ...

    def playing(self, user: str) -> list[str]:
        """The chats whose running games ``user`` has a seat in, by an index kept with
        each save (not by reading every table)."""
        ...

    def claim(
        self, due_by: float, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[str]:
        """Claim tables with something due at or before ``due_by`` for ``owner`` (one
        process) until ``now + lease``, soonest first, at most :data:`CLAIM_BATCH`: so with
        several processes on one store each due table is worked on by one of them. A
        table claimed by another owner is skipped until that claim expires (its process
        was killed); ``owner``'s own claims are renewed. ``chat`` limits this to one table.
        """
        ...

    def release(self, owner: str, chats: list[str]) -> None:
        """Give up ``owner``'s claims on ``chats`` (their due work is done)."""
        ...

    def census(self, now: float) -> dict[str, int]:
        """For the operator: how many tables are in each status (``lobby``, ``playing``,
        ``closed``), and under ``due`` how many have something due at ``now``."""
        ...

    def close(self) -> None: ...
