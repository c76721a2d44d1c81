#!/usr/bin/env python3
"""Every workload must exercise what it names: its fp32 loss trajectory must
differ from `plain`'s on the same model, optimizer and settings. A clip that
never clips, or an accumulation that is a plain step, would be bit-identical
and prove nothing.

    python3 ci/workloads-differ.py results.json

Exit 0 when every workload differs from plain, 1 naming those that do not,
2 on unusable input (reference/python/results_file.py names the problem).
Only fp32 cases with no tag are compared (tagged cases change settings on
purpose; dataparallel and ddp use other batch layouts).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reference.python.results_file import ResultsError, Status, load_results  # noqa: E402

# Workloads that may legitimately train exactly like plain, with the reason.
MAY_EQUAL_PLAIN = {}


def main(path):
    try:
        cases = load_results(path).cases
    except ResultsError as e:
        print(f"workloads-differ: error: {e}", file=sys.stderr)
        return 2
    fp32 = {(c.workload, c.model, c.optimizer): c.trajectory.loss
            for c in cases if c.precision == "fp32" and c.variant == "correct" and not c.tag
            and not c.scaler_enabled and c.status is Status.PASS}
    same, compared = [], 0
    for (workload, model, optimizer), loss in sorted(fp32.items()):
        plain = fp32.get(("plain", model, optimizer))
        if workload == "plain" or plain is None or workload in MAY_EQUAL_PLAIN:
            continue
        compared += 1
        if loss == plain:
            same.append(f"{workload}/{model}/fp32/{optimizer}")
    if compared == 0:
        print(f"workloads-differ: error: {path}: no workload to compare with plain", file=sys.stderr)
        return 2
    if same:
        print(f"workloads-differ: {len(same)} of {compared} fp32 trajectories are bit-identical to plain's "
              f"(the mechanism never engaged): {', '.join(same)}")
        return 1
    print(f"workloads-differ: all {compared} fp32 trajectories differ from plain's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
