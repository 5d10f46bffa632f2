"""Tournaments on the server (issue 30): each a row with its own version, saved with the
chats it is played from and its letters, its due work claimed like a table's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.store.base import Letter, SavedTournament, StaleTable, read_tournament
from bot.store.postgres.connection import PostgresConnection


class PostgresTournaments(PostgresConnection):
    """Tournaments, the chats they are played from, and their due work."""

    def load_tournament(self, tid: str) -> tuple[int, dict[str, Any]] | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT version, data FROM tournaments WHERE id = %s", (tid,)
            ).fetchone()
        return None if row is None else (int(row[0]), read_tournament(tid, row[1]))

    def save_tournament(
        self,
        saved: SavedTournament,
        loaded_version: int | None,
        letters: Sequence[Letter] = (),
        *,
        owner: str | None = None,
        now: float = 0.0,
        lease: float = 0.0,
    ) -> list[int]:
        data = json.dumps(saved.data, separators=(",", ":"))
        values: tuple[object, ...] = (
            saved.version,
            saved.status,
            saved.code,
            saved.due_at,
            data,
            saved.id,
        )
        if loaded_version is None:
            write = (
                "INSERT INTO tournaments (version, status, code, due_at, data, id)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
            )
        else:
            write = (
                "UPDATE tournaments SET version = %s, status = %s, code = %s, due_at = %s,"
                " data = %s WHERE id = %s AND version = %s"
            )
            values += (loaded_version,)
        until = now + lease if owner is not None else None
        with self._connection() as conn, conn.transaction():
            if conn.execute(write, values).rowcount != 1:
                raise StaleTable(saved.id)  # the transaction rolls back
            conn.execute("DELETE FROM tournament_chats WHERE tournament = %s", (saved.id,))
            if saved.chats:
                conn.execute(
                    "INSERT INTO tournament_chats (chat, tournament)"
                    " SELECT DISTINCT c, %s FROM unnest(%s::text[]) AS c ON CONFLICT DO NOTHING",
                    (saved.id, list(saved.chats)),
                )
            rows = []
            if letters:
                rows = conn.execute(
                    "INSERT INTO outbox (chat, since, body, attachment, claimed_by,"
                    " claimed_until) SELECT l.chat, %s, l.body, l.attachment, %s, %s"
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

    def tournaments_of(self, chat: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT tournament FROM tournament_chats WHERE chat = %s ORDER BY tournament",
                (chat,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def tournament_by_code(self, code: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT id FROM tournaments WHERE code = %s", (code,)).fetchone()
        return None if row is None else str(row[0])

    def tournaments_with(self, text: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id FROM tournaments WHERE strpos(data, %s) > 0 ORDER BY id", (text,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def due_tournaments(self, now: float) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id FROM tournaments WHERE due_at IS NOT NULL AND due_at <= %s"
                " ORDER BY due_at, id",
                (now,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def next_tournament_due(self) -> float | None:
        with self._connection() as conn:
            row = conn.execute("SELECT MIN(due_at) FROM tournaments").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def claim_tournaments(
        self, due_by: float, owner: str, now: float, lease: float, *, tid: str | None = None
    ) -> list[str]:
        return self._claim("tournaments", "id", due_by, owner, now, lease, tid)

    def release_tournaments(self, owner: str, ids: list[str]) -> None:
        self._release("tournaments", "id", owner, ids)
