"""What adapters note beside a chat's table (a lobby's message id, a thread; a person's
settings under their user id), outside its version: a note never makes a button stale."""

from __future__ import annotations

from bot.store.sqlite.connection import SQLiteConnection, _busy


class SQLiteNotes(SQLiteConnection):
    """Notes by chat and key."""

    def note(self, chat: str, key: str) -> str | None:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT value FROM notes WHERE chat = ? AND key = ?", (chat, key)
            ).fetchone()
        return None if row is None else str(row[0])

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        with self._lock, _busy():
            if value is None:
                self._db.execute("DELETE FROM notes WHERE chat = ? AND key = ?", (chat, key))
            else:
                self._db.execute(
                    "INSERT INTO notes (chat, key, value) VALUES (?, ?, ?)"
                    " ON CONFLICT (chat, key) DO UPDATE SET value = excluded.value",
                    (chat, key, value),
                )

    def swap_note(self, chat: str, key: str, old: str | None, new: str | None) -> bool:
        with self._lock, _busy():
            db = self._db
            if old is None and new is None:
                row = db.execute(
                    "SELECT 1 FROM notes WHERE chat = ? AND key = ?", (chat, key)
                ).fetchone()
                return row is None
            if old is None:
                cur = db.execute(
                    "INSERT INTO notes (chat, key, value) VALUES (?, ?, ?)"
                    " ON CONFLICT (chat, key) DO NOTHING",
                    (chat, key, new),
                )
            elif new is None:
                cur = db.execute(
                    "DELETE FROM notes WHERE chat = ? AND key = ? AND value = ?",
                    (chat, key, old),
                )
            else:
                cur = db.execute(
                    "UPDATE notes SET value = ? WHERE chat = ? AND key = ? AND value = ?",
                    (new, chat, key, old),
                )
            return bool(cur.rowcount == 1)

    def notes_of(self, chat: str) -> dict[str, str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT key, value FROM notes WHERE chat = ? ORDER BY key", (chat,)
            ).fetchall()
        return {str(k): str(v) for k, v in rows}
