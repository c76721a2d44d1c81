"""The oracle for the C++ GradScaler's bfloat16 rule (harness/amp/grad_scaler.h,
unscale_kernel_supports): torch.amp.GradScaler groups gradients by device and
dtype and hands each group to torch._amp_foreach_non_finite_check_and_unscale_
unchanged (no upcast). So bfloat16 gradients are unscaled on CPU, and on CUDA
the kernel, which has no bfloat16 variant, raises NotImplementedError.
"""

from __future__ import annotations

import pytest
import torch


def _unscale_bf16(device: str) -> torch.Tensor:
    p = torch.zeros(2, dtype=torch.bfloat16, device=device, requires_grad=True)
    p.grad = torch.tensor([128.0, 256.0], dtype=torch.bfloat16, device=device)
    opt = torch.optim.SGD([p], lr=1.0)
    scaler = torch.amp.GradScaler(device, init_scale=128.0)
    scaler.scale(torch.ones((), device=device))
    scaler.unscale_(opt)
    return p.grad


def test_cpu_unscales_bfloat16_gradients_in_bfloat16():
    grad = _unscale_bf16("cpu")
    assert grad.dtype == torch.bfloat16
    assert grad.tolist() == [1.0, 2.0]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_refuses_bfloat16_gradients():
    with pytest.raises(NotImplementedError, match="BFloat16"):
        _unscale_bf16("cuda")
