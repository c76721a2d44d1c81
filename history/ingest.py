"""Results files into the history.

Each file is read by the one results loader (reference/python/results_file.py),
so the history refuses exactly what every other reader refuses (not JSON,
another schema, a schema version it cannot read), and on top of that:

- a run that did not finish (`complete: false`): its missing cases would
  read as cases that stopped existing;
- a run made with a test-only fault switch (`env.injected_*`, e.g.
  `--inject-slowdown`) unless the caller says it is a rehearsal: such a run
  measures the fault, not the machine. With `rehearsal` it is stored marked
  so, and every output shows the mark.

Every file is checked before anything is written, and all are written in one
transaction: an ingest is all or nothing.

The run id: results.json carries no id of its own, so it is the SHA-256 of the
file's canonical JSON (keys sorted, no whitespace). The same run ingested twice
is the same id and is skipped; any change to the file makes a new run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from reference.python.results_file import Results, ResultsError, load_results
from reports.runs import implementation, machine

from .store import CaseRecord, RunRecord, Store

# env keys a test-only fault switch writes (harness/session/run_session.cpp);
# any later injected_* key is one too.
FAULT_PREFIX = "injected_"
RUN_ID_SOURCE = "content-sha256"


class IngestError(Exception):
    """A results file the history refuses (exit 2); the message names it."""


@dataclass(frozen=True)
class Prepared:
    run: RunRecord
    env: dict
    cases: tuple
    samples: tuple
    distances: tuple


def run_id_of(doc) -> str:
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def injected_faults(env) -> list[str]:
    return [f"{k}={v}" for k, v in sorted(env.items())
            if k.startswith(FAULT_PREFIX) and v is not None and v is not False]


def prepare(path, rehearsal: bool, now: str) -> Prepared:
    """Read and check one file; nothing is written."""
    try:
        results = load_results(path)
    except ResultsError as exc:
        raise IngestError(f"{exc.path}: {exc.reason}") from None
    if not results.complete:
        raise IngestError(f"{path}: the run did not finish (complete: false): a stopped run is never history")
    faults = injected_faults(results.env)
    if faults and not rehearsal:
        raise IngestError(f"{path}: was made with a test-only fault switch ({', '.join(faults)}): it measures the "
                          "fault, not the machine; pass --rehearsal if this is a rehearsal (it is then marked as one)")
    return _records(results, Path(path), faults, now)


def _records(results: Results, path: Path, faults, now: str) -> Prepared:
    env = dict(results.env)
    run_id = run_id_of(results.raw)
    report = path.parent / "report" / "index.html"
    run = RunRecord(
        run_id=run_id, run_id_source=RUN_ID_SOURCE, source_path=str(path.resolve()),
        report_path=str(report.resolve()) if report.is_file() else None, ingested_utc=now,
        started_utc=results.started_utc, finished_utc=results.finished_utc, suite=results.suite,
        results_schema_version=results.schema_version, git_commit=str(env.get("git_commit", "unknown")),
        git_dirty=int(bool(env.get("git_dirty"))), torch=str(env.get("libtorch_version", "unknown")),
        device=str(env.get("device", "unknown")), machine=machine(env), cpu_kind=str(env.get("cpu_kind", "")),
        implementation=implementation(env), machine_id=str(env.get("machine_id") or env.get("host") or ""),
        rehearsal=int(bool(faults)), injected=", ".join(faults))
    cases, samples, distances = [], [], []
    for c in results.cases:
        tp = c.throughput
        cases.append(CaseRecord(run_id, c.id, c.workload, c.model, c.precision, c.variant, c.expect,
                                c.status, None if c.conforms is None else int(c.conforms), c.reason,
                                tp.unit if tp else None, tp.median if tp else None,
                                c.check.max_ratio if c.check else None))
        if tp:
            samples.append((c.id, list(tp.samples_per_s)))
        for metric, bound in (c.check.bounds if c.check else {}).items():
            if isinstance(bound, dict) and bound.get("max_ratio") is not None:
                distances.append((c.id, metric, float(bound["max_ratio"])))
    return Prepared(run, env, tuple(cases), tuple(samples), tuple(distances))


@dataclass(frozen=True)
class IngestResult:
    added: tuple[RunRecord, ...]
    already: tuple[RunRecord, ...]


def prepare_all(paths, rehearsal: bool = False) -> list[Prepared]:
    """Check every file before the database is even opened."""
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return [prepare(p, rehearsal, now) for p in paths]


def ingest(store: Store, prepared) -> IngestResult:
    """Store the runs not there yet, in one transaction."""
    added, already, seen = [], [], set()
    with store.transaction():
        for item in prepared:
            if item.run.run_id in seen or store.has_run(item.run.run_id):
                already.append(item.run)
                continue
            seen.add(item.run.run_id)
            store.add_run(item.run, item.env, item.cases, item.samples, item.distances)
            added.append(item.run)
    return IngestResult(tuple(added), tuple(already))
