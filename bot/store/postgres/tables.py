"""A chat's table on the server: loaded, saved with its letters and its players index in
one statement, moved to another chat; its due work, claimed row by row with ``FOR UPDATE
SKIP LOCKED`` and a lease; and the operator's census."""

from __future__ import annotations

import json
from collections.abc import Sequence

import psycopg

from bot.store.base import Letter, StaleTable, by_person, read_table, seated, to_json
from bot.store.postgres.connection import PostgresConnection
from bot.store.table import STATUSES, Table


class PostgresTables(PostgresConnection):
    """Tables, who sits at them, and their due work."""

    def load(self, chat: str) -> Table | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT data, version FROM tables WHERE chat = %s", (chat,)
            ).fetchone()
        return None if row is None else read_table(chat, row[0], row[1])

    def load_seated(
        self, chat: str, keys: Sequence[str]
    ) -> tuple[Table | None, dict[str, dict[str, str]]]:
        # One statement sees one snapshot: the index as saved with the row's version.
        with self._connection() as conn:
            row = conn.execute(
                "SELECT t.data, t.version,"
                " (SELECT jsonb_agg(jsonb_build_array(n.chat, n.key, n.value))"
                "  FROM seated AS s JOIN notes AS n ON n.chat = s.player"
                "  AND n.key = ANY(%s)"
                "  WHERE s.chat = t.chat)"
                " FROM tables AS t WHERE t.chat = %s",
                (list(keys), chat),
            ).fetchone()
        if row is None:
            return None, {}
        return read_table(chat, row[0], row[1]), by_person(row[2] or [])

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
        values: tuple[object, ...] = (table.version, table.status, table.due_at, data, table.chat)
        if loaded_version is None:
            write = (
                "INSERT INTO tables (version, status, due_at, data, chat)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (chat) DO NOTHING RETURNING chat"
            )
        else:
            write = (
                "UPDATE tables SET version = %s, status = %s, due_at = %s, data = %s"
                " WHERE chat = %s AND version = %s RETURNING chat"
            )
            values += (loaded_version,)
        players = seated(table)
        until = now + lease if owner is not None else None
        # One statement, so one round trip and one transaction: the table, the players
        # index brought to its seats (rows of people gone deleted, new ones added) and the
        # letters, or nothing at all when the version check fails. The letters are
        # inserted in their order, so their ids grow in it.
        with self._connection() as conn:
            row = conn.execute(
                f"WITH saved AS ({write}),"
                " gone AS (DELETE FROM seated WHERE chat IN (SELECT chat FROM saved)"
                "  AND player <> ALL(%s::text[])),"
                " came AS (INSERT INTO seated (player, chat)"
                "  SELECT DISTINCT p, saved.chat FROM saved, unnest(%s::text[]) AS p"
                "  ON CONFLICT DO NOTHING),"
                " posted AS (INSERT INTO outbox"
                "  (chat, since, body, attachment, claimed_by, claimed_until)"
                "  SELECT l.chat, %s, l.body, l.attachment, %s, %s"
                "  FROM saved, unnest(%s::text[], %s::text[], %s::bytea[]) WITH ORDINALITY"
                "   AS l (chat, body, attachment, n) ORDER BY l.n RETURNING id)"
                " SELECT (SELECT count(*) FROM saved),"
                "  (SELECT array_agg(id ORDER BY id) FROM posted)",
                (
                    *values,
                    players,
                    players,
                    now,
                    owner,
                    until,
                    # Each letter to its own chat: a tournament's table speaks in its
                    # players' chats (issue 30); any other table's letters are its own.
                    [letter.chat for letter in letters],
                    [letter.body for letter in letters],
                    [letter.attachment for letter in letters],
                ),
            ).fetchone()
        if row is None or row[0] != 1:
            raise StaleTable(table.chat)
        return [int(i) for i in row[1] or []]

    def due(self, now: float) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM tables WHERE due_at IS NOT NULL AND due_at <= %s"
                " ORDER BY due_at, chat",
                (now,),
            ).fetchall()
        return [r[0] for r in rows]

    def next_due(self, after: float | None = None) -> float | None:
        with self._connection() as conn:
            if after is None:
                row = conn.execute("SELECT MIN(due_at) FROM tables").fetchone()
            else:
                row = conn.execute(
                    "SELECT MIN(due_at) FROM tables WHERE due_at > %s", (after,)
                ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def tables_with(self, text: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM tables WHERE strpos(data, %s) > 0 ORDER BY chat", (text,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def move(self, old: str, new: str) -> bool:
        with self._connection() as conn, conn.transaction():
            row = conn.execute(
                "SELECT data FROM tables WHERE chat = %s FOR UPDATE", (old,)
            ).fetchone()
            taken = conn.execute("SELECT 1 FROM tables WHERE chat = %s", (new,)).fetchone()
            if row is None or taken is not None:
                return False
            data = json.loads(row[0])
            data["chat"] = new
            try:
                with conn.transaction():  # a savepoint: the failure is undone alone
                    conn.execute(
                        "UPDATE tables SET chat = %s, data = %s WHERE chat = %s",
                        (new, json.dumps(data, separators=(",", ":")), old),
                    )
            except psycopg.errors.UniqueViolation:
                return False  # another process made a table at ``new`` meanwhile
            conn.execute("UPDATE seated SET chat = %s WHERE chat = %s", (new, old))
            conn.execute("DELETE FROM notes WHERE chat = %s", (new,))
            conn.execute("UPDATE notes SET chat = %s WHERE chat = %s", (new, old))
            conn.execute("UPDATE finished SET chat = %s WHERE chat = %s", (new, old))
            conn.execute("UPDATE outbox SET chat = %s WHERE chat = %s", (new, old))
            return True

    def chats(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute("SELECT chat FROM tables ORDER BY chat").fetchall()
        return [r[0] for r in rows]

    def playing(self, user: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chat FROM seated WHERE player = %s ORDER BY chat", (user,)
            ).fetchall()
        return [r[0] for r in rows]

    def claim(
        self, due_by: float, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[str]:
        return self._claim("tables", "chat", due_by, owner, now, lease, chat)

    def release(self, owner: str, chats: list[str]) -> None:
        self._release("tables", "chat", owner, chats)

    def claimants(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT claimed_by FROM tables WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM outbox WHERE claimed_by IS NOT NULL"
                " UNION SELECT claimed_by FROM tournaments WHERE claimed_by IS NOT NULL"
            ).fetchall()
        return sorted(str(r[0]) for r in rows)

    def release_owner(self, owner: str) -> None:
        with self._connection() as conn:
            conn.execute(
                "UPDATE tables SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = %s",
                (owner,),
            )
            conn.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = %s",
                (owner,),
            )
            conn.execute(
                "UPDATE tournaments SET claimed_by = NULL, claimed_until = NULL"
                " WHERE claimed_by = %s",
                (owner,),
            )

    def census(self, now: float) -> dict[str, int]:
        with self._connection() as conn:
            rows = conn.execute("SELECT status, COUNT(*) FROM tables GROUP BY status").fetchall()
            due = conn.execute(
                "SELECT COUNT(*) FROM tables WHERE due_at IS NOT NULL AND due_at <= %s", (now,)
            ).fetchone()
            waiting = conn.execute("SELECT COUNT(*) FROM outbox").fetchone()
        counts = {status: 0 for status in STATUSES}
        counts.update((str(status), int(n)) for status, n in rows)
        counts["due"] = 0 if due is None else int(due[0])
        return {**counts, "waiting": 0 if waiting is None else int(waiting[0])}
