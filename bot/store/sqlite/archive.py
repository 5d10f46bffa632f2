"""What the SQLite file keeps for good: finished games (ratings and statistics are rebuilt
from them), their reviews, the puzzles posted and their answers; and a person forgotten
in them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.store import forgetting
from bot.store.base import Puzzled, finished_games, puzzle_rows, reviewed_games
from bot.store.sqlite.connection import SQLiteConnection, _busy


class SQLiteArchive(SQLiteConnection):
    """Finished games, reviews and puzzles."""

    def archive(self, chat: str, finished_at: float, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock, _busy():
            self._db.execute(
                "INSERT INTO finished (chat, finished_at, data) VALUES (?, ?, ?)",
                (chat, finished_at, text),
            )

    def archived(self, chat: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT chat, finished_at, data FROM finished"
        params: tuple[str, ...] = ()
        if chat is not None:
            query += " WHERE chat = ?"
            params = (chat,)
        with self._lock, _busy():
            rows = self._db.execute(query + " ORDER BY finished_at, id", params).fetchall()
        return finished_games(rows)

    def want_review(self, chat: str, finished_at: float) -> None:
        with self._lock, _busy():
            self._db.execute(
                "INSERT OR IGNORE INTO reviews (chat, finished_at) VALUES (?, ?)",
                (chat, finished_at),
            )

    def claim_review(
        self, chat: str, owner: str, now: float, lease: float
    ) -> dict[str, Any] | None:
        with self._lock, _busy(), self._immediate() as db:
            row = db.execute(
                "SELECT r.finished_at, f.data FROM reviews AS r JOIN finished AS f"
                " ON f.chat = r.chat AND f.finished_at = r.finished_at"
                " WHERE r.chat = ? AND r.data IS NULL"
                " AND (r.claimed_until IS NULL OR r.claimed_until < ?)"
                " ORDER BY r.finished_at LIMIT 1",
                (chat, now),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE reviews SET claimed_by = ?, claimed_until = ?"
                " WHERE chat = ? AND finished_at = ?",
                (owner, now + lease, chat, row[0]),
            )
        games = finished_games([(chat, row[0], row[1])])
        return games[0] if games else None

    def save_review(self, chat: str, finished_at: float, data: dict[str, Any]) -> bool:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock, _busy():
            cur = self._db.execute(
                "UPDATE reviews SET data = ?, claimed_by = NULL, claimed_until = NULL"
                " WHERE chat = ? AND finished_at = ? AND data IS NULL",
                (text, chat, finished_at),
            )
        return cur.rowcount == 1

    def reviews(
        self, chat: str | None = None
    ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        query = (
            "SELECT f.chat, f.finished_at, f.data, r.data FROM reviews AS r JOIN finished AS f"
            " ON f.chat = r.chat AND f.finished_at = r.finished_at"
        )
        params: tuple[str, ...] = ()
        if chat is not None:
            query += " WHERE r.chat = ?"
            params = (chat,)
        with self._lock, _busy():
            rows = self._db.execute(query + " ORDER BY f.finished_at, f.id", params).fetchall()
        return reviewed_games(rows)

    def post_puzzle(self, chat: str, posted_at: float, data: dict[str, Any]) -> int:
        text = json.dumps(data, separators=(",", ":"))
        with self._lock, _busy():
            cur = self._db.execute(
                "INSERT INTO puzzles (chat, posted_at, data) VALUES (?, ?, ?)",
                (chat, posted_at, text),
            )
        return int(cur.lastrowid or 0)

    def puzzles(self, chat: str) -> list[Puzzled]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE chat = ? ORDER BY id",
                (chat,),
            ).fetchall()
        return puzzle_rows(rows)

    def puzzle(self, puzzle_id: int) -> Puzzled | None:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE id = ?", (puzzle_id,)
            ).fetchall()
        found = puzzle_rows(rows)
        return found[0] if found else None

    def close_puzzle(self, puzzle_id: int) -> bool:
        with self._lock, _busy():
            cur = self._db.execute(
                "UPDATE puzzles SET closed = 1 WHERE id = ? AND closed = 0", (puzzle_id,)
            )
        return cur.rowcount == 1

    def answer_puzzle(
        self, puzzle_id: int, player: str, name: str, solved: bool, at: float
    ) -> None:
        with self._lock, _busy():
            self._db.execute(
                "INSERT INTO puzzle_answers (puzzle, player, name, solved, at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (puzzle, player) DO UPDATE SET"
                " name = excluded.name, solved = MAX(solved, excluded.solved), at = excluded.at",
                (puzzle_id, player, name, int(solved), at),
            )

    def puzzle_answers(self, puzzle_id: int) -> list[tuple[str, str, bool]]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT player, name, solved FROM puzzle_answers WHERE puzzle = ? ORDER BY at",
                (puzzle_id,),
            ).fetchall()
        return [(str(p), str(n), bool(s)) for p, n, s in rows]

    def puzzles_solved(self, player: str) -> int:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT COUNT(*) FROM puzzle_answers WHERE player = ? AND solved = 1", (player,)
            ).fetchone()
        return int(row[0])

    def forget_player(self, user: str, alias: str, name: str, names: Sequence[str] = ()) -> int:
        with self._lock, _busy(), self._immediate() as db:
            # Their private chat (its id is theirs): everything kept there goes.
            db.execute(
                "DELETE FROM puzzle_answers"
                " WHERE puzzle IN (SELECT id FROM puzzles WHERE chat = ?)",
                (user,),
            )
            for table in forgetting.PRIVATE_CHAT_TABLES:
                db.execute(f"DELETE FROM {table} WHERE chat = ?", (user,))
            # Their link codes, and the link that holds them (issue 49).
            db.execute("DELETE FROM link_codes WHERE account = ?", (user,))
            db.execute("DELETE FROM links WHERE account = ? OR person = ?", (user, user))
            db.execute("UPDATE tournament_chats SET chat = ? WHERE chat = ?", (alias, user))
            changed = []
            for row_id, text in db.execute(
                "SELECT id, data FROM finished WHERE instr(data, ?) > 0", (json.dumps(user),)
            ).fetchall():
                new = forgetting.finished(text, user, alias, name)
                if new is not None:
                    changed.append((new, row_id))
            db.executemany("UPDATE finished SET data = ? WHERE id = ?", changed)
            notes = db.execute(
                "SELECT chat, key, value FROM notes WHERE instr(chat, ?) > 0"
                " OR instr(key, ?) > 0 OR instr(value, ?) > 0",
                (user, user, user),
            ).fetchall()
            for chat, key, value in notes:
                kept = forgetting.note(chat, key, value, user, alias)
                if kept is None:
                    db.execute("DELETE FROM notes WHERE chat = ? AND key = ?", (chat, key))
                elif kept != value:
                    db.execute(
                        "UPDATE notes SET value = ? WHERE chat = ? AND key = ?", (kept, chat, key)
                    )
            named = [n for n in names if n]
            found = " OR ".join(["instr(body, ?) > 0"] * (1 + len(named)))
            for letter_id, chat, body in db.execute(
                f"SELECT id, chat, body FROM outbox WHERE {found}",
                (json.dumps(user), *map(forgetting.in_json, named)),
            ).fetchall():
                new_body = forgetting.letter(chat, body, user, named, name)
                if new_body is None:
                    db.execute("DELETE FROM outbox WHERE id = ?", (letter_id,))
                elif new_body != body:
                    db.execute("UPDATE outbox SET body = ? WHERE id = ?", (new_body, letter_id))
            # Puzzle answers keep their count for the puzzle, under the alias.
            db.execute(
                "UPDATE puzzle_answers SET player = ?, name = ? WHERE player = ?",
                (alias, name, user),
            )
        return len(changed)
