"""One run, one set of figures: what `ampbench run` printed, what its
results.json states and what its report says agree.

Usage: one_set_of_figures_test.py TERMINAL_LOG RESULTS_JSON REPORT_DIR

- the header's case count is the cases in the file, and the progress counts
  the cases it says it counts;
- the "verdicts:" and "teeth:" lines are the results' "summary", and the
  report's summary states the same counts and margin;
- the report's own rule, given the cases without the stated summary, finds
  the same margin (so a run that states none is not judged differently);
- the report's speedups are the results' speedup_vs_fp32.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from reports.runs import load_runs, speedup  # noqa: E402
from reports.summary import teeth_margin_of  # noqa: E402


def fail(why: str) -> None:
    sys.exit(f"one_set_of_figures: error: {why}")


def check_case_counts(log: str, doc: dict) -> None:
    header = re.search(r"^suite \S+: (\d+) cases on \S+(?: \((\d+) here, counted \[i/(\d+)\] below, then "
                       r"(\d+) ddp in local ranks\))? -> ", log, re.M)
    if not header:
        fail("no header line")
    total = int(header[1])
    here = int(header[2]) if header[2] else total
    ranks = int(header[4]) if header[4] else 0
    if total != len(doc["cases"]) or here + ranks != total:
        fail(f"header says {total} cases ({here} here, {ranks} in ranks); the results hold {len(doc['cases'])}")
    # The cases here count [i/here]; the ranks', which rank 0 prints, [i/ranks].
    progress = [int(t) for _, t in re.findall(r"^\[ *(\d+)/(\d+)\] ", log, re.M)]
    expected = [here] * here + [ranks] * ranks
    if progress != expected:
        fail(f"progress counted to {sorted(set(progress))} over {len(progress)} lines; the header says {here} here "
             f"and {ranks} in ranks")


def check_summary(log: str, doc: dict, report_md: str) -> float:
    summary = doc.get("summary")
    if not isinstance(summary, dict):
        fail("results.json states no summary")
    # The run's own line is the last (rank 0 of the ddp cases prints its own before).
    verdicts = re.findall(r"^verdicts: (.*)$", log, re.M)
    if not verdicts or verdicts[-1] != summary["counts_line"]:
        fail(f"terminal {verdicts[-1] if verdicts else None!r} != results {summary['counts_line']!r}")
    if summary["counts_line"] not in report_md:
        fail(f"the report does not state the counts {summary['counts_line']!r}")
    teeth = summary["teeth"]
    if not teeth:
        fail("the smoke run has no teeth margin to compare")
    lines = re.findall(r"^teeth: .*$", log, re.M)
    if not lines or lines[-1] != teeth["line"]:
        fail(f"terminal {lines[-1] if lines else None!r} != results {teeth['line']!r}")
    printed = float(re.search(r"margin ([0-9.]+)x", lines[-1])[1])
    if abs(printed - teeth["margin"]) > 0.05 + 1e-9:
        fail(f"terminal margin {printed} is not the stated {teeth['margin']}")
    if f"teeth margin {teeth['margin']:.3g}×" not in report_md:
        fail(f"the report does not state teeth margin {teeth['margin']:.3g}")
    return teeth["margin"]


def check_report_rule(results: Path, margin: float) -> None:
    (run,) = load_runs([results])
    recomputed = teeth_margin_of(run.cases)
    if recomputed is None or not math.isclose(recomputed, margin, rel_tol=1e-9):
        fail(f"the report's rule gives teeth margin {recomputed}, the run stated {margin}")
    for case in run.cases:
        stated = case.throughput and case.throughput.speedup_vs_fp32
        if stated is not None and speedup(run, case) != stated:
            fail(f"{case.id}: the report's speedup {speedup(run, case)} is not the stated {stated}")


def main(log_path: str, results_path: str, report_dir: str) -> None:
    log = Path(log_path).read_text()
    doc = json.loads(Path(results_path).read_text())
    report_md = (Path(report_dir) / "report.md").read_text()
    check_case_counts(log, doc)
    margin = check_summary(log, doc, report_md)
    check_report_rule(Path(results_path), margin)
    print(f"one_set_of_figures: ok ({len(doc['cases'])} cases, teeth margin {margin:.3g})")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
