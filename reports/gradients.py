"""Gradient health per optimizer step (case.grad_health) and why fp16 needs a scaler.

float16's smallest subnormal is 2⁻²⁴ ≈ 6e-8: a gradient value below that
becomes 0 when cast.  The harness counts, at every step, the fraction of
gradient values that would underflow unscaled (scale 1, what training without
a GradScaler loses) and at the scale the scaler actually used, plus the
non-finite values that make the scaler skip a step.  fp32 baselines carry the
same counts, so a reader sees the underflow is the model's, not the fp16 run's.
Older files have no grad_health; every helper answers None or [] then.
"""

from __future__ import annotations

import numpy as np

from reference.python.results_file import Case

from .runs import as_array, fp32_baseline

AT_SCALE_1 = "underflow_fp16_fraction_at_scale_1"
AT_SCALE = "underflow_fp16_fraction_at_scale"
NONFINITE = "nonfinite"


def health(case: Case) -> dict:
    return case.grad_health or {}


def series(case: Case, key: str) -> np.ndarray:
    """One grad_health series as floats, NaN where the file has null."""
    return as_array(health(case).get(key))


def mean_fraction(case: Case, key: str):
    """Mean over steps of an underflow fraction; None when no finite value."""
    values = series(case, key)
    values = values[np.isfinite(values)]
    return float(values.mean()) if values.size else None


def nonfinite_steps(case: Case):
    """Steps with at least one non-finite gradient value (null counts as one:
    the writer could not even count); None when the series is absent."""
    counts = health(case).get(NONFINITE)
    if counts is None:
        return None
    return sum(1 for n in counts if n is None or n > 0)


def health_cases(run) -> list:
    return [c for c in run.cases if c.grad_health]


def scaler_pairs(run) -> list:
    """[(fp16 case, its fp32 baseline or None)] for fp16 cases with grad_health;
    the baseline only when it carries grad_health too."""
    pairs = []
    for case in health_cases(run):
        if case.precision != "fp16":
            continue
        base = fp32_baseline(run, case)
        pairs.append((case, base if base and base.grad_health else None))
    return pairs
