"""Parameter elements without a true gradient, and the bound they are
compared with (docs/checks.md, "The equivalence envelope").

Some parameters cannot change the loss, whatever their value: the key bias
of self-attention (adding a vector to every key adds the same number to a
row of scores, which softmax ignores) and a convolution bias followed by
BatchNorm in training mode (the batch mean takes it away again).  Their
computed gradient is rounding noise, different in every implementation.
SGD moves such an element by lr x noise, which the ordinary tolerances
absorb.  AdamW divides the gradient by its own running RMS, so the noise
becomes steps of about lr in a direction that is a coin toss: the C++ and
Python values then part by up to ~lr per step, a difference no tolerance
derived from rounding can cover.

Detection is a measurement, not a list of module names: a float64
forward/backward of the Python model from the dumped initial state on the
first PROBE_BATCHES micro-batches.  Where the float64 gradient is at most
NO_GRAD_REL of the model's largest gradient on every probed batch, and
nonzero on at least one, the element has no true gradient (float64 noise
is below 1e-15 relative; every true gradient element measured is above
1e-5).  Noise sums to an exact zero now and then (5 to 11
of the 64 key-bias elements per batch at the conformance sizes), hence
several distinct batches; an element that is exactly zero on all of them
is taken for what it most likely is, a ReLU unit dead on every sample,
which gives exact zeros on both sides and which AdamW does not move: it
stays compared as usual.

Their optimizer state (SGD's momentum buffer, AdamW's exp_avg and
exp_avg_sq) is a running sum of that noise: it is not compared, only the
placement of its non-finite values is.  The elements themselves are
compared with a bound instead of the ordinary tolerance:
* AdamW (and Adam): the largest difference AdamW can produce from any
  gradients (adamw_drift_bound).  A buffer they feed (BatchNorm's
  running_mean after a conv bias) is found by shifting the elements in a
  float64 forward, and gets the drift bound times its measured sensitivity.
* SGD: an element that starts at zero (BERT's and GPT-2's key bias) and
  moves by lr x noise alone has no magnitude for a relative tolerance to
  hold on to, and the noise itself has no bound that does not depend on the
  model.  So the bound is measured: the case is replayed with the noise of
  those elements drawn again (noise_redraw), and each may differ from the
  C++ run by COUPLING_FACTOR x the most a redraw moved any of them.  A real
  gradient reaching them (a wrong mask, a missing term) moves them by far
  more than the noise does.
The case line names them all.  They also change the rounding of the rest
of the model: see noise_redraw().
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

from . import models as M
from . import scripted
from .compare import COUPLING_FACTOR, Relaxed
from .replay import replay
from .spec import Spec
from .workloads import make_optimizer, scheduled_lr

# Float64 noise on these models is at most 3.4e-16 of the largest gradient;
# the smallest true gradient element (its largest over the probed batches)
# is 1.2e-5 (smoke mlp), 1.5e-3 (smoke transformer), 5.1e-4 (conformance
# transformer), 6.7e-3 (smoke cnn).
NO_GRAD_REL = 1e-10
PROBE_BATCHES = 6    # distinct micro-batches probed (the dumps cycle through 8)
SHIFT = 1e-3         # float64 shift of the no-gradient elements (linear regime)
COUPLED_MIN = 1e-6   # sensitivity below which a buffer is not fed by them
MEASURED = math.nan  # Relaxed.bound of an SGD element until measured_bounds() sets it
ADAMW_KIND, SGD_KIND = "AdamW drift bounds", "SGD bounds measured by a redraw"


def _float64_input(x: torch.Tensor) -> torch.Tensor:
    """Float inputs in float64; token ids stay ids."""
    return x.double() if x.is_floating_point() else x


def _float64_copy(model: nn.Module) -> nn.Module:
    m = copy.deepcopy(model)
    # A deep copy of a TorchScript module hands back parameters that are not
    # leaves (their .grad stays None): make them leaves again.
    for p in m.parameters():
        p.detach_().requires_grad_(True)
    return m.double().train()


def no_grad_masks(model: nn.Module, batches: list, fwd=scripted.plain_call) -> dict:
    """{parameter name: bool mask} of the elements whose float64 gradient is
    at most NO_GRAD_REL of the model's largest on every batch, and nonzero
    on at least one."""
    m64 = _float64_copy(model)
    worst = {}
    for x, y in batches:
        m64.zero_grad(set_to_none=True)
        # The invariance is a property of the model function, so any loss of
        # its output shows it: plain cross-entropy stands for every workload.
        M.training_loss(fwd(m64, _float64_input(x)), y).backward()
        grads = {n: (p.grad if p.grad is not None else torch.zeros_like(p)).abs()
                 for n, p in m64.named_parameters()}
        largest = max(float(g.max()) for g in grads.values() if g.numel())
        if largest == 0:
            return {}
        for n, g in grads.items():
            rel = g / largest
            worst[n] = rel if n not in worst else torch.maximum(worst[n], rel)
    masks = {n: (r > 0) & (r <= NO_GRAD_REL) for n, r in worst.items()}
    return {n: m for n, m in masks.items() if bool(m.any())}


def buffer_sensitivity(model: nn.Module, name: str, mask: torch.Tensor, x: torch.Tensor,
                       fwd=scripted.plain_call) -> dict:
    """{buffer name: max |d buffer| / shift} over one training-mode forward
    when the masked elements of parameter `name` are shifted; only buffers
    that move by more than COUPLED_MIN of the shift."""
    base, shifted = _float64_copy(model), _float64_copy(model)
    with torch.no_grad():
        dict(shifted.named_parameters())[name][mask] += SHIFT
        fwd(base, _float64_input(x))
        fwd(shifted, _float64_input(x))
    before = dict(base.named_buffers())
    out = {}
    for bname, b in shifted.named_buffers():
        if b.is_floating_point():
            s = (b - before[bname]).abs() / SHIFT
            if float(s.max()) > COUPLED_MIN:
                out[bname] = (s > COUPLED_MIN, float(s.max()))
    return out


def adamw_step_bound(t: int, beta1: float, beta2: float) -> float:
    """max |m_hat / sqrt(v_hat)| after t steps, for any gradients: by
    Cauchy-Schwarz |sum b1^(t-k) g_k| <= sqrt(sum (b1^2/b2)^(t-k)) x
    sqrt(sum b2^(t-k) g_k^2).  1 at t = 1, 1.06 at t = 12 with the defaults."""
    ratio_sum = sum((beta1 * beta1 / beta2) ** j for j in range(t))
    return ((1 - beta1) / math.sqrt(1 - beta2) * math.sqrt(ratio_sum)
            * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t))


def adamw_drift_bound(spec: Spec, model: nn.Module) -> float:
    """The largest |Python - C++| an element can reach when its gradients
    are arbitrary (different noise on each side): each AdamW step moves it by
    at most lr_t x adamw_step_bound, on each side; the decoupled weight decay
    only shrinks a difference.  Counts every optimizer step the variant
    takes (step_every_microbatch steps once per micro-batch)."""
    beta1, beta2 = make_optimizer(spec, list(model.parameters())).defaults["betas"]
    per_step = spec.micro_batches() if spec.variant == "step_every_microbatch" else 1
    lrs = [scheduled_lr(spec, i) for i in range(spec.steps) for _ in range(per_step)]
    worst = max(adamw_step_bound(t, beta1, beta2) for t in range(1, len(lrs) + 1))
    return 2.0 * worst * sum(lrs)


_ADAM_STATE = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
OPTIMIZER_STATE = {"sgd": ("momentum_buffer",), "adam": _ADAM_STATE, "adamw": _ADAM_STATE}


def _merged_masks(model: nn.Module, later, batches: list, fwd) -> dict:
    """no_grad_masks at the initial state and, when given, at a later one:
    a zero-initialised layer (ViT's head) leaves every gradient before it
    exactly zero at the start, where no element can be told apart."""
    masks = no_grad_masks(model, batches, fwd)
    if later is not None:
        for name, mask in no_grad_masks(later, batches, fwd).items():
            masks[name] = masks[name] | mask if name in masks else mask
    return masks


def relaxations(spec: Spec, models: list, inputs: list, labels: list, later: list | None = None) -> dict:
    """{final tensor name as compare_runs sees it: Relaxed}: the optimizer
    state of the no-gradient elements (never compared), and with AdamW the
    elements themselves and the buffers they feed (see the module comment).
    `later`: the same models at a later state (the C++ run's final one), probed
    too."""
    micro = spec.micro_batches()
    batches = list(zip(inputs[:PROBE_BATCHES], labels[:PROBE_BATCHES]))
    # Adam's step is bounded like AdamW's (its L2 decay enters the gradient,
    # which the bound already takes as arbitrary; amsgrad only shrinks steps).
    adamw = spec.optimizer in ("adam", "adamw")
    drift = adamw_drift_bound(spec, models[0]) if adamw else math.inf
    # Each forward may add at most sensitivity x drift to a running average,
    # which never amplifies what earlier forwards added.
    forwards = spec.steps * micro
    fwd = scripted.caller(spec.torchscript)
    out = {}
    for k, model in enumerate(models):
        for name, mask in _merged_masks(model, later[k] if later else None, batches, fwd).items():
            key = f"model{k}.{name}"
            for state in OPTIMIZER_STATE[spec.optimizer]:
                out[f"{key}:{state}"] = Relaxed(mask, math.inf, "optimizer state of no-gradient elements")
            if not adamw:
                out[key] = Relaxed(mask, MEASURED, f"no true gradient: {COUPLING_FACTOR} x the most a redraw "
                                                   f"of their SGD noise moved them", SGD_KIND)
                continue
            out[key] = Relaxed(mask, drift, "no true gradient: the most AdamW can move two runs apart", ADAMW_KIND)
            for bname, (bmask, sens) in buffer_sensitivity(model, name, mask, batches[0][0], fwd).items():
                bkey, bound = f"model{k}.{bname}", forwards * sens * drift
                if bkey in out:  # fed by several no-gradient parameters: the bounds add
                    bmask, bound = bmask | out[bkey].mask, bound + out[bkey].bound
                out[bkey] = Relaxed(bmask, bound, "fed by no-gradient elements: forwards x sensitivity x "
                                                  "their AdamW drift bound", ADAMW_KIND)
    return out


def _redraw_noise(relaxed: dict, seed: int):
    """prepare() for replay: each gradient reaching a no-gradient element
    gets a random sign, i.e. another draw of its noise, as another
    implementation's rounding would give."""
    gen = torch.Generator().manual_seed(seed)

    def flip(mask: torch.Tensor):
        def hook(grad):
            signs = torch.randint(0, 2, grad.shape, generator=gen).to(grad.device, grad.dtype) * 2 - 1
            return torch.where(mask.to(grad.device), grad * signs, grad)
        return hook

    def prepare(models: list) -> None:
        for k, model in enumerate(models):
            for name, p in model.named_parameters():
                r = relaxed.get(f"model{k}.{name}")
                if r is not None and not math.isinf(r.bound):
                    p.register_hook(flip(r.mask))
    return prepare


def noise_redraw(case, relaxed: dict, device: str = "cpu", seed: int = 1):
    """The Python replay with the noise of every compared no-gradient
    element drawn again: another implementation's rounding, as far as those
    elements are concerned.  None when nothing needs it: no SGD bound to
    measure, and no fp32 coupling (below) to measure either."""
    compared = [r for r in relaxed.values() if not math.isinf(r.bound)]
    unmeasured = any(math.isnan(r.bound) for r in compared)
    if not unmeasured and not (compared and case.spec.precision == "fp32"):
        return None
    return replay(case, device=device, prepare=_redraw_noise(relaxed, seed))


def redraw_difference(run, other) -> dict:
    """{final tensor name: Python - Python'} over every floating tensor and
    the optimizer state; {} without a redraw."""
    if other is None:
        return {}
    out = {}
    for k, (mine, theirs) in enumerate(zip(run.final, other.final)):
        for name, t in mine.items():
            if t.is_floating_point() and name in theirs:
                out[f"model{k}.{name}"] = (t.double() - theirs[name].double())
    for (name, t), (_, u) in zip(run.optimizer_state, other.optimizer_state):
        out[name] = t.double() - u.double()
    return out


def measured_bounds(relaxed: dict, difference: dict) -> dict:
    """relaxed with each MEASURED (SGD) bound set to COUPLING_FACTOR x the
    largest |Python - Python'| over its elements."""
    out = dict(relaxed)
    for name, r in relaxed.items():
        if math.isnan(r.bound):
            moved = difference[name][r.mask].abs().nan_to_num(0.0, 0.0, 0.0)
            out[name] = Relaxed(r.mask, COUPLING_FACTOR * float(moved.max()), r.what, r.kind)
    return out


def coupling(precision: str, difference: dict) -> dict:
    """{final tensor name: Python - Python'}: how far the rest of the model
    moves when only the noise of the no-gradient elements is drawn again.
    Their different values change the rounding around them (a conv bias
    shifts what BatchNorm rounds; a key bias shifts the attention scores), so
    the C++ run differs from the Python one by about this much beyond the
    usual rounding; compare.py widens each tensor's tolerance by a multiple
    of it.  fp32 only: its elementwise tolerance assumes both sides round
    alike, while the fp16 / bf16 tolerances were sized for rounding that
    differs (a one-ulp perturbation of every weight) and already cover it;
    there a redraw also overstates the effect, as C++ and Python often
    compute the same low-precision noise bit for bit (the smoke models'
    bf16 cnn cases).  Empty when nothing was redrawn."""
    return difference if precision == "fp32" else {}


def envelope(case, run, relaxed: dict, device: str = "cpu", seed: int = 1) -> tuple[dict, dict]:
    """(relaxed with every bound set, coupled) for compare.compare_runs."""
    difference = redraw_difference(run, noise_redraw(case, relaxed, device, seed))
    return measured_bounds(relaxed, difference), coupling(case.spec.precision, difference)
