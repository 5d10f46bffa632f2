"""What adapters note beside a chat's table (a lobby's message id, a thread; a person's
settings under their user id), outside its version: a note never makes a button stale."""

from __future__ import annotations

from bot.store.postgres.connection import PostgresConnection


class PostgresNotes(PostgresConnection):
    """Notes by chat and key."""

    def note(self, chat: str, key: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT value FROM notes WHERE chat = %s AND key = %s", (chat, key)
            ).fetchone()
        return None if row is None else str(row[0])

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        with self._connection() as conn:
            if value is None:
                conn.execute("DELETE FROM notes WHERE chat = %s AND key = %s", (chat, key))
            else:
                conn.execute(
                    "INSERT INTO notes (chat, key, value) VALUES (%s, %s, %s)"
                    " ON CONFLICT (chat, key) DO UPDATE SET value = excluded.value",
                    (chat, key, value),
                )

    def swap_note(self, chat: str, key: str, old: str | None, new: str | None) -> bool:
        with self._connection() as conn:
            if old is None and new is None:
                row = conn.execute(
                    "SELECT 1 FROM notes WHERE chat = %s AND key = %s", (chat, key)
                ).fetchone()
                return row is None
            if old is None:
                cur = conn.execute(
                    "INSERT INTO notes (chat, key, value) VALUES (%s, %s, %s)"
                    " ON CONFLICT (chat, key) DO NOTHING",
                    (chat, key, new),
                )
            elif new is None:
                cur = conn.execute(
                    "DELETE FROM notes WHERE chat = %s AND key = %s AND value = %s",
                    (chat, key, old),
                )
            else:
                cur = conn.execute(
                    "UPDATE notes SET value = %s WHERE chat = %s AND key = %s AND value = %s",
                    (new, chat, key, old),
                )
            return bool(cur.rowcount == 1)

    def notes_of(self, chat: str) -> dict[str, str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT key, value FROM notes WHERE chat = %s ORDER BY key", (chat,)
            ).fetchall()
        return {str(k): str(v) for k, v in rows}
