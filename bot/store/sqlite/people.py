"""One person on two platforms (issue 49): the one-time codes ``/link`` gives and the
accounts linked as one person."""

from __future__ import annotations

from bot.store.sqlite.connection import SQLiteConnection, _busy


class SQLitePeople(SQLiteConnection):
    """Link codes and linked accounts."""

    def give_link_code(self, account: str, code: str, expires_at: float) -> bool:
        with self._lock, _busy(), self._immediate() as db:
            if db.execute("SELECT 1 FROM link_codes WHERE code = ?", (code,)).fetchone():
                return False
            db.execute("DELETE FROM link_codes WHERE account = ?", (account,))
            db.execute(
                "INSERT INTO link_codes (code, account, expires_at) VALUES (?, ?, ?)",
                (code, account, expires_at),
            )
            return True

    def redeem_link_code(self, code: str, now: float) -> str | None:
        with self._lock, _busy(), self._immediate() as db:
            row = db.execute(
                "SELECT account, expires_at FROM link_codes WHERE code = ?", (code,)
            ).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM link_codes WHERE code = ?", (code,))
        return str(row[0]) if now < float(row[1]) else None

    def link(self, person: str, account: str) -> bool:
        with self._lock, _busy(), self._immediate() as db:
            taken = db.execute(
                "SELECT 1 FROM links WHERE account IN (?, ?)", (person, account)
            ).fetchone()
            if taken is not None or person == account:
                return False
            db.executemany(
                "INSERT INTO links (account, person) VALUES (?, ?)",
                [(person, person), (account, person)],
            )
            return True

    def unlink(self, account: str) -> list[str]:
        with self._lock, _busy(), self._immediate() as db:
            rows = db.execute(
                "SELECT account FROM links WHERE person IN"
                " (SELECT person FROM links WHERE account = ?) ORDER BY account",
                (account,),
            ).fetchall()
            accounts = [str(r[0]) for r in rows]
            db.executemany("DELETE FROM links WHERE account = ?", [(a,) for a in accounts])
        return accounts

    def links(self) -> dict[str, str]:
        with self._lock, _busy():
            rows = self._db.execute("SELECT account, person FROM links").fetchall()
        return {str(a): str(p) for a, p in rows}

    def linked(self, account: str) -> list[str]:
        with self._lock, _busy():
            rows = self._db.execute(
                "SELECT account FROM links WHERE person IN"
                " (SELECT person FROM links WHERE account = ?) ORDER BY account",
                (account,),
            ).fetchall()
        return [str(r[0]) for r in rows]
