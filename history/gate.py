"""The gate against history: a current results file judged case by case
against the last N comparable runs in the database (same case, machine kind,
torch and implementation), so the noise it tolerates is the noise those runs
showed, not the repetitions inside one run.

Per case, with h the history's per-run medians (rehearsal runs never count:
they measured an injected fault):

- throughput: centre = median(h), spread = 1.4826 * MAD(h) (a normal
  sigma, robust to one odd run). A regression is a current median at least
  `min_effect` below the centre *and* more than `sigmas` spreads below it;
  fewer than `min_runs` runs of history is "insufficient history", shown and
  never failing;
- conformance: a case that conformed in its latest history run and does not
  now is a regression; one that did not conform then either is a known
  failure (shown).

Exit 0 pass, 1 regression, 2 unusable input (as `ampbench gate`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from enum import Enum

from reference.python.results_file import Status

from .ingest import Prepared
from .series import SeriesKey, build_series
from .store import Store

MAD_TO_SIGMA = 1.4826


class GateInputError(Exception):
    """Nothing in the history to judge the current run against (exit 2)."""


@dataclass(frozen=True)
class Rule:
    last: int = 10
    min_runs: int = 5
    min_effect: float = 0.05
    sigmas: float = 3.0


class Verdict(Enum):
    OK = "ok"
    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    KNOWN_FAILURE = "known failure"
    INSUFFICIENT = "insufficient history"
    NEW = "new"


@dataclass(frozen=True)
class Row:
    case_id: str
    verdict: Verdict
    detail: str

    @property
    def failed(self) -> bool:
        return self.verdict is Verdict.REGRESSION


def _history(store: Store, current: Prepared, last: int) -> dict:
    runs = [r for r in store.runs() if not r.rehearsal and r.run_id != current.run.run_id]
    kept = {r.run_id for r in runs}
    series = build_series(runs, [c for c in store.cases() if c.run_id in kept])
    return {s.key: s.points[-last:] for s in series}


def _throughput(case, points, rule: Rule):
    medians = [p.case.median for p in points if p.case.median is not None]
    if case.median is None or not medians:
        return None
    if len(medians) < rule.min_runs:
        return Row(case.case_id, Verdict.INSUFFICIENT,
                   f"{len(medians)} comparable run(s) with a throughput, {rule.min_runs} needed")
    centre = statistics.median(medians)
    spread = MAD_TO_SIGMA * statistics.median(abs(m - centre) for m in medians)
    change = case.median / centre - 1
    sigmas = abs(case.median - centre) / spread if spread > 0 else float("inf")
    detail = (f"{case.median:.6g} {case.unit or ''} against the median {centre:.6g} of {len(medians)} runs "
              f"({change:+.1%}, {sigmas:.1f} spreads of {spread:.3g})")
    if abs(change) >= rule.min_effect and sigmas > rule.sigmas:
        return Row(case.case_id, Verdict.REGRESSION if change < 0 else Verdict.IMPROVEMENT, detail)
    return Row(case.case_id, Verdict.OK, detail)


def _conformance(case, points):
    if case.status is Status.SKIPPED or case.conforms:
        return None
    before = points[-1].case if points else None
    why = f"status {case.status}" + (f": {case.reason}" if case.reason else "")
    if before is not None and before.conforms:
        return Row(case.case_id, Verdict.REGRESSION, f"newly not conforming ({why}); it conformed in run "
                   f"{points[-1].run.run_id}")
    return Row(case.case_id, Verdict.KNOWN_FAILURE, f"does not conform ({why}), nor did it in the history")


def judge(store: Store, current: Prepared, rule: Rule = Rule()) -> list[Row]:
    history = _history(store, current, rule.last)
    rows, compared = [], 0
    for case in current.cases:
        points = history.get(SeriesKey.of(current.run, case.case_id), ())
        compared += bool(points)
        if not points:
            rows.append(Row(case.case_id, Verdict.NEW, "no comparable run in the history"))
            continue
        verdict = _conformance(case, points) or _throughput(case, points, rule)
        rows.append(verdict or Row(case.case_id, Verdict.OK, "conforms; no throughput to compare"))
    if not compared:
        run = current.run
        raise GateInputError(f"{current.run.source_path}: no comparable run in the history (machine "
                             f"{run.machine!r}, torch {run.torch}, implementation {run.implementation}; "
                             "rehearsal runs never count)")
    return rows
