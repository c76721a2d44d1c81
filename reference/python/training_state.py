"""One case's training state: its models, optimizers, scaler and autocast
dtype, the learning-rate schedule, and the optimizer state in the order the
C++ dump writes it (TrainingState in harness/workloads/training_state.h)."""

from __future__ import annotations

import math

import torch
from torch import nn

from .libtorch_adam import LibTorchAdam
from .libtorch_sgd import LibTorchSGD
from .master_weights import MasterWeights, cast_model
from .spec import FP8_PRECISIONS, Spec

AUTOCAST_DTYPES = {"fp32": None, "fp16": torch.float16, "bf16": torch.bfloat16, "o2": None, "o3": None,
                   **{p: torch.bfloat16 for p in FP8_PRECISIONS}, "mxfp8": None, "nvfp4": None,
                   "fp8_blockwise": None}


def make_scaler(spec: Spec, device: torch.device) -> torch.amp.GradScaler:
    s = spec.scaler
    return torch.amp.GradScaler(device.type, init_scale=s["init_scale"], growth_factor=s["growth_factor"],
                                backoff_factor=s["backoff_factor"], growth_interval=int(s["growth_interval"]),
                                enabled=spec.scaler_enabled)


def make_optimizer(spec: Spec, params: list) -> torch.optim.Optimizer:
    """optimizer_impl "loop": LibTorch's optimizers, which loop over
    parameters one at a time with LibTorch's own rounding (libtorch_sgd.py,
    libtorch_adam.py); "foreach" and "fused" are Python's foreach=True and
    fused=True (harness/optim/optimizers.h).  The keyword arguments are the
    case's (Spec.optimizer_kwargs)."""
    impl = {"loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[spec.optimizer_impl]
    kwargs = spec.optimizer_kwargs()
    if spec.optimizer == "sgd" and spec.optimizer_impl == "loop":
        return LibTorchSGD(params, lr=spec.lr, **kwargs)
    if spec.optimizer == "sgd":
        return torch.optim.SGD(params, lr=spec.lr, **kwargs, **impl)
    if spec.optimizer in ("adam", "adamw") and spec.optimizer_impl == "loop":
        return LibTorchAdam(params, lr=spec.lr, **kwargs, decoupled=spec.optimizer == "adamw")
    if spec.optimizer == "adam":
        return torch.optim.Adam(params, lr=spec.lr, **kwargs, **impl)
    if spec.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=spec.lr, **kwargs, **impl)
    raise ValueError(f"unknown optimizer '{spec.optimizer}'")


def convert_fp8(models: list[nn.Module], fp8: dict) -> None:
    """The case's planned Linear layers swapped in place for torchao's
    Float8Linear, the delayed-scaling reference or the MXFP8 Linear, sharing their parameters
    (fp8_convert.py makes the C++ plan's choice)."""
    from .fp8_convert import convert  # torchao: an oracle-only package, imported when a case needs it

    recipe = {k: fp8[k] for k in ("scaling", "history_len", "margin", "amax_compute", "mx_scale_mode", "nvfp4_seed") if k in fp8}
    for m in models:
        convert(m, recipe, fp8["convert_first"], fp8["convert_last"])


class TrainingState:
    """Models, optimizers, scaler and policy of one case (TrainingState in
    training_state.h)."""

    def __init__(self, spec: Spec, models: list[nn.Module], device: torch.device):
        self.spec = spec
        self.device = device
        self.models = models
        self.half_model = spec.precision in ("o2", "o3")
        self.masters = [MasterWeights(m) for m in models] if spec.precision == "o2" else []
        if spec.fp8 is not None:
            convert_fp8(models, spec.fp8)
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
        # Per optimizer: whether it skipped during the current step (the
        # caller resets it each step, as runner.cpp's train_recorded).
        self.optimizer_skipped = [False] * len(self.optimizers)
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
