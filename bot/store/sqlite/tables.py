"""A chat's table in the SQLite file: loaded, saved with its letters and its players
index in one transaction, moved to another chat; its due work, claimed by one process at
a time; and the operator's census."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.store.base import Letter, StaleTable, by_person, read_table, seated, to_json
from bot.store.sqlite.connection import SQLiteConnection, _busy
from bot.store.table import STATUSES, Table


class SQLiteTables(SQLiteConnection):
    """Tables, who sits at them, and their due work."""

    def load(self, chat: str) -> Table | None:
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT data, version FROM tables WHERE chat = ?", (chat,)
            ).fetchone()
        return None if row is None else read_table(chat, row[0], row[1])

    def load_seated(
        self, chat: str, keys: Sequence[str]
    ) -> tuple[Table | None, dict[str, dict[str, str]]]:
        # One statement: the index as saved with the row's version.
        with self._lock, _busy():
            row = self._db.execute(
                "SELECT t.data, t.version,"
                " (SELECT json_group_array(json_array(n.chat, n.key, n.value))"
                "  FROM seated AS s JOIN notes AS n ON n.chat = s.player"
                "  AND n.key IN (SELECT value FROM json_each(?))"
                "  WHERE s.chat = t.chat)"
                " FROM tables AS t WHERE t.chat = ?",
                (json.dumps(list(keys)), chat),
            ).fetchone()
        if row is None:
            return None, {}
        return read_table(chat, row[0], row[1]), by_person(json.loads(row[2]) if row[2] else [])

    def save(
        self,
        table: Table,
        loaded_version: int | None,
        letters: Sequence[Letter] = (),
        *,
        owner: str | None = None,
        now: float = 0.0,
        lease: float = 0.0,
    ) -> list[int]:
        data = to_json(table)
        values = (table.version, table.status, table.due_at, data, table.chat)
        with self._lock, _busy(), self._immediate():
            if loaded_version is None:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO tables (version, status, due_at, data, chat)"
                    " VALUES (?, ?, ?, ?, ?)",
                    values,
                )
            else:
                cur = self._db.execute(
                    "UPDATE tables SET version = ?, status = ?, due_at = ?, data = ?"
                    " WHERE chat = ? AND version = ?",
                    (*values, loaded_version),
                )
            if cur.rowcount != 1:
                self._db.execute("ROLLBACK")
                raise StaleTable(table.chat)
            self._db.execute("DELETE FROM seated WHERE chat = ?", (table.chat,))
            self._db.executemany(
                "INSERT OR IGNORE INTO seated (player, chat) VALUES (?, ?)",
                [(player, table.chat) for player in seated(table)],
            )
            ids = self._post(letters, owner, now, lease)
        return ids

    def due(self, now: float) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM tables WHERE due_at IS NOT NULL AND due_at <= ?"
                " ORDER BY due_at, chat",
                (now,),
            ).fetchall()
        return [r[0] for r in rows]

    def next_due(self, after: float | None = None) -> float | None:
        with self._lock, _busy():
            if after is None:
                row = self._db.execute("SELECT MIN(due_at) FROM tables").fetchone()
            else:
                row = self._db.execute(
                    "SELECT MIN(due_at) FROM tables WHERE due_at > ?", (after,)
                ).fetchone()
        return None if row[0] is None else float(row[0])

    def tables_with(self, text: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM tables WHERE instr(data, ?) > 0 ORDER BY chat", (text,)
            ).fetchall()
        return [r[0] for r in rows]

    def move(self, old: str, new: str) -> bool:
        with self._lock, _busy(), self._immediate():
            row = self._db.execute("SELECT data FROM tables WHERE chat = ?", (old,)).fetchone()
            taken = self._db.execute("SELECT 1 FROM tables WHERE chat = ?", (new,)).fetchone()
            if row is None or taken is not None:
                self._db.execute("ROLLBACK")
                return False
            data = json.loads(row[0])
            data["chat"] = new
            self._db.execute(
                "UPDATE tables SET chat = ?, data = ? WHERE chat = ?",
                (new, json.dumps(data, separators=(",", ":")), old),
            )
            self._db.execute("UPDATE seated SET chat = ? WHERE chat = ?", (new, old))
            self._db.execute("DELETE FROM notes WHERE chat = ?", (new,))
            self._db.execute("UPDATE notes SET chat = ? WHERE chat = ?", (new, old))
            self._db.execute("UPDATE finished SET chat = ? WHERE chat = ?", (new, old))
            self._db.execute("UPDATE outbox SET chat = ? WHERE chat = ?", (new, old))
            return True

    def chats(self) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute("SELECT chat FROM tables ORDER BY chat").fetchall()
        return [r[0] for r in rows]

    def playing(self, user: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT chat FROM seated WHERE player = ? ORDER BY chat", (user,)
            ).fetchall()
        return [r[0] for r in rows]

    def claim(
        self, due_by: float, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[str]:
        return self._claim("tables", "chat", due_by, owner, now, lease, chat)

    def release(self, owner: str, chats: list[str]) -> None:
        self._release("tables", "chat", owner, chats)

    def claimants(self) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT claimed_by FROM tables WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM outbox WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM tournaments WHERE claimed_by IS NOT NULL"
            ).fetchall()
        return sorted(r[0] for r in rows)

    def release_owner(self, owner: str) -> None:
        with self._lock, _busy():
            self._db.execute(
                "UPDATE tables SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?",
                (owner,),
            )
            self._db.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?",
                (owner,),
            )
            self._db.execute(
                "UPDATE tournaments SET claimed_by = NULL, claimed_until = NULL"
                " WHERE claimed_by = ?",
                (owner,),
            )

    def census(self, now: float) -> dict[str, int]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT status, COUNT(*) FROM tables GROUP BY status"
            ).fetchall()
            due = self._db.execute(
                "SELECT COUNT(*) FROM tables WHERE due_at IS NOT NULL AND due_at <= ?", (now,)
            ).fetchone()[0]
            waiting = self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
        counts = {**{status: 0 for status in STATUSES}, **dict(rows), "due": int(due)}
        return {**counts, "waiting": int(waiting)}
