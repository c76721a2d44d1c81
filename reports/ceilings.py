"""Measured hardware ceilings (env.ceilings) and how close each case came.

`ampbench qualify` measures what the device can do at best: a large copy for
memory bandwidth, an n×n×n GEMM per dtype for matmul rate.  The harness then
writes, per case, the FLOP/s it achieved (median samples/s × analytic FLOPs
per training sample) and that over the matmul ceiling of its precision (MFU).
Everything here is optional: older files, and runs without qualify, carry
none of it, so every question answers None or [] instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .runs import speedup

# Matmul dtypes in the order qualify measures them; others follow as found.
MATMUL_ORDER = ("fp32", "tf32", "fp16", "bf16")


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
    tp = case.get("throughput")
    if not tp:
        return None
    ratio = tp.get("speedup_vs_fp32")
    if ratio is None:
        # fp32 cases write null (1 by definition) and older files lack the
        # field; the throughput table's own join gives the same number then.
        ratio = speedup(run, case)
    return Utilisation(tp.get("achieved_flops_per_s"), tp.get("model_flop_utilization"),
                       ratio, tp.get("ceiling_speedup_vs_fp32"))


def has_achieved_flops(run) -> bool:
    return any((c.get("throughput") or {}).get("achieved_flops_per_s") is not None
               for c in run.cases)


def mfu_cases(run) -> list:
    """Cases with a model FLOP utilisation, in suite order."""
    return [c for c in run.cases if (c.get("throughput") or {}).get("model_flop_utilization") is not None]
