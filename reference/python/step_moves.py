"""The moves every workload's step is made of: the forward pass and the loss
under autocast, O2's gradient collection, the inf injection hook and the
optimizer step with its skip_steps alignment.  They mirror
harness/workloads/training_state.cpp so that the C++ and Python runs agree on
every step, including the wrong procedures."""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import nn

from . import models as M
from . import forward_rng, scripted
from .training_state import TrainingState


class StepOutcome(NamedTuple):
    loss: torch.Tensor  # detached
    skipped: bool       # an optimizer skipped its step


Batch = tuple  # (inputs, labels)


def forward(s: TrainingState, model: nn.Module, inputs: torch.Tensor) -> torch.Tensor:
    def call(x):
        if s.spec.torchscript:
            return scripted.call(model, s.spec.torchscript, x)
        return model(x)

    if getattr(s, "replays_masks", False):
        forward_rng.seed_next_forward(s)

    if s.half_model:  # Apex's patched forward: float16 in, float32 out
        return call(inputs.half() if inputs.is_floating_point() else inputs).float()
    with s.autocast():
        return call(inputs)


def collect_master_grads(s: TrainingState) -> None:
    """O2: the float16 model gradients add into the float32 master ones."""
    for m in s.masters:
        m.accumulate_grads()


def loss_fn(s: TrainingState, out: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The case's loss inside autocast, times its loss_multiplier."""
    with s.autocast():
        loss = M.training_loss(out, labels, s.spec.loss)
        return loss if s.spec.loss_multiplier == 1.0 else loss * s.spec.loss_multiplier


def inject_inf_if_due(s: TrainingState) -> bool:
    """PyTorch's grad-scaling test hook: at inject_inf_step an inf lands in
    the first element of the gradient of the first parameter of optimizer
    inject_inf_optimizer (multi: 1 is the second model's)."""
    if s.step_index != s.spec.inject_inf_step:
        return False
    k = s.spec.inject_inf_optimizer
    if s.spec.inject_inf_param:
        # The whole gradient of the named parameter, as PyTorch's tests fill
        # model[1].weight.grad.
        names = [n for n, _ in s.models[k].named_parameters()]
        grad = s.trained(k)[names.index(s.spec.inject_inf_param)].grad
        if grad is not None:
            with torch.no_grad():
                grad.fill_(math.inf)
        return True
    grad = s.first_parameter(k).grad
    if grad is not None:
        with torch.no_grad():
            grad.view(-1)[0] = math.inf
    return True


def step_optimizer(s: TrainingState, opt: torch.optim.Optimizer, injected: bool) -> bool:
    """scaler.step(opt), except at a step listed for this optimizer in
    skip_steps (one list per optimizer), or in a run without a scaler whose
    gradients were poisoned on purpose: there the step is skipped as a
    scaler would have.  Returns whether the optimizer stepped."""
    i = s.optimizers.index(opt)
    stepped = _step(s, opt, i, injected)
    if s.masters:
        s.masters[i].publish()  # the next forward runs on the new masters
    if not stepped:
        s.optimizer_skipped[i] = True  # training_state.cpp's step_optimizer
    return stepped


def _step(s: TrainingState, opt: torch.optim.Optimizer, i: int, injected: bool) -> bool:
    if i < len(s.spec.skip_steps) and s.step_index in s.spec.skip_steps[i]:
        return False
    if injected and not s.scaler.is_enabled():
        return False
    before = s.steps_taken[i]
    unstarted = _without_momentum_buffer(opt)
    s.scaler.step(opt)
    if s.steps_taken[i] == before:
        return False
    # A fused optimizer is always called: its kernel skips on the device when
    # the scaler found an inf (found_inf), so the hook alone cannot tell.
    if opt.defaults.get("fused") and s.scaler.is_enabled():
        found = s.scaler._per_optimizer_states[id(opt)]["found_inf_per_device"]
        if any(float(v.item()) for v in found.values()):
            # Fused SGD made its momentum buffers uninitialised (empty_like)
            # on this first step, which the kernel then skipped: the next step
            # must be the first again, as it is for the loop implementation
            # and the C++ FusedSGD.
            for p in unstarted:
                opt.state[p].pop("momentum_buffer", None)
            return False
    return True


def _without_momentum_buffer(opt: torch.optim.Optimizer) -> list:
    if not isinstance(opt, torch.optim.SGD):
        return []
    return [p for g in opt.param_groups for p in g["params"] if opt.state[p].get("momentum_buffer") is None]
