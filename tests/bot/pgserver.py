"""A throw-away PostgreSQL server for tests and benchmarks: a fresh cluster in a temporary
folder, listening on 127.0.0.1 at a free port, removed when stopped.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` system
user. ``.ci/run`` starts one the same way in shell and hands its URL over in
``GENIAL_TEST_POSTGRES``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

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
        self._run(
            "initdb",
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
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
