"""Measured hardware ceilings (env.ceilings) and how close each case came.

`ampbench qualify` measures what the device can do at best: a large copy for
memory bandwidth, an n×n×n GEMM per dtype for matmul rate.  The harness then
writes, per timed case, the FLOP/s it achieved (median samples/s × analytic
FLOPs per training sample) and that over the matmul ceiling of its precision
(MFU).  The ceilings and the MFU are optional: runs without qualify carry
none, so every question about them answers None or [] instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .runs import speedup

# Matmul dtypes in the order qualify measures them; others follow as found.
MATMUL_ORDER = ("fp32", "tf32", "fp16", "bf16", "fp8")


def run_ceilings(run):
    """The file's ceilings object, or None when qualify did not run."""
    return run.env.get("ceilings") or None


def matmul_ceilings(ceilings: dict) -> list:
    """[(dtype, TFLOP/s or None, note or None)] in measuring order."""
    rates = ceilings.get("matmul_tflops") or {}
    notes = ceilings.get("notes") or {}
    dtypes = [d for d in MATMUL_ORDER if d in rates] + [d for d in rates if d not in MATMUL_ORDER]
    return [(d, rates[d], notes.get(d)) for d in dtypes]


@dataclass(frozen=True)
class Utilisation:
    achieved_flops_per_s: float | None
    mfu: float | None              # fraction of the precision's matmul ceiling
    speedup: float | None          # median samples/s over the fp32 case's
    ceiling_ratio: float | None    # matmul ceiling of the precision over fp32's


def utilisation(run, case):
    """The case's position against the ceilings; None without a throughput block."""
    tp = case.throughput
    if not tp:
        return None
    ratio = tp.speedup_vs_fp32
    if ratio is None:
        # fp32 cases write null (1 by definition), and so does a case whose
        # baseline was not timed; the throughput table's own join answers then.
        ratio = speedup(run, case)
    return Utilisation(tp.achieved_flops_per_s, tp.model_flop_utilization, ratio, tp.ceiling_speedup_vs_fp32)


def has_achieved_flops(run) -> bool:
    # The schema requires achieved_flops_per_s of every throughput block.
    return any(c.throughput for c in run.cases)


def mfu_cases(run) -> list:
    """Cases with a model FLOP utilisation, in suite order."""
    return [c for c in run.cases if c.throughput and c.throughput.model_flop_utilization is not None]
