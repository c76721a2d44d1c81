"""Dropout replayed (harness/workloads/forward_rng.h): before each forward of
a replayed step, the default generators are seeded from (case seed, step,
forward within the step) alone, as the C++ recorded run seeds them, so the
oracle draws the very dropout masks the C++ run drew, whatever either
process drew before."""

from __future__ import annotations

import torch

_MASK = (1 << 64) - 1


def _mix(x: int) -> int:
    """splitmix64's finalizer, in 64-bit unsigned arithmetic as in C++."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def forward_seed(case_seed: int, step: int, forward_index: int) -> int:
    """The seed of forward `forward_index` (0-based, in call order) of `step`."""
    return _mix(_mix(_mix(case_seed & _MASK) ^ step) ^ forward_index)


def seed_next_forward(s) -> None:
    """Seeds the default generators (CPU and CUDA) for s's next forward."""
    if getattr(s, "_rng_step", None) != s.step_index:
        s._rng_step = s.step_index
        s._forwards_in_step = 0
    torch.manual_seed(forward_seed(s.spec.seed, s.step_index, s._forwards_in_step))
    s._forwards_in_step += 1
