"""The tests' PostgreSQL schemas (tests/bot/backends.py) in a process forked from a test
process, as mutmut runs each mutant's tests: two such forks at a time must not share the
parent's emptied schemas or its connection."""

from __future__ import annotations

import os
from pathlib import Path

from tests.bot import backends


def test_a_forked_process_has_its_own_connection_and_none_of_the_parents_spare_schemas(
    postgres_url: str, tmp_path: Path
) -> None:
    spare_url = backends.schema_url(postgres_url, f"{tmp_path}/spare")
    spare = spare_url.rsplit("search_path%3D", 1)[1]
    parents = backends._connection(postgres_url).info.backend_pid
    backends._spare.append(spare)  # as an earlier test of this process left it
    backends.current.update(name="postgres", url=postgres_url)
    read, write = os.pipe()
    try:
        pid = os.fork()
        if pid == 0:  # the fork: where would a test of its own keep its store?
            code = 1
            try:
                where = backends.location(tmp_path / "child.db")
                own = backends._connection(postgres_url).info.backend_pid
                os.write(write, f"{where} {own}".encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        with os.fdopen(read, "rb") as answer:
            told = answer.read().decode()
        _, status = os.waitpid(pid, 0)
    finally:
        backends.current.update(name="sqlite", url=None)
        backends._lent.clear()
        if spare in backends._spare:
            backends._spare.remove(spare)
    assert os.waitstatus_to_exitcode(status) == 0
    where, own = told.rsplit(" ", 1)
    assert where.endswith(f"search_path%3D{backends._named(str(tmp_path / 'child.db'))}")
    assert spare not in where
    assert int(own) != parents
    # The parent still has its own connection, not ended by the fork.
    assert backends._connection(postgres_url).info.backend_pid == parents
