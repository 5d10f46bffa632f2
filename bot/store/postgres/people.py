"""One person on two platforms (issue 49): the one-time codes ``/link`` gives and the
accounts linked as one person, as in the SQLite store."""

from __future__ import annotations

import psycopg

from bot.store.postgres.connection import PostgresConnection


class PostgresPeople(PostgresConnection):
    """Link codes and linked accounts."""

    def give_link_code(self, account: str, code: str, expires_at: float) -> bool:
        with self._connection() as conn:
            try:
                with conn.transaction():
                    conn.execute("DELETE FROM link_codes WHERE account = %s", (account,))
                    conn.execute(
                        "INSERT INTO link_codes (code, account, expires_at) VALUES (%s, %s, %s)",
                        (code, account, expires_at),
                    )
            except psycopg.errors.UniqueViolation:
                return False
        return True

    def redeem_link_code(self, code: str, now: float) -> str | None:
        with self._connection() as conn:
            row = conn.execute(
                "DELETE FROM link_codes WHERE code = %s RETURNING account, expires_at", (code,)
            ).fetchone()
        if row is None:
            return None
        return str(row[0]) if now < float(row[1]) else None

    def link(self, person: str, account: str) -> bool:
        if person == account:
            return False
        with self._connection() as conn:
            try:
                with conn.transaction():
                    conn.execute(
                        "INSERT INTO links (account, person) VALUES (%s, %s), (%s, %s)",
                        (person, person, account, person),
                    )
            except psycopg.errors.UniqueViolation:
                return False
        return True

    def unlink(self, account: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "DELETE FROM links WHERE person IN"
                " (SELECT person FROM links WHERE account = %s) RETURNING account",
                (account,),
            ).fetchall()
        return sorted(str(r[0]) for r in rows)

    def links(self) -> dict[str, str]:
        with self._connection() as conn:
            rows = conn.execute("SELECT account, person FROM links").fetchall()
        return {str(a): str(p) for a, p in rows}

    def linked(self, account: str) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT account FROM links WHERE person IN"
                " (SELECT person FROM links WHERE account = %s) ORDER BY account",
                (account,),
            ).fetchall()
        return [str(r[0]) for r in rows]
