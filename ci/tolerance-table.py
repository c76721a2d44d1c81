#!/usr/bin/env python3
"""Per-case deviations in units of the precision's unit roundoff, from a
results file: the data behind the default tolerances (README, "How the
default tolerances were chosen").

    python3 ci/tolerance-table.py results/.../results.json
"""
import json
import sys

METRICS = [("max_loss_rel_dev", "loss"), ("param_rel_l2", "param"),
           ("optimizer_state_rel_l2", "opt"), ("final_loss_ratio", "final")]


def units(case):
    check = case["check"]
    u = check["tolerances"]["unit_roundoff"]
    out = {}
    for key, name in METRICS:
        v = check["metrics"].get(key)
        if v is None:
            out[name] = float("inf")
        else:
            out[name] = (abs(v - 1) if key == "final_loss_ratio" else v) / u
    return out


def main(path):
    cases = [c for c in json.load(open(path))["cases"] if c.get("check")]
    worst = {}
    for c in cases:
        us = units(c)
        kind = "control" if c["expect"] == "fail" else "correct"
        print(f"{c['id']:56s} {c['status']:5s} {kind:7s} " +
              " ".join(f"{n}={us[n]:10.2f}u" for _, n in METRICS))
        for n, v in us.items():
            key = (c["precision"], kind, n)
            agg = max if kind == "correct" else min
            worst[key] = agg(worst.get(key, v), v)
    print("\nprecision  metric  worst-correct  mildest-control   (units of u)")
    for p in ("fp16", "bf16"):
        for _, n in METRICS:
            wc = worst.get((p, "correct", n), float("nan"))
            mc = worst.get((p, "control", n), float("nan"))
            print(f"{p:9s}  {n:6s}  {wc:13.2f}  {mc:15.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
