#!/usr/bin/env python3
"""The data behind the equivalence envelope (docs/checks.md, "The equivalence
envelope"), from one or more results files of schema 2:

    python3 ci/envelope-table.py results/.../results.json [more.json ...]

Per case, the largest distance/bound over its metrics; then, over correct
cases, how the AMP distance compares with the replicas' envelope (without c)
early and late in training, which is how a noise model is judged: a model
that reproduces the growth of the distance with the step count gives the
same ratio early and late. Ends with the worst correct case, the mildest
numerically caught control and their margin.
"""
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reference.python.results_file import Expect, Status, load_results  # noqa: E402


def loss_ratios(check):
    """distance / envelope per step (envelope without c), steps with both > 0."""
    b = check.bounds["loss_rel"]
    env = b.get("envelope") or []
    return [d / e for d, e in zip(b["distance"], env) if d is not None and e]


def thirds(values):
    n = len(values)
    return values[: max(1, n // 3)], values[n - max(1, n // 3):]


def main(paths):
    correct, controls = [], []
    early, late, params = [], [], []
    for path in paths:
        for c in load_results(path).cases:
            check = c.check
            if not check or not check.bounds:  # schema 1 files have no bounds
                continue
            ratio = check.max_ratio if check.max_ratio is not None else math.inf
            row = (ratio, c.id, path)
            if c.expect is Expect.PASS:
                correct.append(row)
                r = loss_ratios(check)
                if r and check.envelope:
                    first, last = thirds(r)
                    early.append(max(first))
                    late.append(max(last))
                    p = check.bounds["param_rel_l2"]
                    if p["envelope"] and p["envelope"][0]:
                        params.append(p["distance"][0] / p["envelope"][0])
            elif c.status is Status.FAIL and ratio > 1:
                controls.append(row)
            print(f"{c.id:60s} {c.status:5s} {c.expect:4s} max distance/bound {ratio:8.3f}")
    if early:
        print(f"\ncorrect cases with an envelope: {len(early)}")
        for name, values in (("loss, first third of steps", early), ("loss, last third of steps", late),
                             ("final parameters", params)):
            q = statistics.quantiles(values, n=10) if len(values) > 1 else values * 9
            print(f"  AMP distance / envelope, {name:28s} median {statistics.median(values):6.2f}"
                  f"  p90 {q[-1]:6.2f}  max {max(values):6.2f}")
    if correct and controls:
        worst, mild = max(correct), min(controls)
        print(f"\nworst correct case: {worst[0]:.3f} of its bound ({worst[1]})")
        print(f"mildest caught control: {mild[0]:.3f} ({mild[1]})")
        print(f"margin: {mild[0] / worst[0]:.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
