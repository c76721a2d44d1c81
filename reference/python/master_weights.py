"""Apex's O2 and O3 in the oracle: the float16 model and O2's float32
master weights (harness/workloads/master_weights.h and cast_model in
harness/models/model.h)."""

from __future__ import annotations

import torch
from torch import nn

from . import scripted


def cast_model(model: nn.Module, keep_batchnorm_fp32: bool) -> None:
    """Apex's O2/O3 model: float16 parameters and buffers (module.half()
    leaves integer buffers alone), BatchNorm back to float32 for O2
    (models/model.h cast_model)."""
    model.half()
    if keep_batchnorm_fp32:
        for m in model.modules():
            if scripted.is_batchnorm(m):
                m.float()


class MasterWeights:
    """O2's float32 master weights (workloads/master_weights.h): made from
    the float32 model before it is cast, so they start where fp32 starts."""

    def __init__(self, model: nn.Module):
        self.model = list(model.parameters())
        self.params = [p.detach().clone().float().requires_grad_() for p in self.model]

    def accumulate_grads(self) -> None:
        for p, m in zip(self.model, self.params):
            if p.grad is None:
                continue
            g = p.grad.float()
            m.grad = g.clone() if m.grad is None else m.grad + g
            p.grad = None

    def publish(self) -> None:
        with torch.no_grad():
            for p, m in zip(self.model, self.params):
                p.copy_(m)
