"""Gradient-norm clipping with LibTorch's rounding, for the C++ "loop" cases."""

from __future__ import annotations

import torch


def libtorch_clip_grad_norm_(params: list, max_norm: float) -> None:
    """torch::nn::utils::clip_grad_norm_ as LibTorch computes it (the C++
    "loop" cases call it): ATen's norm of each gradient, then of their stack,
    and the coefficient `max_norm / (total + 1e-6)` as C++'s Scalar / Tensor
    operator computes it (ATen/TensorOperators.h: a tensor filled with
    max_norm, divided), one rounding where Python's float / Tensor takes two
    (reciprocal, then multiply).  torch.nn.utils.clip_grad_norm_ takes
    linalg.vector_norm instead, whose result differs in the last bit too.  A
    network whose BatchNorm biases are sums of updates that nearly cancel
    (ResNet) amplifies either bit past float32's tolerance within a few
    steps."""
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    with torch.no_grad():
        norms = [torch.ops.aten.norm.Scalar(g, 2) for g in grads]
        total = norms[0] if len(norms) == 1 else torch.ops.aten.norm.Scalar(torch.stack(norms), 2)
        coef = torch.clamp(torch.empty_like(total).fill_(max_norm).div_(total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef)
