"""Dropout replayed (reference/python/forward_rng.py, the oracle's side of
harness/workloads/forward_rng.h): the seed of a forward depends on the case
seed, the step and the forward's place in the step only, and the mask it
draws does not depend on the activations' dtype, which is what lets the
fp32 baseline and every mixed-precision run share their masks."""

from __future__ import annotations

import types

import torch
import torch.nn.functional as F

from reference.python import forward_rng


def state(seed: int, step: int):
    return types.SimpleNamespace(spec=types.SimpleNamespace(seed=seed), step_index=step)


def mask(s, dtype=torch.float32) -> torch.Tensor:
    torch.manual_seed(12345)  # what the process drew before must not matter
    torch.rand(7)
    forward_rng.seed_next_forward(s)
    return F.dropout(torch.ones(64, 32, dtype=dtype), 0.5, training=True) != 0


def test_the_seed_is_splitmix_of_seed_step_and_forward():
    assert forward_rng.forward_seed(1, 0, 0) == forward_rng.forward_seed(1, 0, 0)
    seeds = {forward_rng.forward_seed(seed, step, k) for seed in (1, 2) for step in range(4) for k in range(3)}
    assert len(seeds) == 24
    assert all(0 <= s < 2 ** 64 for s in seeds)


def test_each_forward_of_a_step_gets_the_next_seed_and_a_new_step_starts_again():
    s = state(1, 0)
    first, second = mask(s), mask(s)
    assert not torch.equal(first, second)
    s.step_index = 1
    other = mask(s)
    s.step_index = 0
    assert torch.equal(mask(s), first), "a step begins again at its first forward"
    assert not torch.equal(other, first)


def test_a_mask_does_not_depend_on_the_dtype():
    for dtype in (torch.float16, torch.bfloat16):
        assert torch.equal(mask(state(3, 2), dtype), mask(state(3, 2)))
