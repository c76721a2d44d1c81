"""Fixtures: one real ampbench run (two plain/mlp cases, a few seconds),
twenty runs derived from it (history/tests/derive.py says what is real and
what is derived), and each store the history supports: a SQLite file and a
database on a real PostgreSQL server this session starts."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import pytest

from history.cli import main
from history.tests.derive import derive_history
from history.tests.pg_server import Server, find_bin_dir

REPO = Path(__file__).resolve().parents[2]
REAL_FILTER = "^plain/mlp/(fp32|bf16)/sgd$"
SLOW_FROM = 12
_names = itertools.count()


def ampbench_binary() -> str:
    binary = os.environ.get("AMPBENCH_BINARY") or str(REPO / "build" / "ampbench")
    if not os.access(binary, os.X_OK):
        pytest.fail(f"no ampbench binary at {binary}: build it (ci/build.sh ampbench) or set AMPBENCH_BINARY",
                    pytrace=False)
    return binary


@pytest.fixture(scope="session")
def real_run(tmp_path_factory) -> Path:
    """results.json (and its report) of a real `ampbench run`."""
    out = tmp_path_factory.mktemp("real") / "run"
    proc = subprocess.run([ampbench_binary(), "run", "--suite", "smoke", "--device", "cpu", "--filter", REAL_FILTER,
                           "--out", str(out)], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "report" / "index.html").is_file()
    return out / "results.json"


@pytest.fixture(scope="session")
def twenty(real_run, tmp_path_factory) -> list[Path]:
    """Runs 1..20; from run 12 on slowed by 20% and marked injected_slowdown."""
    return derive_history(real_run, tmp_path_factory.mktemp("derived"), slow_from=SLOW_FROM)


@pytest.fixture(scope="session")
def pg_server():
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl, postgres) are not installed: the PostgreSQL store is "
                    "untested here (apt-get install postgresql)")
    server = Server(bin_dir).start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path) -> str:
    """A new, empty history: a SQLite path, or a fresh database on the server."""
    if request.param == "sqlite":
        return str(tmp_path / "history.db")
    return request.getfixturevalue("pg_server").create_database(f"history_{next(_names)}")


def ingest(db: str, paths, *flags: str) -> int:
    return main(["ingest", *map(str, paths), "--db", db, *flags])


@pytest.fixture
def loaded(db, twenty) -> str:
    """The history of the twenty runs, slowed ones ingested as rehearsals."""
    assert ingest(db, twenty[:SLOW_FROM - 1]) == 0
    assert ingest(db, twenty[SLOW_FROM - 1:], "--rehearsal") == 0
    return db
