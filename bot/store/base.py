"""The store interface: what the table service needs of any backend, and its errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.table import Table


class StaleTable(Exception):
    """The table changed since it was loaded (another command got there first)."""


class StoreError(Exception):
    """The store cannot be opened or read (a bad path, a file that is no database of ours)."""


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

    def chats(self) -> list[str]:
        """Every chat with a table."""
        ...

    def close(self) -> None: ...
