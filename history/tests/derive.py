"""Twenty runs' results derived from one real run, for the history's tests.

Twenty real smoke runs take far too long for a test, so the tests make one
real run (a couple of cases, seconds) and derive the rest from it. What is
real: the file's structure, environment, cases, verdicts, distances and the
median throughput each case starts from. What is derived: each run's start
time (an hour apart), its throughput samples (the real median times seeded
log-normal noise of `cv` per sample), its distances (times seeded log-normal
noise of 10%), and, from run `slow_from` on, a slowdown and the marker the
real fault switch writes: `--inject-slowdown F` adds busy work of F of every
timed step, so throughput divides by 1 + F, and `env.injected_slowdown` is F.
"""

from __future__ import annotations

import copy
import json
import statistics
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np


def _throughput(tp: dict, factor: float, rng) -> None:
    samples = [tp["median"] * factor * float(rng.lognormal(0.0, tp["_cv"])) for _ in tp["samples_per_s"]]
    median = statistics.median(samples)
    step_ms = tp["step_time_ms"] * tp["median"] / median  # a step takes longer as throughput drops
    tp.update(samples_per_s=samples, median=median, min=min(samples), max=max(samples),
              stddev=statistics.pstdev(samples), cv=statistics.pstdev(samples) / median, step_time_ms=step_ms)
    if tp.get("iqr") is not None:
        q1, _, q3 = statistics.quantiles(samples, n=4)
        tp["iqr"] = q3 - q1
    del tp["_cv"]


def _speedups(doc: dict) -> None:
    medians = {c["id"]: c["throughput"]["median"] for c in doc["cases"] if c.get("throughput")}
    for c in doc["cases"]:
        tp, base = c.get("throughput"), medians.get(c.get("baseline_id"))
        if tp and base and c["baseline_id"] != c["id"]:
            tp["speedup_vs_fp32"] = tp["median"] / base


def _distances(case: dict, rng) -> None:
    check = case.get("check")
    if not check or check.get("max_ratio") is None:
        return
    factor = float(rng.lognormal(0.0, 0.1))
    check["max_ratio"] *= factor
    for bound in (check.get("bounds") or {}).values():
        if isinstance(bound, dict) and bound.get("max_ratio") is not None:
            bound["max_ratio"] *= factor


def derive_run(real: dict, number: int, slow_from: int, slowdown: float, cv: float, seed: int) -> dict:
    """Run `number` (1-based) of the derived history."""
    doc = copy.deepcopy(real)
    rng = np.random.default_rng([seed, number])
    start = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(hours=number)
    doc["started_utc"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["finished_utc"] = (start + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    slow = number >= slow_from
    for case in doc["cases"]:
        if case.get("throughput"):
            case["throughput"]["_cv"] = cv
            _throughput(case["throughput"], 1.0 / (1.0 + slowdown) if slow else 1.0, rng)
        _distances(case, rng)
    _speedups(doc)
    if slow:
        doc["env"]["injected_slowdown"] = slowdown
    return doc


def derive_history(real_path, out_dir, runs: int = 20, slow_from: int = 12, slowdown: float = 0.2,
                   cv: float = 0.03, seed: int = 7) -> list[Path]:
    """Write run01/results.json ... runNN/results.json under out_dir."""
    real = json.loads(Path(real_path).read_text())
    paths = []
    for number in range(1, runs + 1):
        path = Path(out_dir) / f"run{number:02d}" / "results.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(derive_run(real, number, slow_from, slowdown, cv, seed), indent=1))
        paths.append(path)
    return paths
