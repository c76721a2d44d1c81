"""The suite's single-process workloads, written with PyTorch's Python API:
torch.autocast for the forward pass and torch.amp.GradScaler for loss
scaling.  Each step function does one optimizer iteration and reads like the
recipe; the negative controls are the `variant` branches beside the correct
line they break, as in harness/workloads/*.cpp.

The shared moves (autocast regions, the loss, the inf injection hook, the
skip_steps alignment, the cosine schedule) mirror
harness/workloads/training_state.cpp so that the C++ and Python runs agree on
every step, including the wrong procedures.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import torch
from torch import nn

from . import models as M
from . import scripted
from .libtorch_adam import LibTorchAdam
from .spec import Spec

AUTOCAST_DTYPES = {"fp32": None, "fp16": torch.float16, "bf16": torch.bfloat16, "o2": None, "o3": None}


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


def make_scaler(spec: Spec, device: torch.device) -> torch.amp.GradScaler:
    s = spec.scaler
    return torch.amp.GradScaler(device.type, init_scale=s["init_scale"], growth_factor=s["growth_factor"],
                                backoff_factor=s["backoff_factor"], growth_interval=int(s["growth_interval"]),
                                enabled=spec.scaler_enabled)


def make_optimizer(spec: Spec, params: list) -> torch.optim.Optimizer:
    """optimizer_impl "loop": LibTorch's optimizers loop over parameters one
    at a time, as Python's foreach=False (SGD), or with LibTorch's own
    rounding (Adam, AdamW: libtorch_adam.py); "foreach" and "fused" are
    Python's foreach=True and fused=True (harness/optim/optimizers.h).  The
    keyword arguments are the case's (Spec.optimizer_kwargs)."""
    impl = {"loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[spec.optimizer_impl]
    kwargs = spec.optimizer_kwargs()
    if spec.optimizer == "sgd":
        return torch.optim.SGD(params, lr=spec.lr, **kwargs, **impl)
    if spec.optimizer in ("adam", "adamw") and spec.optimizer_impl == "loop":
        return LibTorchAdam(params, lr=spec.lr, **kwargs, decoupled=spec.optimizer == "adamw")
    if spec.optimizer == "adam":
        return torch.optim.Adam(params, lr=spec.lr, **kwargs, **impl)
    if spec.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=spec.lr, **kwargs, **impl)
    raise ValueError(f"unknown optimizer '{spec.optimizer}'")


class TrainingState:
    """Models, optimizers, scaler and policy of one case (TrainingState in
    training_state.h)."""

    def __init__(self, spec: Spec, models: list[nn.Module], device: torch.device):
        self.spec = spec
        self.device = device
        self.models = models
        self.half_model = spec.precision in ("o2", "o3")
        self.masters = [MasterWeights(m) for m in models] if spec.precision == "o2" else []
        if self.half_model:
            for m in models:
                cast_model(m, keep_batchnorm_fp32=spec.precision == "o2")
        self.optimizers = [make_optimizer(spec, self.trained(k)) for k in range(len(models))]
        self.scaler = make_scaler(spec, device)
        self.dtype = AUTOCAST_DTYPES[spec.precision]
        self.step_index = 0
        # GradScaler.step() returns the optimizer's return value, not whether
        # it stepped; a post-step hook counts the steps actually taken.
        self.steps_taken = [0] * len(self.optimizers)
        for i, opt in enumerate(self.optimizers):
            opt.register_step_post_hook(self._counter(i))

    def _counter(self, i):
        def hook(optimizer, args, kwargs):
            self.steps_taken[i] += 1
        return hook

    def autocast(self):
        """The precision's autocast region (disabled for fp32)."""
        return torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None)

    def trained(self, k: int) -> list:
        """What model k's optimizer updates: its O2 masters or its parameters."""
        return self.masters[k].params if self.masters else list(self.models[k].parameters())

    def trained_state(self, k: int) -> dict:
        """Model k's state dict with the trained tensors as its parameters
        (the O2 masters), as the C++ dump writes it."""
        model = self.models[k]
        # keep_vars: a tied weight's second name (GPT-2's lm_head.weight) is
        # the same Parameter as its first; the C++ dump holds it once.
        named = dict(model.named_parameters())
        owners = {id(p) for p in named.values()}
        state = {n: t.detach().cpu().clone() for n, t in model.state_dict(keep_vars=True).items()
                 if n in named or id(t) not in owners}
        for (name, _), t in zip(self.models[k].named_parameters(), self.trained(k)):
            state[name] = t.detach().cpu().clone()
        return state

    def first_parameter(self, optimizer: int = 0) -> torch.Tensor:
        """The first parameter optimizer `optimizer` updates."""
        return self.optimizers[optimizer].param_groups[0]["params"][0]


def forward(s: TrainingState, model: nn.Module, inputs: torch.Tensor) -> torch.Tensor:
    def call(x):
        if s.spec.torchscript:
            return scripted.call(model, s.spec.torchscript, x)
        return model(x)

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


def scheduled_lr(spec: Spec, step_index: int) -> float:
    """The learning rate of step `step_index` (cosine schedule or constant)."""
    if not spec.cosine_schedule:
        return spec.lr
    progress = step_index / max(1, spec.steps)
    return spec.lr * 0.5 * (1.0 + math.cos(math.pi * progress))


def apply_lr_schedule(s: TrainingState) -> None:
    if not s.spec.cosine_schedule:
        return
    lr = scheduled_lr(s.spec, s.step_index)
    for opt in s.optimizers:
        for group in opt.param_groups:
            group["lr"] = lr


class StepOutcome(NamedTuple):
    loss: torch.Tensor  # detached
    skipped: bool       # an optimizer skipped its step


Batch = tuple  # (inputs, labels)


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


def optimizer_state_tensors(s: TrainingState) -> list[tuple[str, torch.Tensor]]:
    """(name, tensor) in the order harness/runner/runner.cpp flattens them:
    per optimizer, per parameter: the SGD momentum buffer, or AdamW's
    exp_avg then exp_avg_sq; parameters without state are left out."""
    out = []
    for k, (model, opt) in enumerate(zip(s.models, s.optimizers)):
        names = {id(p): n for (n, _), p in zip(model.named_parameters(), s.trained(k))}
        for group in opt.param_groups:
            for p in group["params"]:
                st = opt.state.get(p)
                if not st:
                    continue
                pname = f"model{k}.{names.get(id(p), '?')}"
                if "momentum_buffer" in st:
                    if st["momentum_buffer"] is not None:
                        out.append((f"{pname}:momentum_buffer", st["momentum_buffer"]))
                elif "exp_avg" in st:
                    out.append((f"{pname}:exp_avg", st["exp_avg"]))
                    out.append((f"{pname}:exp_avg_sq", st["exp_avg_sq"]))
                    if "max_exp_avg_sq" in st:
                        out.append((f"{pname}:max_exp_avg_sq", st["max_exp_avg_sq"]))
    return out
