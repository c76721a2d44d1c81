"""The harness's optimizers (harness/optim: LibTorch's loop and ampbench's
own foreach and fused implementations) held to torch.optim itself, for
every combination of the settings a suite can give, not only to each other.

AMPBENCH_OPTIM_PROBE names build/harness/ampbench_optim_probe (the CTest
optim.vs_torch_optim sets it; without it these tests skip).  The probe and
torch.optim start from the same float32 parameters and take the same
gradients for STEPS steps; each C++ implementation must end within ULPS of
torch.optim's single-tensor (foreach=False) and multi-tensor (foreach=True)
implementations, which agree with each other to the same bound.

A step skipped by the GradScaler (an inf in the gradients) is not taken at
all by torch.optim's loop; the C++ fused kernels are called with the inf
flag and must leave the same state behind, so that a damped SGD's next step
is still a first step.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess

import pytest
import torch

PROBE = os.environ.get("AMPBENCH_OPTIM_PROBE", "")
pytestmark = pytest.mark.skipif(not PROBE, reason="AMPBENCH_OPTIM_PROBE names no ampbench_optim_probe binary")

STEPS = 5
SIZES = (257, 16, 3)
# Rounding differs between the implementations (lerp against mul-add, the
# order of the foreach stages), one ulp or so per step; a wrong update of any
# setting is thousands of ulps away (test_a_wrong_setting_is_far_outside_the_bound).
ULPS = 4.0
LR = {"sgd": 0.05, "adam": 0.003, "adamw": 0.003}
IMPLS = ("loop", "foreach", "fused")


def sgd_settings() -> list[dict]:
    out = []
    for momentum, dampening, nesterov, wd in itertools.product((0.0, 0.9), (0.0, 0.5), (False, True), (0.0, 0.01)):
        if nesterov and (momentum == 0 or dampening != 0):
            continue  # torch.optim.SGD refuses it, and so does a suite
        out.append({"momentum": momentum, "dampening": dampening, "nesterov": nesterov, "weight_decay": wd})
    return out


def adam_settings() -> list[dict]:
    return [{"betas": list(betas), "eps": eps, "weight_decay": wd, "amsgrad": amsgrad}
            for (betas, eps), wd, amsgrad in itertools.product((((0.9, 0.999), 1e-8), ((0.8, 0.99), 1e-6)),
                                                              (0.0, 0.01), (False, True))]


CASES = ([("sgd", s, ()) for s in sgd_settings()]
         + [(kind, s, ()) for kind in ("adam", "adamw") for s in adam_settings()]
         + [("sgd", {"momentum": 0.9, "dampening": 0.5, "nesterov": False, "weight_decay": 0.01}, (0,)),
            ("sgd", {"momentum": 0.9, "dampening": 0.5, "nesterov": False, "weight_decay": 0.0}, (0, 2)),
            ("sgd", {"momentum": 0.9, "dampening": 0.0, "nesterov": True, "weight_decay": 0.0}, (1,)),
            ("adamw", {"betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01, "amsgrad": True}, (0,))])


def case_id(case) -> str:
    kind, settings, skips = case
    parts = [kind] + [f"{k}={v}" for k, v in settings.items()]
    return ",".join(parts) + (f",skip={list(skips)}" if skips else "")


def initial_params() -> list[torch.Tensor]:
    return [torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + 0.1 + i) * 0.2 for i, n in enumerate(SIZES)]


def grads_at(step: int) -> list[torch.Tensor]:
    return [torch.cos(torch.arange(n, dtype=torch.float32) * (0.11 + 0.01 * step) + i) * 0.05
            for i, n in enumerate(SIZES)]


def torch_optim(kind: str, settings: dict, skips, foreach: bool, lr: float | None = None) -> list[torch.Tensor]:
    params = [p.clone().requires_grad_(True) for p in initial_params()]
    cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind]
    kwargs = dict(settings)
    if "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    opt = cls(params, lr=LR[kind] if lr is None else lr, foreach=foreach, **kwargs)
    for t in range(STEPS):
        for p, g in zip(params, grads_at(t)):
            p.grad = g
        if t not in skips:
            opt.step()
    return [p.detach() for p in params]


def run_probe(cases: list[dict], dtype: str = "float32") -> list:
    """The probe's final parameters of each case, as float32 lists."""
    request = {"dtype": dtype, "params": [p.tolist() for p in initial_params()],
               "grads": [[g.tolist() for g in grads_at(t)] for t in range(STEPS)], "cases": cases}
    proc = subprocess.run([PROBE], input=json.dumps(request), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert len(results) == len(cases)
    return results


@pytest.fixture(scope="module")
def probe_results() -> dict:
    cases = [{"kind": kind, "impl": impl, "lr": LR[kind], "settings": settings, "skip_steps": list(skips)}
             for kind, settings, skips in CASES for impl in IMPLS]
    out = {}
    for c, r in zip(cases, run_probe(cases)):
        key = (case_id((c["kind"], c["settings"], tuple(c["skip_steps"]))), c["impl"])
        out[key] = [torch.tensor(v, dtype=torch.float32) for v in r]
    return out


def max_ulps(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    """Largest distance in float32 ulps of each tensor's largest magnitude
    (an element near zero has no meaningful ulp of its own)."""
    worst = 0.0
    for x, y in zip(a, b):
        ulp = float(y.abs().max()) * 2.0 ** -23
        worst = max(worst, float((x - y).abs().max()) / ulp)
    return worst


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_each_implementation_equals_torch_optim(case, probe_results):
    kind, settings, skips = case
    single = torch_optim(kind, settings, skips, foreach=False)
    multi = torch_optim(kind, settings, skips, foreach=True)
    assert max_ulps(multi, single) <= ULPS, "torch.optim's own implementations disagree"
    for impl in IMPLS:
        ours = probe_results[(case_id(case), impl)]
        for name, ref in (("foreach=False", single), ("foreach=True", multi)):
            d = max_ulps(ours, ref)
            assert d <= ULPS, f"{impl} is {d:.1f} ulp from torch.optim ({name}) after {STEPS} steps"


def sgd_with_zero_buffers(settings: dict) -> list[torch.Tensor]:
    """SGD whose momentum buffers exist from the start, at zero, so that the
    first step dampens too: the update the foreach and fused SGD once made."""
    params = initial_params()
    bufs = [torch.zeros_like(p) for p in params]
    for t in range(STEPS):
        for p, b, g in zip(params, bufs, grads_at(t)):
            b.mul_(settings["momentum"]).add_(g, alpha=1 - settings["dampening"])
            p.add_(b, alpha=-LR["sgd"])
    return params


def test_a_wrong_update_is_far_outside_the_bound():
    damped = {"momentum": 0.9, "dampening": 0.5, "nesterov": False, "weight_decay": 0.0}
    right = torch_optim("sgd", damped, (), foreach=False)
    assert max_ulps(sgd_with_zero_buffers(damped), right) > 1000
    # ...while undamped the two rules are one (0.9 * 0 + g == g).
    undamped = dict(damped, dampening=0.0)
    assert max_ulps(sgd_with_zero_buffers(undamped), torch_optim("sgd", undamped, (), foreach=False)) <= ULPS
    adam = {"betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01, "amsgrad": False}
    assert max_ulps(torch_optim("adamw", adam, (), foreach=False), torch_optim("adam", adam, (), foreach=False)) > 1000


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# A skipped step is the GradScaler's business; the loop optimizer is not called.
LOOP_CASES = [c for c in CASES if not c[2]]


@pytest.fixture(scope="module")
def loop_results() -> dict:
    """LibTorch's optimizers (the probe's loop implementation) on every case
    without skips, with parameters and gradients in each dtype."""
    out = {}
    for name, dtype in DTYPES.items():
        cases = [{"kind": kind, "impl": "loop", "lr": LR[kind], "settings": settings} for kind, settings, _ in LOOP_CASES]
        for case, r in zip(LOOP_CASES, run_probe(cases, name)):
            out[(case_id(case), name)] = [torch.tensor(finite_or_nan(v), dtype=torch.float32).to(dtype) for v in r]
    return out


def finite_or_nan(values: list) -> list:
    """The probe's JSON writes a non-finite value as null (Adam in float16
    divides by an eps that rounds to zero)."""
    return [float("nan") if v is None else v for v in values]


def train_in(make, dtype: torch.dtype) -> list[torch.Tensor]:
    """STEPS steps of make(params) on the test's parameters and gradients
    rounded to dtype (as the probe rounds them)."""
    params = [p.to(dtype).requires_grad_(True) for p in initial_params()]
    opt = make(params)
    for t in range(STEPS):
        for p, g in zip(params, grads_at(t)):
            p.grad = g.to(dtype)
        opt.step()
    return [p.detach() for p in params]


def oracle_loop(kind: str, settings: dict, dtype: torch.dtype) -> list[torch.Tensor]:
    """The oracle's optimizer for a loop case (training_state.make_optimizer)."""
    from types import SimpleNamespace

    from reference.python.training_state import make_optimizer
    kwargs = dict(settings, betas=tuple(settings["betas"])) if "betas" in settings else dict(settings)
    spec = SimpleNamespace(optimizer=kind, optimizer_impl="loop", lr=LR[kind], optimizer_kwargs=lambda: kwargs)
    return train_in(lambda params: make_optimizer(spec, params), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LOOP_CASES, ids=case_id)
def test_the_oracle_replays_libtorchs_loop_optimizers_bit_for_bit(case, dtype, loop_results):
    """The oracle's optimizers for the loop cases are LibTorch's own
    rounding, not torch.optim's, which is a few ulps away: the cross-check's
    tolerance would not tell the two apart on short runs, this does. In
    float16 and bfloat16 too (Apex O3 and the no-master controls train
    parameters of those types), where LibTorch's in-place multiply by a
    number rounds the number first (libtorch_optim.py)."""
    kind, settings, _ = case
    ours = oracle_loop(kind, settings, DTYPES[dtype])
    for i, (mine, libtorch) in enumerate(zip(ours, loop_results[(case_id(case), dtype)])):
        finite = libtorch.isfinite()
        differ = int((finite != mine.isfinite()).sum() + (mine[finite] != libtorch[finite]).sum())
        assert differ == 0, f"parameter {i}: {differ} of {mine.numel()} elements differ from LibTorch's"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_torch_optims_sgd_rounds_otherwise_in_half_types(dtype, loop_results):
    """Why the oracle has its own SGD: torch.optim's single-tensor SGD is
    LibTorch's line for line, but multiplies a half-type momentum buffer by
    0.9 in float32, where LibTorch rounds 0.9 to the buffer's type first."""
    case = next(c for c in LOOP_CASES if c[0] == "sgd" and c[1]["momentum"] and not c[1]["nesterov"]
                and not c[1]["dampening"] and not c[1]["weight_decay"])
    theirs = train_in(lambda params: torch.optim.SGD(params, lr=LR["sgd"], foreach=False, **case[1]), DTYPES[dtype])
    libtorch = loop_results[(case_id(case), dtype)]
    assert any(not torch.equal(a, b) for a, b in zip(theirs, libtorch))


def test_the_probe_refuses_an_unknown_dtype():
    request = {"dtype": "float8", "params": [[0.0]], "grads": [[[0.0]]],
               "cases": [{"kind": "sgd", "impl": "loop", "lr": 0.1, "settings": {}}]}
    proc = subprocess.run([PROBE], input=json.dumps(request), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown dtype 'float8' (known: float32, float16, bfloat16)" in proc.stderr
