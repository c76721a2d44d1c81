"""A throwaway PostgreSQL server for the tests: initdb into a temporary
folder, pg_ctl start on a Unix socket in that folder (no TCP), stop and
delete in teardown. PostgreSQL refuses to run as root, so under root the
server runs as `nobody`."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

BINARIES = ("initdb", "pg_ctl", "postgres")


def find_bin_dir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres, or None."""
    candidates = [os.path.dirname(p) for p in filter(None, [shutil.which("initdb")])]
    candidates += ["/usr/local/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if all(os.access(os.path.join(folder, b), os.X_OK) for b in BINARIES):
            return Path(folder)
    return None


def _free_port() -> int:
    # The server listens on no TCP port; the number only names its socket file.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, bin_dir: Path):
        self.bin_dir = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="ampbench-pg-"))
        self.port = _free_port()
        self._as_nobody = os.geteuid() == 0
        if self._as_nobody:
            os.chown(self.dir, 65534, 65534)

    def _run(self, *args: str) -> None:
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if self._as_nobody else []
        proc = subprocess.run(prefix + [str(self.bin_dir / args[0]), *args[1:]], capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")

    def start(self) -> "Server":
        data = self.dir / "data"
        self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-k {self.dir} -c listen_addresses='' -p {self.port} -c fsync=off"
        self._run("pg_ctl", "-D", str(data), "-l", str(self.dir / "log"), "-w", "-t", "60", "-o", options, "start")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql:///{database}?host={self.dir}&port={self.port}&user=postgres"

    def create_database(self, name: str) -> str:
        import psycopg
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
