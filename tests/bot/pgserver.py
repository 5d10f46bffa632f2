"""A throw-away PostgreSQL server for tests and benchmarks: a fresh cluster in a temporary
folder, listening on 127.0.0.1 at a free port, removed when stopped.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` system
user. ``.ci/run`` starts one the same way in shell and hands its URL over in
``GENIAL_TEST_POSTGRES``.

A test run in several processes (pytest-xdist's workers) shares one server
(:func:`shared`): the first worker that needs it starts it, the run's controller stops it
(:func:`stop_shared`); each worker works in a database of its own (:func:`database_for`).
"""

from __future__ import annotations

import atexit
import fcntl
import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import errors, sql

from tests.patience import PATIENCE

#: Where Debian and Ubuntu install the server binaries (``initdb``, ``pg_ctl``).
BIN_GLOB = "/usr/lib/postgresql/*/bin"
#: Settings for a server whose data may be lost: no waiting for the disk.
FAST = ("-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off")


def bin_dir() -> Path | None:
    """The newest installed server's binaries, or ``None`` if no server is installed."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(glob.glob(BIN_GLOB), key=lambda p: int(Path(p).parent.name.split(".")[0]))
    return Path(found[-1]) if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The cluster :func:`_template` made in this process, by the binaries that made it.
_templates: dict[Path, Path] = {}
_templates_lock = threading.Lock()


def _template(binaries: Path, as_user: list[str]) -> Path:
    """A fresh cluster's data folder (``initdb``), made once a process and copied for each
    server it starts (each one's own data: a copy is a cluster as initdb leaves it);
    removed when the process ends."""
    with _templates_lock:
        if binaries not in _templates:
            folder = Path(tempfile.mkdtemp(prefix="genial-pg-template-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            if as_user:
                shutil.chown(folder, "postgres", "postgres")
            subprocess.run(
                [
                    *as_user,
                    str(binaries / "initdb"),
                    "-D",
                    str(folder / "data"),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "--no-sync",
                    "-E",
                    "UTF8",
                    "--locale=C",
                ],
                check=True,
                capture_output=True,
                cwd=folder,
            )
            _templates[binaries] = folder / "data"
        return _templates[binaries]


class Server:
    """One running throw-away server; :attr:`url` names its database ``genial``."""

    def __init__(
        self, *, fast: bool = True, max_connections: int = 100, port: int | None = None
    ) -> None:
        """Start it, on ``port`` if given (else a free one).

        Raises:
            FileNotFoundError: no PostgreSQL server is installed.
            subprocess.CalledProcessError: it did not start (its log is in the message).
        """
        binaries = bin_dir()
        if binaries is None or not (binaries / "pg_ctl").exists():
            raise FileNotFoundError(f"no PostgreSQL server binaries in {BIN_GLOB}")
        self.bin = binaries
        self.dir = Path(tempfile.mkdtemp(prefix="genial-pg-"))
        self.port = port or free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        data = self.dir / "data"
        # A copy of this process's one initdb: initdb takes seconds (a busy machine's 10),
        # a copy of its 40 MB a fraction of that.
        subprocess.run(
            [*self._as, "cp", "-a", str(_template(binaries, self._as)), str(data)],
            check=True,
            capture_output=True,
        )
        options = [
            f"-p {self.port}",
            f"-k {self.dir}",
            "-c listen_addresses=127.0.0.1",
            f"-c max_connections={max_connections}",
            *(FAST if fast else ()),
        ]
        self._options = options
        self._run(
            "pg_ctl",
            "-D",
            str(data),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-t",
            str(int(PATIENCE)),  # pg_ctl waits 60 s for the server by default
            "-o",
            " ".join(options),
            "start",
        )
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "genial")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/genial"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / program), *args],
            check=True,
            capture_output=True,
            cwd=self.dir,
        )

    def halt(self) -> None:
        """Stop the server, keeping its data (an outage; :meth:`resume` ends it)."""
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start the halted server again on the same port, with the same data."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.dir / "data"),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-t",
            "300",
            "-o",
            " ".join(self._options),
            "start",
        )

    def restart(self) -> None:
        """Restart the server (``pg_ctl restart``): every open connection is closed."""
        self.halt()
        self.resume()

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def describe(self) -> dict[str, Any]:
        """What another process needs to stop this server (:meth:`described`)."""
        return {"url": self.url, "dir": str(self.dir), "bin": str(self.bin), "as": self._as}

    @classmethod
    def described(cls, data: dict[str, Any]) -> Server:
        """The running server that :meth:`describe` described, to stop it."""
        server = cls.__new__(cls)
        server.url = str(data["url"])
        server.dir = Path(data["dir"])
        server.bin = Path(data["bin"])
        server._as = [str(a) for a in data["as"]]
        return server


# --- one server for the processes of a test run -------------------------------------------

#: The file in a test run's shared folder that describes its server.
SHARED = "postgres.json"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def shared(folder: Path) -> str:
    """The URL of the one server of the test run whose processes share ``folder``,
    started by the first process that asks.

    Raises:
        FileNotFoundError: no PostgreSQL server is installed.
    """
    described = folder / SHARED
    with _locked(folder / "postgres.lock"):
        if described.exists():
            return str(json.loads(described.read_text())["url"])
        server = Server()
        described.write_text(json.dumps(server.describe()))
        return server.url


def stop_shared(folder: Path) -> None:
    """Stop the server :func:`shared` started for ``folder``'s test run, if it did."""
    described = folder / SHARED
    if described.exists():
        Server.described(json.loads(described.read_text())).stop()
        described.unlink()


def database_for(url: str, name: str) -> str:
    """The URL of a database of its own on ``url``'s server for one process of a test run
    (``genial_gw0`` beside ``genial``), made if it is not there yet; ``url`` itself where
    no database may be made (its schemas keep the tests apart there too)."""
    parts = urlsplit(url)
    if not parts.scheme.startswith("postgres"):
        return url
    database = f"{parts.path.lstrip('/') or 'postgres'}_{name}"
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                found = conn.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
                ).fetchone()
                if found is None:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
            break
        except errors.DuplicateDatabase:  # another process made it meanwhile
            break
        except errors.InsufficientPrivilege:
            return url
        except errors.ObjectInUse:  # someone is connected to the template database
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    return urlunsplit(parts._replace(path=f"/{database}"))
