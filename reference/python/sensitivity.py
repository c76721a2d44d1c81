"""python -m reference.python.sensitivity DIR

The measurement behind the fp16/bf16 tolerances of compare.py: how far does a
float32-rounding-level difference between two implementations carry through
a case's training?  Each dumped case is replayed twice by Python, once as
dumped and once with every initial parameter moved by one float32 ulp
(alternately up and down), and the two runs are compared with the same
metrics the checker uses.  Prints, per case, the worst per-step loss
deviation and the worst final-tensor deviation relative to the distance it
travelled, in units of the precision's unit roundoff.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import torch

from .check import case_folders
from .compare import UNIT_ROUNDOFF, loss_rel
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


def travel_rel(a: torch.Tensor, b: torch.Tensor, ref: torch.Tensor | None) -> float:
    a, b = a.double().reshape(-1), b.double().reshape(-1)
    ok = torch.isfinite(a) & torch.isfinite(b)
    a, b = a[ok], b[ok]
    r = ref.double().reshape(-1)[ok] if ref is not None else torch.zeros_like(b)
    travel = float((b - r).norm())
    err = float((a - b).norm())
    return 0.0 if err == 0 else (err / travel if travel > 0 else math.inf)


def measure(folder: Path) -> tuple[str, str, float, float]:
    case = load_case(folder)
    base = replay(case)
    case.cpp.initial = [nudge(s) for s in case.cpp.initial]
    moved = replay(case)
    worst_loss = max(loss_rel(m, b) for m, b in zip(moved.loss, base.loss))
    worst_t = 0.0
    for k, (mf, bf) in enumerate(zip(moved.final, base.final)):
        for name, t in bf.items():
            if t.is_floating_point():
                worst_t = max(worst_t, travel_rel(mf[name], t, base.initial[k].get(name)))
    for (_, mt), (_, bt) in zip(moved.optimizer_state, base.optimizer_state):
        worst_t = max(worst_t, travel_rel(mt, bt, None))
    return case.spec.id, case.spec.precision, worst_loss, worst_t


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.python.sensitivity")
    parser.add_argument("dir", type=Path)
    parser.add_argument("--filter", default="")
    args = parser.parse_args(argv)
    print(f"{'case':<58} {'loss_rel':>10} {'/u':>7} {'travel_rel':>11} {'/u':>7}")
    for folder in case_folders(args.dir):
        if args.filter and args.filter not in folder.name:
            continue
        try:
            cid, prec, lr, tr = measure(folder)
        except DumpError as e:
            print(f"UNUSABLE {folder.name}: {e}", file=sys.stderr)
            continue
        u = UNIT_ROUNDOFF[prec]
        print(f"{cid:<58} {lr:10.2e} {lr / u:7.3f} {tr:11.2e} {tr / u:7.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
