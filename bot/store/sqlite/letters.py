"""The outbox in the SQLite file: letters kept from the commit that wrote them until a
platform delivered them, claimed by one process at a time and in order per chat; and a
listener that hears of letters another process left."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence

from bot.store.base import CLAIM_BATCH, Letter
from bot.store.sqlite.connection import BUSY_TIMEOUT, SQLiteConnection, _busy

#: Seconds between two looks of a listener (:meth:`SQLiteStore.listen`) at the file.
LISTEN_POLL = 0.25


class SQLiteLetters(SQLiteConnection):
    """The outbox, and listening for it."""

    def post(
        self, letters: Sequence[Letter], *, owner: str | None, now: float, lease: float
    ) -> list[int]:
        with self._lock, _busy(), self._immediate():
            ids = self._post(letters, owner, now, lease)
        return ids

    def letters(
        self, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[Letter]:
        # Chats another live claim holds are left out whole: their order is that owner's.
        where = "chat NOT IN (SELECT chat FROM outbox WHERE claimed_by <> ? AND claimed_until > ?)"
        params: tuple[object, ...] = (owner, now)
        if chat is not None:
            where += " AND chat = ?"
            params += (chat,)
        with self._lock, _busy(), self._immediate():
            rows = self._db.execute(
                "SELECT id, chat, since, body, attachment FROM outbox"
                f" WHERE {where} ORDER BY id LIMIT ?",
                (*params, CLAIM_BATCH),
            ).fetchall()
            self._db.executemany(
                "UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE id = ?",
                [(owner, now + lease, row[0]) for row in rows],
            )
        return [
            Letter(chat, body, None if data is None else bytes(data), int(id_), float(since))
            for id_, chat, since, body, data in rows
        ]

    def posted(self, ids: Sequence[int]) -> None:
        with self._lock, _busy():
            self._db.executemany("DELETE FROM outbox WHERE id = ?", [(i,) for i in ids])

    def unclaim(self, owner: str, ids: Sequence[int]) -> None:
        with self._lock, _busy():
            self._db.executemany(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
                " WHERE id = ? AND claimed_by = ?",
                [(i, owner) for i in ids],
            )

    def drop_letters(self, chat: str) -> None:
        with self._lock, _busy():
            self._db.execute("DELETE FROM outbox WHERE chat = ?", (chat,))

    def waiting(self) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM outbox GROUP BY chat ORDER BY MIN(id) LIMIT ?", (CLAIM_BATCH,)
            ).fetchall()
        return [r[0] for r in rows]

    def nudge(self) -> None:
        """Nothing to send: a listener sees the letters themselves (:meth:`listen`)."""

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """Wake on letters that another process left for anyone to deliver: SQLite has no
        notifications, so a thread of its own looks at the file every
        :data:`LISTEN_POLL` seconds (``data_version`` tells a commit by another
        connection; only then is the outbox read)."""
        stop = threading.Event()
        if self.path == ":memory:":
            return stop.set  # one connection: no other process to hear
        thread = threading.Thread(
            target=self._listen, args=(wake, stop), name="genial-letters", daemon=True
        )
        thread.start()
        return stop.set

    def _listen(self, wake: Callable[[], None], stop: threading.Event) -> None:
        seen: int | None = None
        db: sqlite3.Connection | None = None
        wake()  # letters may have been left before this process listened
        while not stop.wait(LISTEN_POLL):
            try:
                if db is None:
                    db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
                version = int(db.execute("PRAGMA data_version").fetchone()[0])
                if version == seen:
                    continue
                seen = version
                waits = db.execute("SELECT 1 FROM outbox WHERE claimed_by IS NULL LIMIT 1")
                if waits.fetchone() and not stop.is_set():
                    wake()
            except sqlite3.Error:
                if db is not None:
                    db.close()
                db = None  # the file away or locked: open it again at the next look
        if db is not None:
            db.close()
