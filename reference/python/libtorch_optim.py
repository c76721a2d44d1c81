"""What LibTorch's loop optimizers share, for the oracle's replicas
(libtorch_sgd.py, libtorch_adam.py): a step that updates one parameter at a
time, and the one ATen call whose rounding differs from the same line in
Python, an in-place multiply by a number.

C++'s `t.mul_(0.9)` calls `aten::mul_.Scalar`, which on a float16 or
bfloat16 CPU tensor rounds the number to the tensor's dtype first (0.9 ->
0.89990234375 in float16); Python's `t.mul_(0.9)` calls `aten::mul_.Tensor`
with the number as a wrapped float, and multiplies in float32.  The
out-of-place `mul`, `div`, `add_` and `addcmul_` round alike on both sides
(tests/test_libtorch_optim.py holds all of this to the installed torch).
In float32 the two agree, so only parameters kept in a half type (Apex O3,
the no-master-weights controls) see it: one or two ulps on a tenth of the
momentum buffers' elements per step, which a network with BatchNorm carried
past the O3 tolerance in twelve steps."""

from __future__ import annotations

import torch


def mul_(t: torch.Tensor, number: float) -> torch.Tensor:
    """`t.mul_(number)` as C++ computes it."""
    return torch.ops.aten.mul_.Scalar(t, number)


class LoopOptimizer(torch.optim.Optimizer):
    """One parameter at a time, those with a gradient, in the group's order
    (LibTorch's step); subclasses give `_update(p, group)`."""

    @torch.no_grad()
    def step(self, closure=None):
        assert closure is None, f"{type(self).__name__} takes no closure"
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return None

    def _update(self, p: torch.Tensor, group: dict) -> None:
        raise NotImplementedError
