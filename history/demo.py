"""Twenty real runs, end to end: python -m history.demo --binary B --out DIR

What a team's history looks like after twenty CI runs, made for real rather
than derived (history/tests/derive.py derives them for the fast tests):
`ampbench run` twenty times on two smoke cases (timed longer than smoke
times them), from run SLOW_FROM on with the test-only fault switch
`--inject-slowdown 4` (throughput divided by five or more); runs before it
ingested as measurements, the slowed ones as rehearsals; then the change
points, the gate against history on the last run and on the last normal run,
and the site opened in headless Chromium.

It fails (exit 1) when a throughput series has no change point at run
SLOW_FROM, when the gate does not flag the last (slowed) run, or when the
site does not open cleanly. Change points anywhere else and a gate alarm on
the last normal run are printed, not failed: real throughput on a shared
machine drifts, which is not the exchangeable noise the change-point test's
level is stated for (docs/history.md); the derived tests assert "nowhere
else" where the noise is known.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from .changepoints import Settings
from .changes import all_changes
from .series import Metric
from .store import open_store

FILTER = "^plain/mlp/(fp32|bf16)/sgd$"
SMOKE = Path(__file__).resolve().parents[1] / "suites" / "smoke.json"
# Smoke times 3 steps 4 times, about 2 ms for these cases: alone on the
# EPYC the medians of ten runs then spread by 27% (MAD over median), and the
# gate's 3 spreads exceed any slowdown. 10 steps 10 times (still well under
# a second a run) spread by 5-10% alone; beside a busy test on the other
# core by 12-30%, hence RUN_SERIAL on the CTest.
THROUGHPUT = {"measured_steps": 10, "repetitions": 10}
# Real runs of a sub-millisecond step drift by 15-25% between runs on a
# shared 2-core machine (an AMD EPYC's: 163k to 234k samples/s for fp32/sgd
# with nothing else running), and by 2x when a parallel test takes a core:
# in CI a halving (1.0) was found at run 16 instead of 12, the runs between
# slowed but on a machine that had just become quieter. The injected fault
# must stand clear of any such swing for "found at run 12" to be a property
# of the pipeline and not of the day: 4 adds busy work of four step times to
# each step (a fifth of the throughput, less with the timer's own cost).
# The derived tests hold the detection of smaller changes against known
# noise.
SLOWDOWN = "4"
# A run can also come out slow as a whole, from the machine: in CI the run
# just before the slowdown timed fp32 at 118k samples/s against a median of
# 230k (bf16 unchanged), and the change point moved to it. The pipeline is
# what this demo tests, so an unslowed run whose case falls under two thirds
# of the earlier runs' median (between-run drift is 15-25%, the slowdown
# leaves a fifth) is measured again, at most twice, each time said; the
# project's own verdicts treat a borderline case the same way (fresh seeds).
REMEASURE_BELOW = 2 / 3
REMEASURES = 2


def _run(cmd: list, check_rc=(0,)) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=600)
    if proc.returncode not in check_rc:
        sys.exit(f"history.demo: {' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return proc


def write_suite(out: Path) -> Path:
    """Smoke's cases with THROUGHPUT's timing, as a suite file in OUT."""
    suite = json.loads(SMOKE.read_text(encoding="utf-8"))
    suite["name"] = "history-demo"
    suite["throughput"].update(THROUGHPUT)
    out.mkdir(parents=True)
    path = out / "suite.json"
    path.write_text(json.dumps(suite, indent=1), encoding="utf-8")
    return path


def make_runs(binary: str, out: Path, runs: int, slow_from: int) -> list[Path]:
    """Only the last normal run and the last slowed one write their report:
    the site copies and links a run's report when it has one and says so
    when it has none, and both kinds of run page are then in the site the
    browser check opens. Drawing twenty reports took two thirds of the time."""
    files, suite, normal = [], write_suite(out), []
    for i in range(1, runs + 1):
        folder = out / f"run{i:02d}"
        cmd = [binary, "run", "--suite", suite, "--device", "cpu", "--filter", FILTER, "--out", folder,
               *([] if i in (slow_from - 1, runs) else ["--no-report"])]
        if i >= slow_from:
            _run([*cmd, "--inject-slowdown", SLOWDOWN])
        else:
            normal.append(_normal_run(cmd, folder, normal))
        files.append(folder / "results.json")
    return files


def _normal_run(cmd: list, folder: Path, earlier: list[dict]) -> dict:
    """Runs CMD (no fault) until no case is slow against EARLIER (REMEASURES
    more at most); returns its medians."""
    attempt = 0
    while True:
        _run([*cmd, *(["--overwrite"] if attempt else [])])
        medians = throughput_medians(folder / "results.json")
        slow = slow_cases(medians, earlier)
        if not slow or attempt == REMEASURES:
            return medians
        print(f"history.demo: {folder.name} timed {'; '.join(slow)}: the machine, not the pipeline; "
              f"measured again")
        attempt += 1


def throughput_medians(results: Path) -> dict:
    doc = json.loads(results.read_text(encoding="utf-8"))
    return {c["id"]: c["throughput"]["median"] for c in doc["cases"] if c.get("throughput")}


def slow_cases(medians: dict, earlier: list[dict]) -> list[str]:
    """The cases of MEDIANS under REMEASURE_BELOW of their median over the
    EARLIER runs (none before three runs)."""
    slow = []
    for case, value in sorted(medians.items()):
        seen = [run[case] for run in earlier if case in run]
        typical = statistics.median(seen) if len(seen) >= 3 else None
        if typical and value < REMEASURE_BELOW * typical:
            slow.append(f"{case} at {value:.0f} samples/s against the median {typical:.0f} of {len(seen)} runs")
    return slow


def check_changes(db: str, slow_from: int) -> list[str]:
    """Problems with the change points (empty: the slowdown was found)."""
    with open_store(db) as store:
        series, changes = all_changes(store, Settings())
    for change in changes:
        print(change.line())
    problems = []
    for s in series:
        found = [c.position for c in changes if c.key == s.key and c.metric == Metric.THROUGHPUT]
        if slow_from not in found:
            problems.append(f"{s.key.label()}: no throughput change point at run {slow_from} (found at {found})")
    elsewhere = [c for c in changes if c.position != slow_from]
    print(f"history.demo: {len(series)} series, {len(changes)} change point(s), "
          f"{len(elsewhere)} not at run {slow_from}")
    return problems


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m history.demo", description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", required=True)
    p.add_argument("--out", required=True, type=Path, help="a new folder")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--slow-from", type=int, default=12)
    args = p.parse_args(argv)
    if args.out.exists():
        p.error(f"--out {args.out} exists; give a new folder")
    if not 4 <= args.slow_from <= args.runs - 2:
        p.error(f"--slow-from {args.slow_from} leaves fewer than 3 runs on a side of {args.runs}")
    files = make_runs(args.binary, args.out, args.runs, args.slow_from)
    db = str(args.out / "history.db")
    history = [args.binary, "history"]
    _run([*history, "ingest", *files[:args.slow_from - 1], "--db", db])
    _run([*history, "ingest", *files[args.slow_from - 1:], "--db", db, "--rehearsal"])
    problems = check_changes(db, args.slow_from)
    slowed = _run([args.binary, "gate", "--history", db, "--current", files[-1], "--rehearsal"], (0, 1))
    print(slowed.stdout, end="")
    if slowed.returncode != 1:
        problems.append(f"the gate passed the slowed run {files[-1]}")
    normal = _run([args.binary, "gate", "--history", db, "--current", files[args.slow_from - 2]], (0, 1))
    print(f"history.demo: the gate on run {args.slow_from - 1} (not slowed) exited {normal.returncode}"
          + (" (an alarm from real drift; see the docstring)" if normal.returncode else ""))
    _run([*history, "site", "--db", db, "--out", args.out / "site"])
    linked = sorted(page.parent.name for page in (args.out / "site" / "runs").glob("*/index.html")
                    if "This run's report" in page.read_text(encoding="utf-8"))
    if len(linked) != 2:
        problems.append(f"the site links the reports of {linked}, where runs {args.slow_from - 1} and "
                        f"{args.runs} wrote one")
    site = _run([sys.executable, "-m", "reports.browser_check", args.out / "site"], (0, 1))
    print(site.stdout, end="")
    if site.returncode != 0:
        problems.append(f"the site did not open cleanly: {site.stdout[-500:]}{site.stderr[-500:]}")
    for problem in problems:
        print(f"history.demo: FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
