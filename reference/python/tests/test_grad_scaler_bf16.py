"""The oracle for the C++ GradScaler's bfloat16 rule (harness/amp/grad_scaler.h,
unscale_kernel_supports): torch.amp.GradScaler groups gradients by device and
dtype and hands each group to torch._amp_foreach_non_finite_check_and_unscale_
unchanged (no upcast). So bfloat16 gradients are unscaled on CPU, and on CUDA
the kernel, which has no bfloat16 variant, raises NotImplementedError.

Also a script (CTest reference.grad_scaler_bf16_oracle, so ci/gpu-check.sh
runs the CUDA half without needing pytest on the GPU machine).
"""

from __future__ import annotations

import torch


def _unscale_bf16(device: str) -> torch.Tensor:
    p = torch.zeros(2, dtype=torch.bfloat16, device=device, requires_grad=True)
    p.grad = torch.tensor([128.0, 256.0], dtype=torch.bfloat16, device=device)
    opt = torch.optim.SGD([p], lr=1.0)
    scaler = torch.amp.GradScaler(device, init_scale=128.0)
    scaler.scale(torch.ones((), device=device))
    scaler.unscale_(opt)
    return p.grad


def check_cpu_unscales_in_bfloat16() -> None:
    grad = _unscale_bf16("cpu")
    assert grad.dtype == torch.bfloat16, grad.dtype
    assert grad.tolist() == [1.0, 2.0], grad.tolist()


def check_cuda_refuses() -> None:
    try:
        grad = _unscale_bf16("cuda")
    except NotImplementedError as e:
        assert "BFloat16" in str(e), str(e)
        return
    raise AssertionError(f"torch.amp.GradScaler unscaled bfloat16 gradients on CUDA ({grad.tolist()}): "
                         "the C++ rule (unscale_kernel_supports) must follow it")


def test_cpu_unscales_bfloat16_gradients_in_bfloat16():
    check_cpu_unscales_in_bfloat16()


def test_cuda_refuses_bfloat16_gradients():
    if not torch.cuda.is_available():
        import pytest

        pytest.skip("needs a CUDA device")
    check_cuda_refuses()


if __name__ == "__main__":
    check_cpu_unscales_in_bfloat16()
    print("cpu: torch.amp.GradScaler unscales bfloat16 gradients (in bfloat16)")
    if torch.cuda.is_available():
        check_cuda_refuses()
        print("cuda: torch.amp.GradScaler raises NotImplementedError for bfloat16 gradients")
    else:
        print("cuda: not checked (no CUDA device)")
