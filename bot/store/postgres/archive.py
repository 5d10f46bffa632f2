"""What the server keeps for good: finished games (ratings and statistics are rebuilt from
them), their reviews, the puzzles posted and their answers; and a person forgotten in
them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.store import forgetting
from bot.store.base import Puzzled, finished_games, puzzle_rows, reviewed_games
from bot.store.postgres.connection import PostgresConnection


class PostgresArchive(PostgresConnection):
    """Finished games, reviews and puzzles."""

    def archive(self, chat: str, finished_at: float, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO finished (chat, finished_at, data) VALUES (%s, %s, %s)",
                (chat, finished_at, text),
            )

    def archived(self, chat: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT chat, finished_at, data FROM finished"
        params: tuple[str, ...] = ()
        if chat is not None:
            query += " WHERE chat = %s"
            params = (chat,)
        with self._connection() as conn:
            rows = conn.execute(query + " ORDER BY finished_at, id", params).fetchall()
        return finished_games(rows)

    def want_review(self, chat: str, finished_at: float) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO reviews (chat, finished_at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (chat, finished_at),
            )

    def claim_review(
        self, chat: str, owner: str, now: float, lease: float
    ) -> dict[str, Any] | None:
        with self._connection() as conn:
            # One statement: of two processes claiming at once, one gets the row.
            row = conn.execute(
                "UPDATE reviews SET claimed_by = %s, claimed_until = %s"
                " WHERE (chat, finished_at) = (SELECT chat, finished_at FROM reviews"
                "  WHERE chat = %s AND data IS NULL"
                "  AND (claimed_until IS NULL OR claimed_until < %s)"
                # Only a game the archive holds, as SQLite's join: a review wanted of
                # another would be claimed first, over and over, before every real one.
                "  AND EXISTS (SELECT 1 FROM finished AS f"
                "   WHERE f.chat = reviews.chat AND f.finished_at = reviews.finished_at)"
                "  ORDER BY finished_at LIMIT 1 FOR UPDATE SKIP LOCKED)"
                " RETURNING finished_at",
                (owner, now + lease, chat, now),
            ).fetchone()
            if row is None:
                return None
            found = conn.execute(
                "SELECT chat, finished_at, data FROM finished"
                " WHERE chat = %s AND finished_at = %s ORDER BY id LIMIT 1",
                (chat, row[0]),
            ).fetchall()
        games = finished_games(found)
        return games[0] if games else None

    def save_review(self, chat: str, finished_at: float, data: dict[str, Any]) -> bool:
        text = json.dumps(data, separators=(",", ":"))
        with self._connection() as conn:
            cur = conn.execute(
                "UPDATE reviews SET data = %s, claimed_by = NULL, claimed_until = NULL"
                " WHERE chat = %s AND finished_at = %s AND data IS NULL",
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
            query += " WHERE r.chat = %s"
            params = (chat,)
        with self._connection() as conn:
            rows = conn.execute(query + " ORDER BY f.finished_at, f.id", params).fetchall()
        return reviewed_games(rows)

    def post_puzzle(self, chat: str, posted_at: float, data: dict[str, Any]) -> int:
        text = json.dumps(data, separators=(",", ":"))
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO puzzles (chat, posted_at, data) VALUES (%s, %s, %s) RETURNING id",
                (chat, posted_at, text),
            ).fetchone()
        assert row is not None
        return int(row[0])

    def puzzles(self, chat: str) -> list[Puzzled]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE chat = %s ORDER BY id",
                (chat,),
            ).fetchall()
        return puzzle_rows(rows)

    def puzzle(self, puzzle_id: int) -> Puzzled | None:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, chat, posted_at, data, closed FROM puzzles WHERE id = %s",
                (puzzle_id,),
            ).fetchall()
        found = puzzle_rows(rows)
        return found[0] if found else None

    def close_puzzle(self, puzzle_id: int) -> bool:
        with self._connection() as conn:
            cur = conn.execute(
                "UPDATE puzzles SET closed = TRUE WHERE id = %s AND NOT closed", (puzzle_id,)
            )
            return cur.rowcount == 1

    def answer_puzzle(
        self, puzzle_id: int, player: str, name: str, solved: bool, at: float
    ) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO puzzle_answers (puzzle, player, name, solved, at)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (puzzle, player) DO UPDATE SET"
                " name = excluded.name, solved = puzzle_answers.solved OR excluded.solved,"
                " at = excluded.at",
                (puzzle_id, player, name, solved, at),
            )

    def puzzle_answers(self, puzzle_id: int) -> list[tuple[str, str, bool]]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT player, name, solved FROM puzzle_answers WHERE puzzle = %s ORDER BY at",
                (puzzle_id,),
            ).fetchall()
        return [(str(p), str(n), bool(s)) for p, n, s in rows]

    def puzzles_solved(self, player: str) -> int:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM puzzle_answers WHERE player = %s AND solved", (player,)
            ).fetchone()
        return int(row[0]) if row else 0

    def forget_player(self, user: str, alias: str, name: str, names: Sequence[str] = ()) -> int:
        named = [n for n in names if n]
        with self._connection() as conn, conn.transaction():
            # Their private chat (its id is theirs): everything kept there goes.
            conn.execute(
                "DELETE FROM puzzle_answers"
                " WHERE puzzle IN (SELECT id FROM puzzles WHERE chat = %s)",
                (user,),
            )
            for table in forgetting.PRIVATE_CHAT_TABLES:
                conn.execute(f"DELETE FROM {table} WHERE chat = %s", (user,))
            # Their link codes, and the link that holds them (issue 49).
            conn.execute("DELETE FROM link_codes WHERE account = %s", (user,))
            conn.execute("DELETE FROM links WHERE account = %s OR person = %s", (user, user))
            conn.execute("UPDATE tournament_chats SET chat = %s WHERE chat = %s", (alias, user))
            changed = []
            for row_id, text in conn.execute(
                "SELECT id, data FROM finished WHERE strpos(data, %s) > 0 FOR UPDATE",
                (json.dumps(user),),
            ).fetchall():
                new = forgetting.finished(text, user, alias, name)
                if new is not None:
                    changed.append((new, row_id))
            with conn.cursor() as cur:
                cur.executemany("UPDATE finished SET data = %s WHERE id = %s", changed)
            notes = conn.execute(
                "SELECT chat, key, value FROM notes WHERE strpos(chat, %s) > 0"
                " OR strpos(key, %s) > 0 OR strpos(value, %s) > 0 FOR UPDATE",
                (user, user, user),
            ).fetchall()
            for chat, key, value in notes:
                kept = forgetting.note(chat, key, value, user, alias)
                if kept is None:
                    conn.execute("DELETE FROM notes WHERE chat = %s AND key = %s", (chat, key))
                elif kept != value:
                    conn.execute(
                        "UPDATE notes SET value = %s WHERE chat = %s AND key = %s",
                        (kept, chat, key),
                    )
            found = " OR ".join(["strpos(body, %s) > 0"] * (1 + len(named)))
            for letter_id, chat, body in conn.execute(
                f"SELECT id, chat, body FROM outbox WHERE {found} FOR UPDATE",
                (json.dumps(user), *map(forgetting.in_json, named)),
            ).fetchall():
                new_body = forgetting.letter(chat, body, user, named, name)
                if new_body is None:
                    conn.execute("DELETE FROM outbox WHERE id = %s", (letter_id,))
                elif new_body != body:
                    conn.execute("UPDATE outbox SET body = %s WHERE id = %s", (new_body, letter_id))
            # Puzzle answers keep their count for the puzzle, under the alias.
            conn.execute(
                "UPDATE puzzle_answers SET player = %s, name = %s WHERE player = %s",
                (alias, name, user),
            )
        return len(changed)
