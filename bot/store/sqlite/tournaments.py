"""Tournaments in the SQLite file (issue 30): each a row with its own version, saved with
the chats it is played from and its letters, its due work claimed like a table's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.store.base import Letter, SavedTournament, StaleTable, read_tournament
from bot.store.sqlite.connection import SQLiteConnection, _busy


class SQLiteTournaments(SQLiteConnection):
    """Tournaments, the chats they are played from, and their due work."""

    def load_tournament(self, tid: str) -> tuple[int, dict[str, Any]] | None:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT version, data FROM tournaments WHERE id = ?", (tid,)
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
        values = (saved.version, saved.status, saved.code, saved.due_at, data, saved.id)
        with self._lock, _busy(), self._immediate():
            if loaded_version is None:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO tournaments (version, status, code, due_at, data, id)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    values,
                )
            else:
                cur = self._db.execute(
                    "UPDATE tournaments SET version = ?, status = ?, code = ?, due_at = ?,"
                    " data = ? WHERE id = ? AND version = ?",
                    (*values, loaded_version),
                )
            if cur.rowcount != 1:
                self._db.execute("ROLLBACK")
                raise StaleTable(saved.id)
            self._db.execute("DELETE FROM tournament_chats WHERE tournament = ?", (saved.id,))
            self._db.executemany(
                "INSERT OR IGNORE INTO tournament_chats (chat, tournament) VALUES (?, ?)",
                [(chat, saved.id) for chat in saved.chats],
            )
            ids = self._post(letters, owner, now, lease)
        return ids

    def tournaments_of(self, chat: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT tournament FROM tournament_chats WHERE chat = ? ORDER BY tournament",
                (chat,),
            ).fetchall()
        return [r[0] for r in rows]

    def tournament_by_code(self, code: str) -> str | None:
        with self._lock, _busy():
            row = self._db.execute("SELECT id FROM tournaments WHERE code = ?", (code,)).fetchone()
        return None if row is None else str(row[0])

    def tournaments_with(self, text: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id FROM tournaments WHERE instr(data, ?) > 0 ORDER BY id", (text,)
            ).fetchall()
        return [r[0] for r in rows]

    def due_tournaments(self, now: float) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id FROM tournaments WHERE due_at IS NOT NULL AND due_at <= ?"
                " ORDER BY due_at, id",
                (now,),
            ).fetchall()
        return [r[0] for r in rows]

    def next_tournament_due(self) -> float | None:
        with self._lock, _busy():
            row = self._db.execute("SELECT MIN(due_at) FROM tournaments").fetchone()
        return None if row[0] is None else float(row[0])

    def claim_tournaments(
        self, due_by: float, owner: str, now: float, lease: float, *, tid: str | None = None
    ) -> list[str]:
        return self._claim("tournaments", "id", due_by, owner, now, lease, tid)

    def release_tournaments(self, owner: str, ids: list[str]) -> None:
        self._release("tournaments", "id", owner, ids)
