"""The verdict's calibration record: one suite run under many seeds.

A new seed changes rounding the way a new torch or a new GPU does, so how
often a correct case exceeds its bound under seeds it was not tuned on is
the false-alarm rate a CI gate inherits. This tabulates runs of one suite
(one results file per seed, ci/calibrate-verdict.sh): per workload, model
and precision, how many correct case-seeds went beyond their bound at their
own seed, how many still failed after the fresh-seed rule
(harness/check/confirmation.h) and the worst ratio; per negative control,
on how many seeds it was caught and by how much. The single-seed rate is
given with its upper 95% confidence bound (Clopper-Pearson), and what the
rule makes of it.

    python -m reports.calibration DIR [DIR...] [--markdown FILE] [--confirm-seeds N]

Exit 0: no correct case failed and every control was caught on every seed
(by its distance with margin >= 3, or by a rule: scale audit, skipped steps,
rank or resume checks); 1 otherwise; 2 on unreadable input.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from reference.python.results_file import Expect, ResultsError, Status, load_results

MARGIN = 3.0  # the margin every control keeps: the rule's grey limit


@dataclass
class Row:
    """Correct case-seeds of one (workload, model, precision)."""
    runs: int = 0
    exceeded: int = 0  # beyond the bound at their own seed
    failed: int = 0    # still failing after the fresh-seed rule
    worst: float = 0.0
    worst_at: str = ""


@dataclass
class ControlRow:
    seeds: int = 0
    caught: int = 0
    mildest: float | None = None  # smallest distance/bound among numerical catches (inf: not finite)
    by_rule: int = 0           # caught by a rule, not by a distance
    mildest_at: str = ""


@dataclass
class SpaceRow:
    """BatchNorm networks, one (workload, model, precision) or control: the
    final-parameter and probe-output bounds, or a control's ratios to them."""
    weights: list = field(default_factory=list)
    outputs: list = field(default_factory=list)


@dataclass
class Calibration:
    seeds: list[int] = field(default_factory=list)
    rows: dict = field(default_factory=lambda: defaultdict(Row))
    controls: dict = field(default_factory=lambda: defaultdict(ControlRow))
    errors: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)  # runs stopped before their end: not counted
    exceeded_by_case: dict = field(default_factory=lambda: defaultdict(int))  # the rule assumes seeds independent
    spaces: dict = field(default_factory=lambda: defaultdict(SpaceRow))  # (kind, key) -> weights vs outputs


def binomial_upper(k: int, n: int, level: float = 0.95) -> float:
    """One-sided upper confidence bound of a rate seen k times in n."""
    if n == 0:
        return 1.0
    if k >= n:
        return 1.0

    def cdf(p: float) -> float:  # P(X <= k) for X ~ Binomial(n, p)
        total = 0.0
        for i in range(k + 1):
            log_term = (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                        + i * math.log(p) + (n - i) * math.log1p(-p))
            total += math.exp(log_term)
        return total

    lo, hi = k / n, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) > 1 - level else (lo, mid)
    return hi


def add_run(cal: Calibration, results) -> None:
    if not results.complete:
        cal.incomplete.append(results.path)
        return
    seed = results.cases[0].seed if results.cases else -1
    cal.seeds.append(seed)
    for c in results.cases:
        if c.expect is Expect.REPORT or c.status is Status.SKIPPED:
            continue
        if c.baseline_id is None and c.expect is Expect.PASS:
            continue  # a fp32 baseline: nothing to compare
        where = f"{c.id} (seed {seed})"
        if c.status is Status.ERROR:
            cal.errors.append(f"{where}: {c.reason}")
            continue
        ratio = c.check.max_ratio if c.check and c.check.max_ratio is not None else math.inf
        add_spaces(cal, c)
        if c.expect is Expect.FAIL:
            add_control(cal.controls[c.id], c, ratio, where)
            continue
        row = cal.rows[(c.workload, c.model, c.precision)]
        row.runs += 1
        row.exceeded += ratio > 1
        cal.exceeded_by_case[c.id] += ratio > 1
        row.failed += c.status is Status.FAIL
        if ratio > row.worst:
            row.worst, row.worst_at = ratio, where


def add_spaces(cal: Calibration, case) -> None:
    """Weight space against function space, for a case with a probe."""
    bounds = case.check.bounds if case.check else {}
    weights, outputs = bounds.get("param_rel_l2"), bounds.get("probe_output_rel_l2")
    if not weights or not outputs:
        return
    pick = (lambda b: b.get("max_ratio")) if case.expect is Expect.FAIL else (lambda b: (b.get("bound") or [None])[0])
    kind = "control" if case.expect is Expect.FAIL else "case"
    key = case.id if case.expect is Expect.FAIL else (case.workload, case.model, case.precision)
    row = cal.spaces[(kind, key)]
    for values, b in ((row.weights, weights), (row.outputs, outputs)):
        value = pick(b)
        values.append(math.inf if value is None else value)


def add_control(row: ControlRow, case, ratio: float, where: str) -> None:
    row.seeds += 1
    if case.status is not Status.FAIL:
        return
    row.caught += 1
    if ratio > 1 and not (case.check and case.check.scale_audit_failed):
        if row.mildest is None or ratio < row.mildest:
            row.mildest, row.mildest_at = ratio, where
    else:
        row.by_rule += 1


def control_ok(row: ControlRow) -> bool:
    return row.caught == row.seeds and (row.mildest is None or row.mildest >= MARGIN)


def summary_lines(cal: Calibration, confirm_seeds: int) -> list[str]:
    runs = sum(r.runs for r in cal.rows.values())
    exceeded = sum(r.exceeded for r in cal.rows.values())
    failed = sum(r.failed for r in cal.rows.values())
    per_run = round(runs / max(len(cal.seeds), 1))
    upper = binomial_upper(exceeded, runs)
    rule = upper ** (1 + confirm_seeds)
    caught = sum(control_ok(r) for r in cal.controls.values())
    return [
        f"seeds: {len(cal.seeds)} ({', '.join(map(str, sorted(cal.seeds)))}); {per_run} correct cases per run",
        f"correct case-seeds beyond their bound at their own seed: {exceeded} of {runs}"
        f" (rate {exceeded / max(runs, 1):.2g}, upper 95% bound {upper:.2g})",
        f"still failing after the fresh-seed rule: {failed} of {runs}",
        f"cases beyond their bound on two or more seeds (the rule assumes seeds independent):"
        f" {sum(n >= 2 for n in cal.exceeded_by_case.values())}",
        f"with {confirm_seeds} fresh seed(s) a correct case fails with probability <= {rule:.2g};"
        f" a run of {per_run} correct cases with probability <= {1 - (1 - rule) ** per_run:.2g}",
        f"negative controls caught on every seed with margin >= {MARGIN:g} (or by a rule):"
        f" {caught} of {len(cal.controls)}",
        f"errors: {len(cal.errors)}; incomplete runs not counted: {len(cal.incomplete)}",
    ]


def markdown(cal: Calibration, confirm_seeds: int) -> str:
    out = ["# Verdict calibration", ""] + [f"- {line}" for line in summary_lines(cal, confirm_seeds)]
    out += ["", "| workload | model | precision | case-seeds | beyond bound | failed | worst ratio (case, seed) |",
            "|---|---|---|---:|---:|---:|---|"]
    for (workload, model, precision), r in sorted(cal.rows.items()):
        out.append(f"| {workload} | {model} | {precision} | {r.runs} | {r.exceeded} | {r.failed} |"
                   f" {r.worst:.3g} ({r.worst_at}) |")
    out += ["", "| negative control | seeds | caught | by a rule | mildest distance/bound (seed) |",
            "|---|---:|---:|---:|---|"]
    for cid, r in sorted(cal.controls.items()):
        mildest = "-" if r.mildest is None else f"{r.mildest:.3g} ({r.mildest_at.rsplit('(', 1)[-1]}"
        out.append(f"| {cid} | {r.seeds} | {r.caught} | {r.by_rule} | {mildest} |")
    out += space_tables(cal)
    if cal.errors:
        out += ["", "Errors:", ""] + [f"- {e}" for e in cal.errors]
    return "\n".join(out) + "\n"


def span(values: list) -> str:
    return f"{min(values):.3g}-{max(values):.3g}" if values else "-"


def space_tables(cal: Calibration) -> list[str]:
    """BatchNorm networks read in weight space and in function space."""
    cases = sorted((k, r) for (kind, k), r in cal.spaces.items() if kind == "case")
    controls = sorted((k, r) for (kind, k), r in cal.spaces.items() if kind == "control")
    if not cases and not controls:
        return []
    out = ["", "BatchNorm networks: each bound relative to fp32's own change (final parameters: of the"
           " parameters' movement; probe outputs: of the outputs' change on the probe batch).", "",
           "| workload | model | precision | case-seeds | final-parameter bound | probe-output bound |",
           "|---|---|---|---:|---|---|"]
    for (workload, model, precision), r in cases:
        out.append(f"| {workload} | {model} | {precision} | {len(r.weights)} | {span(r.weights)} | {span(r.outputs)} |")
    if controls:
        out += ["", "| negative control | seeds | distance/bound, final parameters | distance/bound, probe outputs |",
                "|---|---:|---|---|"]
        for cid, r in controls:
            out.append(f"| {cid} | {len(r.weights)} | {span(r.weights)} | {span(r.outputs)} |")
    return out


def results_files(dirs: list[str]) -> list[Path]:
    files = []
    for d in dirs:
        path = Path(d)
        files += [path] if path.is_file() else sorted(path.glob("seed-*/results.json"))
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.calibration", description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", help="folders of seed-*/results.json, or results files")
    parser.add_argument("--markdown", help="write the calibration record here")
    parser.add_argument("--confirm-seeds", type=int, default=2, help="the rule's fresh seeds (run --confirm-seeds)")
    args = parser.parse_args(argv)
    files = results_files(args.dirs)
    if not files:
        print(f"calibration: no results under {', '.join(args.dirs)}", file=sys.stderr)
        return 2
    cal = Calibration()
    try:
        for f in files:
            add_run(cal, load_results(f))
    except ResultsError as exc:
        print(f"calibration: {exc}", file=sys.stderr)
        return 2
    text = markdown(cal, args.confirm_seeds)
    if args.markdown:
        Path(args.markdown).write_text(text)
    print("\n".join(summary_lines(cal, args.confirm_seeds)))
    ok = all(r.failed == 0 for r in cal.rows.values()) and all(map(control_ok, cal.controls.values()))
    return 0 if ok and not cal.errors else 1


if __name__ == "__main__":
    sys.exit(main())
