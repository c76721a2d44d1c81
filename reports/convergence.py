"""A converge case's runs, one per seed, reduced to what the report draws.

The converge workload trains each case from several seeds and records, per
seed, an evaluation every `eval_every` steps: validation accuracy and loss,
the mean training loss and the loss scale (harness/results/convergence_json.cpp,
docs/convergence.md).  The rule judges a precision by its seeds' steps to
target and final accuracy, trimmed Olympic-style; the report draws each
case's mean curve over its seeds and fp32's spread across seeds, trimmed the
same way, so a reader sees how far a recipe sits from fp32's own noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference.python.results_file import Case


@dataclass(frozen=True)
class SeedSpread:
    """One quantity of a case over its seeds, at each evaluation step.

    mean: over every seed that recorded the step; low/high: the range of
    those seeds with the `trim` lowest and highest dropped.  NaN at a step
    where some seed's value was not finite (the writer's null): a mean
    through a diverged run would pretend it stayed finite.
    """
    steps: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    seeds: int


def convergence_block(case: Case):
    """The case's `convergence` object, or None when it has no runs (not a
    converge case, or one that was skipped or failed before training)."""
    block = case.raw.get("convergence")
    return block if isinstance(block, dict) and block.get("runs") else None


def convergence_cases(cases) -> list:
    return [c for c in cases if convergence_block(c) is not None]


def seed_runs(case: Case) -> list:
    return list(convergence_block(case)["runs"])


def rule(case: Case) -> dict:
    return convergence_block(case).get("rule") or {}


def uses_scaler(case: Case) -> bool:
    """Whether a GradScaler ran: the writer says so; older files only show
    it by a scale other than 1."""
    if case.scaler_enabled is not None:
        return bool(case.scaler_enabled)
    return any(v not in (None, 1.0) for r in seed_runs(case) for v in r.get("scale") or [])


def skipped_steps(case: Case) -> int:
    return sum(int(r.get("skipped_steps") or 0) for r in seed_runs(case))


def over_seeds(runs, key: str, trim: int = 0, geometric: bool = False) -> SeedSpread | None:
    """runs[i][key] aligned on runs[i]["step"] and reduced across seeds.

    trim: values dropped at each end of the range at a step, when more than
    2 x trim seeds recorded it (fewer: the full range).  geometric: mean of
    the logarithms, for a loss scale, which moves by factors.
    None when no run recorded the key.
    """
    values, present, steps = _aligned(runs, key)
    if not steps.size:
        return None
    if geometric:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(values > 0, np.log(values), np.nan)
    mean, low, high = (np.full(steps.size, np.nan) for _ in range(3))
    for col in range(steps.size):
        column = np.sort(values[present[:, col], col])
        if np.isnan(column).any():
            continue
        mean[col] = column.mean()
        kept = column[trim:column.size - trim] if column.size > 2 * trim else column
        low[col], high[col] = kept[0], kept[-1]
    if geometric:
        mean, low, high = np.exp(mean), np.exp(low), np.exp(high)
    return SeedSpread(steps, mean, low, high, len(runs))


def _aligned(runs, key):
    """(values, present, steps): one row per run, one column per step any
    run recorded; a run's missing step is absent, its null is NaN."""
    steps = np.array(sorted({s for r in runs if r.get(key) for s in r.get("step") or []}), dtype=float)
    column = {s: i for i, s in enumerate(steps)}
    values = np.full((len(runs), steps.size), np.nan)
    present = np.zeros(values.shape, dtype=bool)
    for row, run in enumerate(runs):
        for step, value in zip(run.get("step") or [], run.get(key) or []):
            col = column[float(step)]
            present[row, col] = True
            values[row, col] = np.nan if value is None else value
    return values, present, steps
