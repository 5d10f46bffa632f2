"""The outbox on the server: letters kept from the commit that wrote them until a platform
delivered them, claimed by one process at a time and in order per chat; and ``NOTIFY``
and ``LISTEN``, so a process hears of letters another left."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import psycopg

from bot.store.base import CLAIM_BATCH, Letter
from bot.store.postgres.connection import CONNECT_TIMEOUT, PostgresConnection

#: As the migration's lock (:mod:`~bot.store.postgres.connection`): processes claiming
#: letters of the outbox take turns at it.
_OUTBOX_LOCK = 0x67656E6A
#: The channel of :meth:`PostgresStore.nudge` (``NOTIFY``) and its listeners (``LISTEN``).
NUDGES = "genial_letters"
#: Seconds a listener waits for a notification before it looks whether to stop; and after
#: losing its connection, before it connects again.
LISTEN_LOOK = 1.0


class PostgresLetters(PostgresConnection):
    """The outbox, and the nudges about it."""

    def post(
        self, letters: Sequence[Letter], *, owner: str | None, now: float, lease: float
    ) -> list[int]:
        if not letters:
            return []
        until = now + lease if owner is not None else None
        with self._connection() as conn:
            rows = conn.execute(
                "INSERT INTO outbox (chat, since, body, attachment, claimed_by, claimed_until)"
                " SELECT l.chat, %s, l.body, l.attachment, %s, %s"
                " FROM unnest(%s::text[], %s::text[], %s::bytea[]) WITH ORDINALITY"
                "  AS l (chat, body, attachment, n) ORDER BY l.n RETURNING id",
                (
                    now,
                    owner,
                    until,
                    [letter.chat for letter in letters],
                    [letter.body for letter in letters],
                    [letter.attachment for letter in letters],
                ),
            ).fetchall()
        return sorted(int(r[0]) for r in rows)

    def letters(
        self, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[Letter]:
        where = ""
        params: tuple[object, ...] = ()
        if chat is not None:
            where = " AND chat = %s"
            params = (chat,)
        with self._connection() as conn, conn.transaction():
            # One process at a time looks for letters to claim (a transaction-scoped lock):
            # a chat's letters are then never split between two processes.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_OUTBOX_LOCK,))
            rows = conn.execute(
                "UPDATE outbox SET claimed_by = %s, claimed_until = %s WHERE id IN ("
                " SELECT id FROM outbox WHERE chat NOT IN (SELECT chat FROM outbox"
                "  WHERE claimed_by <> %s AND claimed_until > %s)"
                f" {where} ORDER BY id LIMIT %s)"
                " RETURNING id, chat, since, body, attachment",
                (owner, now + lease, owner, now, *params, CLAIM_BATCH),
            ).fetchall()
        return [
            Letter(chat, body, None if data is None else bytes(data), int(id_), float(since))
            for id_, chat, since, body, data in sorted(rows)
        ]

    def posted(self, ids: Sequence[int]) -> None:
        if not ids:
            return
        with self._connection() as conn:
            conn.execute("DELETE FROM outbox WHERE id = ANY(%s)", (list(ids),))

    def unclaim(self, owner: str, ids: Sequence[int]) -> None:
        if not ids:
            return
        with self._connection() as conn:
            conn.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
                " WHERE id = ANY(%s) AND claimed_by = %s",
                (list(ids), owner),
            )

    def drop_letters(self, chat: str) -> None:
        with self._connection() as conn:
            conn.execute("DELETE FROM outbox WHERE chat = %s", (chat,))

    def waiting(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM outbox GROUP BY chat ORDER BY MIN(id) LIMIT %s", (CLAIM_BATCH,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def nudge(self) -> None:
        with self._connection() as conn:
            conn.execute(f"NOTIFY {NUDGES}")

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """``LISTEN`` on a connection of its own, outside the pool, in a thread; after a
        server restart it connects again (and wakes, for what it may have missed)."""
        stop = threading.Event()
        thread = threading.Thread(
            target=self._listen, args=(wake, stop), name="genial-letters", daemon=True
        )
        thread.start()
        return stop.set

    def _listen(self, wake: Callable[[], None], stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                with psycopg.connect(
                    self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
                ) as conn:
                    conn.execute(f"LISTEN {NUDGES}")
                    wake()
                    while not stop.is_set():
                        for _ in conn.notifies(timeout=LISTEN_LOOK):
                            if stop.is_set():
                                break  # stopped while waiting: heard, but not told
                            wake()
            except psycopg.Error:
                stop.wait(LISTEN_LOOK)
