"""What python -m reference.export checks before it writes a suite.

* The name: a model given by file needs a plain name that is not a built-in
  family's (the suite reader refuses it otherwise); a default taken from the
  file name is made so, and says so; a --name that is not is refused.
* Something to train: a module without a trainable floating-point parameter
  is refused here, not later by `ampbench run`.
* The FLOPs: torch.utils.flop_counter counts matrix products and
  convolutions, and nothing inside a recurrent layer (aten's fused RNN ops
  have no formula), so an LSTM classifier counted its head alone, ~300x too
  few. Recurrent layers get analytic counts; any other layer with parameters
  the counter saw no work in makes the count unavailable, with the reason,
  instead of a silent undercount (the suite then reports no MFU).
* The precisions: each precision the suite would run is tried once on a
  batch of 2, forward and backward, on the eager module and on the written
  file. One PyTorch itself cannot run for this model on this device (an
  LSTM under CPU float16 autocast) is left out with PyTorch's message, and
  so are the controls that need it; one where the file diverges from the
  module (a trace that baked in float32 constants) is left out with the
  distance; fp32 diverging fails the export.
* The training: a few SGD steps in fp32 on the module and on the file, the
  same batches and dropout masks, must end with the same losses and
  weights: a trace freezes each branch its example took, so a branch on a
  weight that training flips runs like the module at the first step and
  differently afterwards.
"""

from __future__ import annotations

import copy
import re

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from .python import scripted
from .python.models import FAMILIES
from .python.workloads import cast_model


class ExportError(Exception):
    pass


PLAIN = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")  # harness/suite: is_plain_name


def model_name(requested: str | None, stem: str) -> tuple[str, str | None]:
    """The model's name in the suite, and a notice when the default taken
    from the file name had to change."""
    if requested is not None:
        if requested in FAMILIES or not PLAIN.match(requested):
            raise ExportError(f"--name '{requested}': a model given by file needs a plain name (letters, digits, "
                              f"'.', '_', '-') that is not a built-in family's ({', '.join(sorted(FAMILIES))})")
        return requested, None
    name = re.sub(r"[^A-Za-z0-9._-]", "-", stem).lstrip(".") or "model"
    if name in FAMILIES:
        name += "-file"
    if name == stem:
        return name, None
    return name, (f"the model is named '{name}' in the suite: '{stem}' is not a plain name or is a built-in "
                  f"family's (--name chooses another)")


def require_trainable(module: nn.Module) -> None:
    if not any(p.requires_grad and p.is_floating_point() for p in module.parameters()):
        raise ExportError("the module has no trainable floating-point parameter (all frozen?): nothing to train")


# Layers with parameters that do no matrix product, which the counter rightly
# counts as nothing (its convention: matrix products and convolutions only).
NO_MATMUL = (nn.Embedding, nn.EmbeddingBag, nn.modules.batchnorm._NormBase, nn.LayerNorm, nn.GroupNorm,
             nn.RMSNorm, nn.PReLU)
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def rnn_flops_per_sample(rnn: nn.RNNBase, x: torch.Tensor) -> float:
    """The matrix products of one sample through `rnn`: per step, layer and
    direction, the gates' input and hidden products (2 FLOPs a
    multiply-add), plus an LSTM's projection."""
    steps = x.shape[1] if rnn.batch_first and x.dim() == 3 else x.shape[0]
    gates, hidden = GATES[rnn.mode], rnn.hidden_size
    out = rnn.proj_size if getattr(rnn, "proj_size", 0) else hidden
    directions = 2 if rnn.bidirectional else 1
    total, width = 0.0, rnn.input_size
    for _ in range(rnn.num_layers):
        per_direction = 2.0 * gates * hidden * (width + out) + (2.0 * hidden * out if out != hidden else 0.0)
        total += directions * per_direction
        width = out * directions
    return steps * total


def forward_flops(module: nn.Module, args: list[torch.Tensor]) -> tuple[float | None, str | None]:
    """One sample's forward FLOPs, or None and why they cannot be known."""
    module = copy.deepcopy(module)
    counter = FlopCounterMode(display=False)
    seen: dict[nn.Module, float] = {}  # the work counted inside each module, over its calls
    starts: dict[nn.Module, list[int]] = {}
    rnn_inputs: dict[nn.Module, torch.Tensor] = {}

    def before(m, inputs):
        seen.setdefault(m, 0.0)
        starts.setdefault(m, []).append(counter.get_total_flops())
        if isinstance(m, nn.RNNBase) and inputs and isinstance(inputs[0], torch.Tensor):
            rnn_inputs[m] = inputs[0]

    def after(m, inputs, output):
        seen[m] += counter.get_total_flops() - starts[m].pop()

    handles = [h for m in module.modules() for h in (m.register_forward_pre_hook(before),
                                                     m.register_forward_hook(after))]
    try:
        with counter, torch.no_grad():
            module(*args)  # a batch of 2: BatchNorm needs more than one value per channel
    finally:
        for h in handles:
            h.remove()
    batch = args[0].shape[0]
    total = float(counter.get_total_flops()) / batch
    for name, m in module.named_modules():
        if m not in seen or seen[m] > 0 or not any(True for _ in m.parameters(recurse=False)):
            continue
        if isinstance(m, nn.RNNBase) and m in rnn_inputs and m.mode in GATES:
            total += rnn_flops_per_sample(m, rnn_inputs[m])
        elif not isinstance(m, NO_MATMUL) and not any(True for _ in m.children()):
            return None, (f"layer '{name}' ({type(m).__name__}) has parameters but torch.utils.flop_counter "
                          f"counts no work in it, and it has no analytic count")
    return total, None


PRECISIONS = ["fp32", "fp16", "bf16", "o2"]
# How far the written file may be from the eager module, as the relative L2
# distance of the output and of all gradients together: the same ops on the
# same kernels in every precision, so a few roundings at most; a trace that
# baked in a float32 constant is off by orders of magnitude, or not finite.
FILE_TOLERANCE = {"fp32": 1e-5, "fp16": 1e-2, "bf16": 3e-2, "o2": 1e-2}


def _train_step(make, xs: list[torch.Tensor], precision: str, target: str) -> torch.Tensor:
    """One forward and backward of a fresh module from `make()` in
    `precision`; the output and every gradient, as one float64 vector."""
    module = make()
    module.train()
    if precision == "o2":
        cast_model(module, keep_batchnorm_fp32=True)
        xs = [x.half() if x.is_floating_point() else x for x in xs]
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    torch.manual_seed(0)  # the same dropout masks on both sides
    with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None), \
            torch.jit.optimized_execution(False):
        out = module(*xs)
        logits = out.flatten(0, 1) if target == "next_token" else out
        loss = F.cross_entropy(logits.float(), torch.zeros(logits.shape[0], dtype=torch.long))
    loss.backward()
    grads = [p.grad.reshape(-1) for p in module.parameters() if p.grad is not None]
    return torch.cat([out.detach().reshape(-1)] + grads).double()


def _distance(mine: torch.Tensor, eager: torch.Tensor) -> float:
    """Relative distance over the finite values; infinite where the file is
    non-finite somewhere else than the module. Without a GradScaler one
    unscaled step can overflow float16 (EfficientNet-B0's gradients at
    32x32): the same overflow in the file is behaving like the module."""
    finite = torch.isfinite(eager)
    if not torch.equal(finite, torch.isfinite(mine)):
        return float("inf")
    return float((mine[finite] - eager[finite]).norm() / eager[finite].norm().clamp_min(1e-30))


def pytorch_message(e: BaseException) -> str:
    """The op's own error: a TorchScript interpreter wraps it in "The
    following operation failed..." and a traceback, its last line the
    original "SomeError: message"."""
    lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
    if not lines:
        return type(e).__name__
    if "TorchScript interpreter" in lines[0]:
        for line in reversed(lines):
            name, sep, message = line.partition(": ")
            if sep and name.endswith("Error") and message:
                return message
    return lines[0]


def precision_refusals(module: nn.Module, load_written, xs: list[torch.Tensor], target: str) -> dict[str, str]:
    """Per precision the suite cannot run, why. `load_written()` loads the
    written file afresh (a deep copy of a loaded TorchScript module does not
    collect its parameters' gradients). Raises ExportError when fp32 itself
    does not run or the file diverges there."""
    out = {}
    for precision in PRECISIONS:
        try:
            eager = _train_step(lambda: copy.deepcopy(module), xs, precision, target)
        except Exception as e:  # noqa: BLE001 - PyTorch's own refusal, kept as its message
            out[precision] = f"PyTorch cannot run it here: {pytorch_message(e)}"
            continue
        try:
            mine = _train_step(load_written, xs, precision, target)
            distance = _distance(mine, eager)
        except Exception as e:  # noqa: BLE001
            distance, why = float("inf"), f"it fails where the module runs: {pytorch_message(e)}"
        else:
            why = f"relative distance {distance:.3g}, over {FILE_TOLERANCE[precision]:g}"
        if not distance <= FILE_TOLERANCE[precision]:
            out[precision] = f"the written file does not behave like the module ({why})"
    if "fp32" in out:
        raise ExportError(f"fp32: {out['fp32']}")
    return out


TRAIN_STEPS = 3
# Three steps of the same ops: a few roundings more than one step's 1e-5.
TRAIN_TOLERANCE = 1e-4


def _train(module: nn.Module, xs: list[torch.Tensor], target: str) -> torch.Tensor:
    """The losses of TRAIN_STEPS SGD steps and the weights they end with, as
    one float64 vector."""
    module.train()
    params = list({id(p): p for p in module.parameters() if p.requires_grad}.values())  # a tied weight once
    opt = torch.optim.SGD(params, lr=0.1)
    losses = []
    for step in range(TRAIN_STEPS):
        opt.zero_grad()
        torch.manual_seed(step)  # the same dropout masks on both sides
        with torch.jit.optimized_execution(False):
            out = module(*xs)
        logits = out.flatten(0, 1) if target == "next_token" else out
        loss = F.cross_entropy(logits.float(), torch.arange(logits.shape[0]) % logits.shape[-1])
        loss.backward()
        opt.step()
        losses.append(loss.detach().reshape(1))
    return torch.cat(losses + [p.detach().reshape(-1) for p in params]).double()


def training_refusal(module: nn.Module, load_written, xs: list[torch.Tensor], target: str) -> None:
    """Raises ExportError when the written file does not train like the
    module (see the module's docstring)."""
    eager = _train(copy.deepcopy(module), xs, target)
    mine = _train(load_written(), xs, target)
    distance = _distance(mine, eager) if mine.shape == eager.shape else float("inf")
    if not distance <= TRAIN_TOLERANCE:
        raise ExportError(f"the file does not train like the module (relative distance {distance:.3g} of the losses "
                          f"and weights after {TRAIN_STEPS} SGD steps, over {TRAIN_TOLERANCE:g}: control flow that "
                          f"depends on the weights or inputs, frozen by a trace?)")
