"""torch::optim::SGD as LibTorch computes it.

The C++ "loop" SGD cases step LibTorch's SGD, which is torch.optim's
single-tensor SGD line for line (the first step's buffer a clone of the
gradient, then `buf.mul_(momentum).add_(grad, 1 - dampening)`) but for the
multiply's rounding in a half type (libtorch_optim.py).  The state key is
torch.optim's (momentum_buffer), so everything that reads an optimizer's
state reads this one alike."""

from __future__ import annotations

import torch

from .libtorch_optim import LoopOptimizer, mul_


class LibTorchSGD(LoopOptimizer):
    def __init__(self, params, lr: float, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov}
        super().__init__(params, defaults)

    def _update(self, p: torch.Tensor, group: dict) -> None:
        d_p = p.grad
        if group["weight_decay"] != 0:
            d_p = d_p.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            buf = self.state[p].get("momentum_buffer")
            if buf is None:
                buf = self.state[p]["momentum_buffer"] = d_p.detach().clone()
            else:
                mul_(buf, momentum).add_(d_p, alpha=1 - group["dampening"])
            d_p = d_p.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(d_p, alpha=-group["lr"])
