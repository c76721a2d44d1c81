"""The GPU speed targets, read from one gpu-check run's results.

    python -m reference.python.speed_targets --large large/results.json \\
        [--large-python large/python-eager.json] \\
        [--throughput throughput/results.json \\
         --throughput-python throughput/python-eager.json] [--out targets.json]

One row per case and target, each "met", "missed" or "not measured" (the
case was skipped, no ceiling was measured, or Python did not time it):
  - model FLOP utilisation of the large decoder: bf16 >= 45%, fp16 >= 40%
  - the large decoder's fp16/bf16 throughput >= 2.5x its fp32 (IEEE) case
  - C++ >= 1.0x Python eager on every case both timed, and >= 1.3x on the
    throughput suite's fused CUDA-graph cases (a "+graph" case against
    Python's uncaptured one)
The targets are goals, not conformance: this reports them and exits 0 once
the files are read; 2 when a file is unreadable or not a valid results file.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reference.python.results_file import Case, ResultsError, Status, load_results
from reference.python.throughput_ratio import python_id

MFU_TARGET = {"bf16": 0.45, "fp16": 0.40}
SPEEDUP_TARGET = 2.5
RATIO_TARGET, GRAPH_RATIO_TARGET = 1.0, 1.3


def load_cases(path: Path) -> tuple[Case, ...]:
    return load_results(path).cases


def row(target: str, case: str, measured: float | None, bound: float, unit: str = "") -> dict:
    verdict = "not measured" if measured is None else ("met" if measured >= bound else "missed")
    return {"target": target, "case": case, "measured": measured, "bound": bound, "unit": unit, "verdict": verdict}


def timed(case: Case, key: str) -> float | None:
    return getattr(case.throughput, key) if case.throughput else None


def decoder_rows(large) -> list[dict]:
    rows = []
    for c in large:
        if c.model != "decoder" or c.precision not in MFU_TARGET:
            continue
        p = c.precision
        rows.append(row(f"{p} decoder MFU", c.id, timed(c, "model_flop_utilization"), MFU_TARGET[p], "%"))
        rows.append(row(f"{p} decoder vs fp32", c.id, timed(c, "speedup_vs_fp32"), SPEEDUP_TARGET, "x"))
    return rows


def ratio_rows(cpp, python, graph_bound: bool) -> list[dict]:
    py = {c.id: timed(c, "median") for c in python}
    rows = []
    for c in cpp:
        cpp_median, py_median = timed(c, "median"), py.get(python_id(c.id))
        if c.status is Status.SKIPPED or python_id(c.id) not in py:
            continue
        ratio = cpp_median / py_median if cpp_median and py_median else None
        graphed = graph_bound and c.id.split("@")[0].endswith("+fused+graph")
        bound = GRAPH_RATIO_TARGET if graphed else RATIO_TARGET
        rows.append(row(f"C++/Python eager >= {bound}", c.id, ratio, bound, "x"))
    return rows


def show(r: dict) -> str:
    m = r["measured"]
    value = "-" if m is None else (f"{100 * m:.1f}%" if r["unit"] == "%" else f"{m:.2f}x")
    bound = f"{100 * r['bound']:.0f}%" if r["unit"] == "%" else f"{r['bound']}x"
    return f"{r['target']:<26} {r['case']:<44} {value:>8}  >= {bound:<5} {r['verdict']}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reference.python.speed_targets", description=__doc__.split("\n")[0])
    p.add_argument("--large", type=Path, required=True, help="the large suite's C++ results.json")
    p.add_argument("--large-python", type=Path, help="Python eager's results on the large suite")
    p.add_argument("--throughput", type=Path, help="the throughput suite's C++ results.json")
    p.add_argument("--throughput-python", type=Path, help="Python eager's results on the throughput suite")
    p.add_argument("--out", type=Path, help="also write the rows as JSON here")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        large = load_cases(args.large)
        rows = decoder_rows(large)
        if args.large_python:
            rows += ratio_rows(large, load_cases(args.large_python), graph_bound=False)
        if args.throughput and args.throughput_python:
            rows += ratio_rows(load_cases(args.throughput), load_cases(args.throughput_python), graph_bound=True)
    except ResultsError as e:
        print(f"speed_targets: error: {e}", file=sys.stderr)
        return 2
    for r in rows:
        print(show(r))
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("met", "missed", "not measured")}
    print(f"{counts['met']} met, {counts['missed']} missed, {counts['not measured']} not measured")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, **counts}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
