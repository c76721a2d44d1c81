"""The suite's single-process workloads, written with PyTorch's Python API:
torch.autocast for the forward pass and torch.amp.GradScaler for loss
scaling.  Each step function does one optimizer iteration and reads like the
recipe; the negative controls are the `variant` branches beside the correct
line they break, as in harness/workloads/*.cpp.

The steps are made of the shared moves of step_moves.py on the state of
training_state.py, as the C++ steps are made of training_state.cpp's.
"""

from __future__ import annotations

from typing import Callable

import torch

from .clip_grad import libtorch_clip_grad_norm_
from .step_moves import (Batch, StepOutcome, collect_master_grads, forward, inject_inf_if_due, loss_fn,
                         step_optimizer)
from .training_state import TrainingState, make_scaler

# The oracle's entry points (replay, bench, nograd, export) import these from here.
from .master_weights import MasterWeights, cast_model  # noqa: F401
from .training_state import (AUTOCAST_DTYPES, apply_lr_schedule, make_optimizer,  # noqa: F401
                             optimizer_state_tensors, scheduled_lr)


def plain_step(s: TrainingState, batches: list[Batch]) -> StepOutcome:
    x, y = batches[0]
    # Negative control: a scaler re-created every step is never updated
    # across steps, so its scale never backs off or grows.
    if s.spec.variant == "fresh_scaler_each_step":
        s.scaler = make_scaler(s.spec, s.device)
    model, opt = s.models[0], s.optimizers[0]
    opt.zero_grad()
    out = forward(s, model, x)
    loss = loss_fn(s, out, y)
    s.scaler.scale(loss).backward()  # outside the autocast region
    collect_master_grads(s)
    injected = inject_inf_if_due(s)
    stepped = step_optimizer(s, opt, injected)
    s.scaler.update()
    return StepOutcome(loss.detach(), not stepped)


def _clip_step(s: TrainingState, batches: list[Batch], by_norm: bool) -> StepOutcome:
    x, y = batches[0]
    model, opt = s.models[0], s.optimizers[0]
    opt.zero_grad()
    out = forward(s, model, x)
    loss = loss_fn(s, out, y)
    s.scaler.scale(loss).backward()
    collect_master_grads(s)
    injected = inject_inf_if_due(s)
    # Negative control "clip_before_unscale" omits this line: the threshold
    # then clips gradients that are still multiplied by the scale.
    if s.spec.variant != "clip_before_unscale":
        s.scaler.unscale_(opt)
    params = s.trained(0)  # O2: the masters' float32 gradients
    if by_norm:
        if s.spec.optimizer_impl == "loop":
            libtorch_clip_grad_norm_(params, s.spec.max_norm)
        else:  # the C++ foreach and fused cases clip on the device, as Python does
            torch.nn.utils.clip_grad_norm_(params, s.spec.max_norm)
    else:
        torch.nn.utils.clip_grad_value_(params, s.spec.clip_value)
    stepped = step_optimizer(s, opt, injected)
    s.scaler.update()
    return StepOutcome(loss.detach(), not stepped)


def clip_norm_step(s: TrainingState, batches: list[Batch]) -> StepOutcome:
    return _clip_step(s, batches, by_norm=True)


def clip_value_step(s: TrainingState, batches: list[Batch]) -> StepOutcome:
    return _clip_step(s, batches, by_norm=False)


def accumulation_step(s: TrainingState, micro_batches: list[Batch]) -> StepOutcome:
    model, opt = s.models[0], s.optimizers[0]
    n = len(micro_batches)
    every_microbatch = s.spec.variant == "step_every_microbatch"  # negative control
    total = None
    any_skipped = False
    injected = False
    for i, (x, y) in enumerate(micro_batches):
        out = forward(s, model, x)
        loss = loss_fn(s, out, y) / n
        s.scaler.scale(loss).backward()
        collect_master_grads(s)  # O2: micro-batches accumulate in float32
        total = loss.detach() if total is None else total + loss.detach()
        last = i == n - 1
        if last:
            injected = inject_inf_if_due(s)
        if last or every_microbatch:
            any_skipped |= not step_optimizer(s, opt, injected)
            s.scaler.update()
    opt.zero_grad()
    return StepOutcome(total, any_skipped)


def penalty_step(s: TrainingState, batches: list[Batch]) -> StepOutcome:
    x, y = batches[0]
    model, opt = s.models[0], s.optimizers[0]
    opt.zero_grad()
    params = list(model.parameters())
    out = forward(s, model, x)
    loss = loss_fn(s, out, y)
    grads = torch.autograd.grad(s.scaler.scale(loss), params, retain_graph=True, create_graph=True)
    # No optimizer owns these gradients, so unscale_ does not apply: unscale
    # by hand.  Negative control "penalty_from_scaled_grads" skips this.
    if s.spec.variant != "penalty_from_scaled_grads":
        inv_scale = 1.0 / s.scaler.get_scale()
        grads = [g * inv_scale for g in grads]
    with s.autocast():
        norm_sq = grads[0].pow(2).sum()
        for g in grads[1:]:
            norm_sq = norm_sq + g.pow(2).sum()
        loss = loss + norm_sq.sqrt()
    s.scaler.scale(loss).backward()
    collect_master_grads(s)
    injected = inject_inf_if_due(s)
    stepped = step_optimizer(s, opt, injected)
    s.scaler.update()
    return StepOutcome(loss.detach(), not stepped)


def multi_step(s: TrainingState, batches: list[Batch]) -> StepOutcome:
    x, y = batches[0]
    opt0, opt1 = s.optimizers
    opt0.zero_grad()
    opt1.zero_grad()
    o0 = forward(s, s.models[0], x)
    o1 = forward(s, s.models[1], x)
    a, b, c, d = s.spec.multi_coefficients
    l0 = loss_fn(s, a * o0 + b * o1, y)
    l1 = loss_fn(s, c * o0 + d * o1, y)
    s.scaler.scale(l0).backward(retain_graph=True)
    s.scaler.scale(l1).backward()
    collect_master_grads(s)
    injected = inject_inf_if_due(s)
    # Without a scaler only the optimizer whose gradient holds the inf skips.
    injected0 = injected and s.spec.inject_inf_optimizer == 0
    update_per_optimizer = s.spec.variant == "update_per_optimizer"  # negative control
    stepped0 = step_optimizer(s, opt0, injected0)
    if update_per_optimizer:
        s.scaler.update()
    stepped1 = step_optimizer(s, opt1, injected and not injected0)
    s.scaler.update()  # ONE update per iteration, after every step
    return StepOutcome((l0 + l1).detach(), not stepped0 or not stepped1)


STEPS: dict[str, Callable[[TrainingState, list[Batch]], StepOutcome]] = {
    "plain": plain_step,
    "clip_norm": clip_norm_step,
    "clip_value": clip_value_step,
    "accumulation": accumulation_step,
    "penalty": penalty_step,
    "multi": multi_step,
}
