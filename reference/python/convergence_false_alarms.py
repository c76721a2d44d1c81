"""The convergence rule's false-alarm rate over extra seeds (docs/convergence.md).

Reads convergence runs made over more seeds than the suite's ten (e.g. the
suite's seeds 1..10 and a copy over seeds 11..50; several files are joined
case by case, in order), cuts every case's runs into blocks of ten seeds, and judges each block
by the suite's rule with scipy, independently of the C++ harness:

* correct precision vs fp32 on the same block of seeds;
* fp32 vs fp32 on disjoint blocks (every ordered pair of blocks), the rule's
  size under the null: the two sides differ by seeds only.

    python -m reference.python.convergence_false_alarms RESULTS.json...

Prints each alarm and the counts; exit 0.
"""

from __future__ import annotations

import argparse
import math
import sys

from scipy import stats

from reference.python.bounded_json import read_bounded_json

BLOCK = 10
TRIM = 1
MAX_MISSED = 1


def trimmed(values: list[float]) -> list[float]:
    return sorted(values)[TRIM:len(values) - TRIM]


def side(runs: list[dict]) -> dict:
    steps = [r["steps_to_target"] if r["steps_to_target"] is not None else math.inf for r in runs]
    return {"steps": trimmed(steps), "missed": sum(1 for s in steps if math.isinf(s)),
            "accuracy": sum(trimmed([r["final_accuracy"] for r in runs])) / (len(runs) - 2 * TRIM)}


def alarms(candidate: list[dict], reference: list[dict], rule: dict) -> list[str]:
    """The rule's failures of `candidate` against `reference` (empty: conforms)."""
    c, r = side(candidate), side(reference)
    out = []
    if c["missed"] > MAX_MISSED:
        out.append(f"{c['missed']} runs missed the target")
    if all(math.isfinite(v) for v in c["steps"] + r["steps"]):
        if len(set(c["steps"])) > 1 or len(set(r["steps"])) > 1:
            p = stats.ttest_ind(c["steps"], r["steps"], equal_var=False, alternative="greater").pvalue
        else:
            p = 0.5 if c["steps"][0] == r["steps"][0] else (0.0 if c["steps"][0] > r["steps"][0] else 1.0)
        if p < rule["alpha"]:
            out.append(f"slower to target, p = {p:.3g}")
    else:
        out.append("steps to target not testable")
    if r["accuracy"] - c["accuracy"] > rule["accuracy_band"]:
        out.append(f"final accuracy {r['accuracy'] - c['accuracy']:.4f} below")
    return out


def joined_cases(paths: list[str]) -> list[dict]:
    """The correct converge cases of every file, a case's runs joined in order."""
    cases: list[dict] = []
    for path in paths:
        for c in read_bounded_json(path)["cases"]:
            if not c.get("convergence") or c["expect"] != "pass":
                continue
            if same := next((k for k in cases if k["id"] == c["id"]), None):
                same["convergence"]["runs"] += c["convergence"]["runs"]
            else:
                cases.append(c)
    return cases


def blocks(case: dict) -> list[list[dict]]:
    runs = case["convergence"]["runs"]
    return [runs[i:i + BLOCK] for i in range(0, len(runs) - BLOCK + 1, BLOCK)]


def judge_reference(fp32: dict, cases: list[dict]) -> None:
    """Each precision against its own fp32 reference (a suite with several
    models has one per model), then that reference's blocks pairwise."""
    model = fp32["model"]
    rule = fp32["convergence"]["rule"]
    ref_blocks = blocks(fp32)
    verdicts = fired = 0
    for case in (c for c in cases if c.get("baseline_id") == fp32["id"]):
        for i, (cand, ref) in enumerate(zip(blocks(case), ref_blocks)):
            verdicts += 1
            if why := alarms(cand, ref, rule):
                fired += 1
                print(f"{model} {case['precision']} block {i}: {'; '.join(why)}")
    print(f"{model}: correct precisions vs fp32, same seeds: {fired} alarms in {verdicts} verdicts")
    pairs = pair_fired = 0
    for i, cand in enumerate(ref_blocks):
        for j, ref in enumerate(ref_blocks):
            if i != j:
                pairs += 1
                if why := alarms(cand, ref, rule):
                    pair_fired += 1
                    print(f"{model} fp32 block {i} vs fp32 block {j}: {'; '.join(why)}")
    print(f"{model}: fp32 vs fp32, disjoint seeds: {pair_fired} alarms in {pairs} ordered pairs of {BLOCK}-seed blocks")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+")
    args = parser.parse_args(argv)
    cases = joined_cases(args.results)
    for fp32 in (c for c in cases if c["precision"] == "fp32" and not c.get("baseline_id")):
        judge_reference(fp32, cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
