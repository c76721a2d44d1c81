"""The history database: the one module that speaks SQL.

SQLite (the standard library's sqlite3) for a path, PostgreSQL (psycopg 3)
for a postgresql:// URL: the same tables, created by the same DDL, so a team
can move from one file to a shared server without a migration. Values that
differ between the two engines are kept out of the schema: booleans are
0/1 integers, times are ISO-8601 text, the environment is JSON text.

`history_schema` holds the schema version; a database written by another
version is refused rather than read wrongly.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reference.python.results_file import Expect, Status

SCHEMA_VERSION = 1

# One statement per entry: sqlite3 executes one at a time.
DDL = (
    "CREATE TABLE IF NOT EXISTS history_schema (version INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY,
        run_id_source TEXT NOT NULL,
        source_path TEXT NOT NULL,
        report_path TEXT,
        ingested_utc TEXT NOT NULL,
        started_utc TEXT NOT NULL,
        finished_utc TEXT,
        suite TEXT NOT NULL,
        results_schema_version INTEGER NOT NULL,
        git_commit TEXT NOT NULL,
        git_dirty INTEGER NOT NULL,
        torch TEXT NOT NULL,
        device TEXT NOT NULL,
        machine TEXT NOT NULL,
        cpu_kind TEXT NOT NULL,
        implementation TEXT NOT NULL,
        machine_id TEXT NOT NULL,
        rehearsal INTEGER NOT NULL,
        injected TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS environments (
        run_id TEXT PRIMARY KEY REFERENCES runs(run_id),
        env_json TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS cases (
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        case_id TEXT NOT NULL,
        workload TEXT NOT NULL,
        model TEXT NOT NULL,
        precision_name TEXT NOT NULL,
        variant TEXT NOT NULL,
        expect TEXT NOT NULL,
        status TEXT NOT NULL,
        conforms INTEGER,
        reason TEXT,
        unit TEXT,
        median DOUBLE PRECISION,
        max_ratio DOUBLE PRECISION,
        PRIMARY KEY (run_id, case_id))""",
    """CREATE TABLE IF NOT EXISTS samples (
        run_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        value DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, case_id, idx),
        FOREIGN KEY (run_id, case_id) REFERENCES cases(run_id, case_id))""",
    """CREATE TABLE IF NOT EXISTS distances (
        run_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        metric TEXT NOT NULL,
        max_ratio DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, case_id, metric),
        FOREIGN KEY (run_id, case_id) REFERENCES cases(run_id, case_id))""",
)

RUN_COLUMNS = ("run_id", "run_id_source", "source_path", "report_path", "ingested_utc", "started_utc",
               "finished_utc", "suite", "results_schema_version", "git_commit", "git_dirty", "torch", "device",
               "machine", "cpu_kind", "implementation", "machine_id", "rehearsal", "injected")
CASE_COLUMNS = ("run_id", "case_id", "workload", "model", "precision_name", "variant", "expect", "status",
                "conforms", "reason", "unit", "median", "max_ratio")


class StoreError(Exception):
    """A database that cannot be opened, created or read (exit 2)."""


@dataclass(frozen=True)
class RunRecord:
    """One ingested results file: `ampbench run`'s identity and environment."""
    run_id: str
    run_id_source: str      # "content-sha256": derived from the file's canonical JSON
    source_path: str
    report_path: str | None
    ingested_utc: str
    started_utc: str
    finished_utc: str | None
    suite: str
    results_schema_version: int
    git_commit: str
    git_dirty: int
    torch: str
    device: str
    machine: str            # GPU name on CUDA, CPU model on CPU
    cpu_kind: str
    implementation: str
    machine_id: str
    rehearsal: int
    injected: str           # "injected_slowdown=0.2, ..." or ""


@dataclass(frozen=True)
class CaseRecord:
    run_id: str
    case_id: str
    workload: str
    model: str
    precision_name: str
    variant: str
    expect: Expect
    status: Status
    conforms: int | None
    reason: str | None
    unit: str | None
    median: float | None
    max_ratio: float | None


def _plain(value):
    """Enums are stored as their JSON strings."""
    return str(value) if isinstance(value, (Expect, Status)) else value


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def describe(db: str) -> str:
    """The database as messages name it: a URL without its password."""
    if not is_postgres(db):
        return db
    head, _, tail = db.partition("://")
    if "@" in tail.split("/", 1)[0]:
        creds, _, rest = tail.partition("@")
        return f"{head}://{creds.split(':', 1)[0]}@{rest}"
    return db


class Store:
    """An open history database. Use as a context manager; every write
    method runs inside `transaction()`, so an ingest is all or nothing."""

    def __init__(self, db: str, create: bool):
        self.db = db
        self.postgres = is_postgres(db)
        self._conn = self._connect(create)
        try:
            self._check_schema(create)
        except BaseException:
            self._conn.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._conn.close()

    # --- connection and schema ---------------------------------------------

    def _connect(self, create: bool):
        if self.postgres:
            try:
                import psycopg
                return psycopg.connect(self.db, connect_timeout=10)
            except Exception as exc:  # psycopg's errors carry the server's reason
                raise StoreError(f"{describe(self.db)}: cannot connect: {' '.join(str(exc).split())}") from None
        path = Path(self.db)
        if not create and not path.is_file():
            raise StoreError(f"{self.db}: no such history database (ampbench history ingest creates one)")
        if path.exists() and not path.is_file():
            raise StoreError(f"{self.db}: not a regular file")
        try:
            conn = sqlite3.connect(path, timeout=30)
            conn.execute("PRAGMA foreign_keys = ON")
            return conn
        except sqlite3.Error as exc:
            raise StoreError(f"{self.db}: cannot open: {exc}") from None

    def _execute(self, sql: str, params=()):
        if self.postgres:
            sql = sql.replace("?", "%s")
        try:
            return self._conn.execute(sql, params)
        except Exception as exc:
            self._rollback()
            raise StoreError(f"{describe(self.db)}: {' '.join(str(exc).split())}") from None

    def _rollback(self):
        try:
            self._conn.rollback()
        except Exception:
            pass  # the connection is gone; the error being raised says why

    def _tables(self) -> set:
        if self.postgres:
            rows = self._execute("SELECT table_name FROM information_schema.tables "
                                 "WHERE table_schema = current_schema()").fetchall()
        else:
            rows = self._execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {r[0] for r in rows}

    def _check_schema(self, create: bool):
        tables = self._tables()
        if "history_schema" not in tables:
            if tables and "runs" in tables:
                raise StoreError(f"{describe(self.db)}: has a runs table but no history_schema: not an "
                                 "ampbench history database")
            if not create:
                raise StoreError(f"{describe(self.db)}: not an ampbench history database (no history_schema "
                                 "table); ampbench history ingest creates one")
            with self.transaction():
                for statement in DDL:
                    self._execute(statement)
                self._execute("INSERT INTO history_schema (version) VALUES (?)", (SCHEMA_VERSION,))
            return
        versions = [r[0] for r in self._execute("SELECT version FROM history_schema").fetchall()]
        if versions != [SCHEMA_VERSION]:
            raise StoreError(f"{describe(self.db)}: history schema version {versions}, this ampbench reads "
                             f"version {SCHEMA_VERSION} only")

    @contextmanager
    def transaction(self):
        try:
            yield self
            self._conn.commit()
        except BaseException:
            self._rollback()
            raise

    # --- writes --------------------------------------------------------------

    def has_run(self, run_id: str) -> bool:
        return self._execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is not None

    def add_run(self, run: RunRecord, env: dict, cases, samples, distances) -> None:
        """One run with its cases; `samples`: (case_id, [values]),
        `distances`: (case_id, metric, max_ratio). Call inside transaction()."""
        self._insert("runs", RUN_COLUMNS, [tuple(getattr(run, c) for c in RUN_COLUMNS)])
        self._insert("environments", ("run_id", "env_json"), [(run.run_id, json.dumps(env, sort_keys=True))])
        self._insert("cases", CASE_COLUMNS, [tuple(_plain(getattr(c, k)) for k in CASE_COLUMNS) for c in cases])
        self._insert("samples", ("run_id", "case_id", "idx", "value"),
                     [(run.run_id, case_id, i, v) for case_id, values in samples for i, v in enumerate(values)])
        self._insert("distances", ("run_id", "case_id", "metric", "max_ratio"),
                     [(run.run_id, *d) for d in distances])

    def _insert(self, table: str, columns, rows) -> None:
        if not rows:
            return
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        if self.postgres:
            sql = sql.replace("?", "%s")
            try:
                with self._conn.cursor() as cur:
                    cur.executemany(sql, rows)
            except Exception as exc:
                self._rollback()
                raise StoreError(f"{describe(self.db)}: {' '.join(str(exc).split())}") from None
        else:
            try:
                self._conn.executemany(sql, rows)
            except sqlite3.Error as exc:
                self._rollback()
                raise StoreError(f"{self.db}: {exc}") from None

    # --- reads ----------------------------------------------------------------

    def runs(self) -> list[RunRecord]:
        """Every run, oldest first: by the time it started, then by id."""
        rows = self._execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs ORDER BY started_utc, run_id").fetchall()
        return [RunRecord(*r) for r in rows]

    def cases(self) -> list[CaseRecord]:
        rows = self._execute(f"SELECT {', '.join(CASE_COLUMNS)} FROM cases ORDER BY run_id, case_id").fetchall()
        try:
            # Typed as they are read: a status this reader does not know stops here, named.
            return [CaseRecord(*r[:6], Expect(r[6]), Status(r[7]), *r[8:]) for r in rows]
        except ValueError as exc:
            raise StoreError(f"{describe(self.db)}: cases: {exc}") from None

    def samples(self, run_id: str, case_id: str) -> list[float]:
        rows = self._execute("SELECT value FROM samples WHERE run_id = ? AND case_id = ? ORDER BY idx",
                             (run_id, case_id)).fetchall()
        return [r[0] for r in rows]

    def distances(self, run_id: str) -> dict:
        rows = self._execute("SELECT case_id, metric, max_ratio FROM distances WHERE run_id = ?",
                             (run_id,)).fetchall()
        out: dict = {}
        for case_id, metric, ratio in rows:
            out.setdefault(case_id, {})[metric] = ratio
        return out


def open_store(db: str, create: bool = False) -> Store:
    return Store(db, create)
