"""The SQLite file and the one connection every part of the store speaks through.

Opened, brought to the current schema and checked; one write transaction at a time; a
lock held past the busy timeout told as :class:`StoreBusy`; and what more than one part
writes the same way: letters inserted inside a save, due rows claimed and released.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from bot.store.base import CLAIM_BATCH, Letter, StoreBusy, StoreError
from bot.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION, TABLES
from bot.words.texts import shown

#: Seconds a statement waits for another connection's write lock before the store
#: reports itself busy (SQLite's busy timeout).
BUSY_TIMEOUT = 10.0


def _statements(script: str) -> list[str]:
    """The statements of a migration step, to run one by one inside the caller's
    transaction (``executescript`` would commit first). The steps hold no ``;`` inside a
    string or a trigger."""
    return [part.strip() for part in script.split(";") if part.strip()]


@contextmanager
def _busy() -> Iterator[None]:
    """SQLite's "database is locked" (past the busy timeout) as :class:`StoreBusy`."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        text = str(exc).lower()
        if "locked" in text or "busy" in text:
            raise StoreBusy(str(exc)) from None
        raise


class SQLiteConnection:
    """One SQLite file, its connection shared under a lock (adapters call the service
    from a thread pool)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        """Open (and create if needed) the database.

        Raises:
            StoreError: if the file cannot be opened or is not a store of this bot.
        """
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot make its folder ({exc.strerror})") from None
        # One connection shared under a lock: adapters call the service from a thread pool.
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=busy_timeout, check_same_thread=False, isolation_level=None
            )
            if self.path != ":memory:":
                self._wal(busy_timeout)
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
            if self.path != ":memory:":
                # A damaged page answers every later read with an error: say so at start.
                check = self._db.execute("PRAGMA quick_check(1)").fetchone()[0]
                if check != "ok":
                    raise StoreError(f"{self.path}: damaged ({shown(check)})")
        except BaseException as exc:
            # Nothing left open: a file refused here is as it was (its write-ahead log
            # goes with the last connection).
            if hasattr(self, "_db"):
                self._db.close()
            if not isinstance(exc, sqlite3.DatabaseError):
                raise
            if "readonly" in str(exc).replace("-", "").replace(" ", "").lower():
                raise StoreError(
                    f"{self.path}: read-only, the bot must be able to write it"
                ) from None
            raise StoreError(f"{self.path}: {exc}") from None

    def _wal(self, patience: float) -> None:
        """Switch a file to write-ahead logging. The switch needs the file alone, and
        SQLite answers "locked" at once, without its busy timeout, while another process
        opening it reads it: so try again for up to ``patience`` seconds."""
        deadline = time.monotonic() + patience
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self) -> None:
        """Bring the schema up to date: the version is read and every step applied in one
        ``BEGIN IMMEDIATE`` transaction, so of several processes opening a file at once
        one migrates and the others find it done (never the same step twice). The version
        is written even when up to date: a file the bot cannot write is found now, not at
        the first move."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: made by a newer genial-bot (schema {version})")
            for step in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[step]):
                    db.execute(statement)
            present = {
                r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            missing = [t for t in TABLES if t not in present]
            if missing:
                raise StoreError(
                    f"{self.path}: not a store of genial-bot (schema {version} without its"
                    f" table {missing[0]})"
                )
            db.execute(f"PRAGMA user_version = {max(version, SCHEMA_VERSION)}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    @contextmanager
    def _immediate(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock at once (call with the store's lock
        held): committed at the end unless already ended (a rollback), rolled back on any
        error."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if db.in_transaction:
            db.execute("COMMIT")

    def _post(
        self, letters: Sequence[Letter], owner: str | None, now: float, lease: float
    ) -> list[int]:
        """Insert letters (with the store's lock held, inside a transaction)."""
        until = now + lease if owner is not None else None
        ids = []
        for letter in letters:
            cur = self._db.execute(
                "INSERT INTO outbox (chat, since, body, attachment, claimed_by, claimed_until)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (letter.chat, now, letter.body, letter.attachment, owner, until),
            )
            assert cur.lastrowid is not None
            ids.append(cur.lastrowid)
        return ids

    def _claim(
        self, table: str, key: str, due_by: float, owner: str, now: float, lease: float,
        only: str | None,
    ) -> list[str]:  # fmt: skip
        """Claim the rows of ``table`` (tables, tournaments) due by ``due_by`` that nobody
        else holds, soonest first, at most :data:`CLAIM_BATCH`; ``only``: that row alone."""
        where = (
            "due_at IS NOT NULL AND due_at <= ?"
            " AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?)"
        )
        params: tuple[object, ...] = (due_by, now, owner)
        if only is not None:
            where += f" AND {key} = ?"
            params += (only,)
        with self._lock, _busy(), self._immediate():
            rows = self._db.execute(
                f"SELECT {key} FROM {table} WHERE {where} ORDER BY due_at, {key} LIMIT ?",
                (*params, CLAIM_BATCH),
            ).fetchall()
            keys = [r[0] for r in rows]
            self._db.executemany(
                f"UPDATE {table} SET claimed_by = ?, claimed_until = ? WHERE {key} = ?",
                [(owner, now + lease, k) for k in keys],
            )
        return keys

    def _release(self, table: str, key: str, owner: str, keys: list[str]) -> None:
        with self._lock, _busy():
            self._db.executemany(
                f"UPDATE {table} SET claimed_by = NULL, claimed_until = NULL"
                f" WHERE {key} = ? AND claimed_by = ?",
                [(k, owner) for k in keys],
            )

    def close(self) -> None:
        with self._lock, _busy():
            self._db.close()
