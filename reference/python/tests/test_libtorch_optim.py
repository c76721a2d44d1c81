"""The ATen behaviour libtorch_optim.py replicates, held to the installed
torch: should a release make C++'s in-place multiply by a number round as
Python's does, these fail and the replica can go."""

from __future__ import annotations

import pytest
import torch

from reference.python.libtorch_optim import mul_

ATEN = torch.ops.aten
HALF_TYPES = (torch.float16, torch.bfloat16)


def values(dtype: torch.dtype) -> torch.Tensor:
    return torch.rand(4096, generator=torch.Generator().manual_seed(0)).to(dtype)


def differ(a: torch.Tensor, b: torch.Tensor) -> int:
    return int((a != b).sum())


@pytest.mark.parametrize("dtype", HALF_TYPES)
def test_cpps_in_place_multiply_rounds_the_number_to_the_tensors_type(dtype):
    t = values(dtype)
    cpp = mul_(t.clone(), 0.9)
    assert torch.equal(cpp, t * torch.tensor(0.9, dtype=dtype))
    assert differ(cpp, t.clone().mul_(0.9)) > t.numel() // 20


def test_in_float32_the_two_multiplies_agree():
    t = values(torch.float32)
    assert torch.equal(mul_(t.clone(), 0.9), t.clone().mul_(0.9))


@pytest.mark.parametrize("dtype", HALF_TYPES)
def test_the_optimizers_other_calls_with_a_number_round_alike(dtype):
    """LibTorch's Adam divides by a number, adds eps, and its addcmul_ and
    add_ take the number as a coefficient: the same arithmetic as Python's."""
    t, u = values(dtype), values(dtype).flip(0)
    assert torch.equal(ATEN.div.Scalar(t, 3.3), t / 3.3)
    assert torch.equal(ATEN.add_.Scalar(t.clone(), 1e-3), t.clone().add_(1e-3))
    assert torch.equal(ATEN.mul.Scalar(t, 0.9), t * 0.9)
    assert torch.equal(ATEN.add_.Tensor(t.clone(), u, alpha=-0.05), t.clone().add_(u, alpha=-0.05))
    assert torch.equal(ATEN.addcmul_.default(t.clone(), u, u, value=0.001), t.clone().addcmul_(u, u, value=0.001))
