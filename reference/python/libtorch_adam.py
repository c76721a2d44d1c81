"""torch::optim::Adam and torch::optim::AdamW as LibTorch computes them.

The C++ "loop" cases step LibTorch's own optimizers (harness/optim), whose
update is the same algorithm as torch.optim's single-tensor Adam/AdamW
rounded in another order: the first moment as `mul_(beta1).add_(grad,
1 - beta1)` where torch.optim takes `lerp_(grad, 1 - beta1)`.  One ulp per
step is nothing to a tolerance, but an element without a true gradient
(nograd.py) turns it into a different coin toss under AdamW, and a network
whose BatchNorm removes such elements' effect (ResNet's convolutions that
only ever see a constant) amplifies that past every tolerance in fp16
within ten steps.  Its multiplies by a number round as C++'s do
(libtorch_optim.py).  So the oracle replays the loop cases with LibTorch's
rounding (this class), and the foreach and fused cases, which are
ampbench's own code, with torch.optim's (training_state.make_optimizer).  That
the two roundings are one algorithm is itself tested
(tests/test_libtorch_adam.py: within a few ulps of torch.optim's AdamW and
Adam on every setting).
"""

from __future__ import annotations

import math

import torch

from .libtorch_optim import LoopOptimizer, mul_


class LibTorchAdam(LoopOptimizer):
    """One parameter group; `decoupled`: AdamW's weight decay (a shrink of
    the parameter before the step) instead of Adam's L2 term in the
    gradient.  The state keys are torch.optim's (step, exp_avg, exp_avg_sq,
    max_exp_avg_sq with amsgrad), so everything that reads an optimizer's
    state reads this one alike."""

    def __init__(self, params, lr: float, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0,
                 amsgrad: bool = False, decoupled: bool = False):
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "decoupled": decoupled}
        super().__init__(params, defaults)

    def _update(self, p: torch.Tensor, group: dict) -> None:
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        grad = p.grad
        if wd != 0:
            if group["decoupled"]:
                mul_(p, 1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["step"] += 1
        bias_correction1 = 1 - beta1 ** state["step"]
        bias_correction2 = 1 - beta2 ** state["step"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        mul_(exp_avg, beta1).add_(grad, alpha=1 - beta1)
        mul_(exp_avg_sq, beta2).addcmul_(grad, grad, value=1 - beta2)
        if group["amsgrad"]:
            torch.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
            second = state["max_exp_avg_sq"]
        else:
            second = exp_avg_sq
        denom = (second.sqrt() / math.sqrt(bias_correction2)).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-(lr / bias_correction1))
