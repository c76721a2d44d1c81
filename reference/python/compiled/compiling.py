"""torch.compile applied to a case's training: each model in place
(nn.Module.compile, so parameter and state-dict names stay the module's own:
no `_orig_mod.` prefix), its forward and backward through AOTAutograd and
Inductor; with --compile-step each optimizer's step too."""

from __future__ import annotations

import torch

from .options import Options


def _mode(opts: Options) -> str | None:
    return None if opts.mode == "default" else opts.mode


def compile_models(models: list, opts: Options) -> None:
    """In place; compilation itself happens at each model's first call."""
    if opts.eager:
        return
    for model in models:
        model.compile(mode=_mode(opts))


def compile_optimizer_steps(state, opts: Options) -> None:
    """Each optimizer's step() through torch.compile, as PyTorch's compiled
    optimizer recipe does (the scaler still calls it: GradScaler.step ->
    optimizer.step).  The step hooks run inside the compiled step."""
    if opts.eager or not opts.compile_step:
        return
    for opt in state.optimizers:
        opt.step = torch.compile(opt.step, mode=_mode(opts))
