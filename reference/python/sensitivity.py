"""python -m reference.python.sensitivity DIR

The measurement behind the fp16/bf16 tolerances of compare.py: how far does a
float32-rounding-level difference between two implementations carry through
a case's training?  Each dumped case is replayed twice by Python, once as
dumped and once with every initial parameter moved by one float32 ulp
(alternately up and down), and the two runs are compared with the
checker's own metrics and tolerances.  Prints, per case, the worst per-step
loss deviation (also in units of the precision's unit roundoff), the worst
final tensor's deviation as a fraction of its tolerance (<= 1 passes), and
whether the scale trajectory and skipped steps stayed identical.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import torch

from .check import case_folders, nograd_relaxations
from .nograd import envelope
from .compare import UNIT_ROUNDOFF, compare_runs
from .replay import DumpError, load_case, replay


def nudge(state: dict) -> dict:
    """Every floating-point tensor one ulp away, alternating direction."""
    out = {}
    for name, t in state.items():
        if t.is_floating_point():
            flat = t.reshape(-1)
            sign = torch.ones_like(flat)
            sign[1::2] = -1
            target = torch.where(sign > 0, torch.full_like(flat, math.inf), torch.full_like(flat, -math.inf))
            out[name] = torch.nextafter(flat, target).reshape(t.shape)
        else:
            out[name] = t.clone()
    return out


def measure(folder: Path):
    """(case id, precision, report): the nudged replay compared with the
    plain one by the checker's own metrics and tolerances."""
    case = load_case(folder)
    base = replay(case)
    # As the checker: elements without a true gradient are not held to the
    # rounding tolerances (their optimizer state is noise).
    relaxed = envelope(case, base, nograd_relaxations(case))[0]
    case.cpp.initial = [nudge(s) for s in case.cpp.initial]
    moved = replay(case)
    moved.initial = base.initial  # distance travelled measured from the dumped start
    return case.spec.id, case.spec.precision, compare_runs(case.spec.id, case.spec.precision, moved, base,
                                                           relaxed=relaxed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.python.sensitivity")
    parser.add_argument("dir", type=Path)
    parser.add_argument("--filter", default="")
    args = parser.parse_args(argv)
    print(f"{'case':<58} {'loss_rel':>9} {'/u':>6} {'tensor dev':>10}  trajectory")
    for folder in case_folders(args.dir):
        if args.filter and args.filter not in folder.name:
            continue
        try:
            cid, prec, rep = measure(folder)
        except DumpError as e:
            print(f"UNUSABLE {folder.name}: {e}", file=sys.stderr)
            continue
        same = not any(m.tensor in ("scale", "skipped") for m in rep.mismatches)
        u = UNIT_ROUNDOFF[prec]
        print(f"{cid:<58} {rep.max_loss_rel:9.2e} {rep.max_loss_rel / u:6.3f} {rep.max_tensor_dev:10.3f}  "
              f"{'same' if same else 'DIFFERENT'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
