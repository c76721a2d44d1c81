"""The C++ FP8 Linear (harness/fp8, through build/harness/ampbench_fp8_probe)
held to torchao's Float8Linear for the tensorwise and rowwise recipes and to
reference/python/fp8_delayed.py (Transformer Engine's delayed scaling) for
the delayed one: output, input gradient, weight gradient and bias gradient
equal bit for bit, in float32 and in bfloat16, over several steps.

torchao's rowwise recipe asks for fast accumulation in the output GEMM,
which sends _scaled_mm to its rowwise kernel; the CPU kernel takes
per-tensor scales only, so here (and in the C++ recipe) the output GEMM runs
as torchao runs it without fast accumulation: a unit-scale GEMM in bfloat16,
then the outer product of the reciprocal row scales.

AMPBENCH_FP8_PROBE names the probe (the CTest fp8.linear_vs_torchao sets it;
without it these tests skip); AMPBENCH_FP8_DEVICE=cuda runs both sides on the
GPU (ci/gpu-check.sh's fp8 stage).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess

import pytest
import torch

from reference.python.fp8_delayed import DelayedScalingLinear
from reference.python.tests.fp8_probe_client import PROBE, call, refusal

DEVICE = os.environ.get("AMPBENCH_FP8_DEVICE", "cpu")
pytestmark = pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")

M, K, N = 16, 32, 48
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
# The input's magnitude per step: delayed scales lag, so a jump saturates.
GROWTH = (1.0, 4.0, 0.25, 8.0, 1.0)


def weight_and_bias() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(7)
    w = torch.randn(N, K, generator=g) * 0.2
    w[3, 5] = 3.0  # one outlier: its row's scale differs from the others' (rowwise)
    return w, torch.randn(N, generator=g) * 0.1


def steps(count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(11)
    out = []
    for t in range(count):
        x = torch.randn(M, K, generator=g) * GROWTH[t % len(GROWTH)]
        x[t % M] *= 30.0  # a row far larger than the rest
        go = torch.randn(M, N, generator=g) * 1e-3
        go[:, t % N] *= 1e3  # gradients spanning six decades: e5m2's range
        out.append((x, go))
    return out


def probe(recipe: dict, dtype: str, count: int, data: list | None = None, weight_dtype: str | None = None) -> list[dict]:
    w, b = weight_and_bias()
    request = {"recipe": recipe, "dtype": dtype, "weight_dtype": weight_dtype or dtype, "device": DEVICE,
               "weight": w.tolist(), "bias": b.tolist(),
               "steps": [{"input": x.tolist(), "grad_output": go.tolist()} for x, go in (data or steps(count))]}
    return call(request)["steps"]


def as_tensor(values, shape) -> torch.Tensor:
    return torch.tensor([float("nan") if v is None else v for v in values], dtype=torch.float32).reshape(shape)


def replay(module: torch.nn.Module, dtype: torch.dtype, count: int) -> list[dict]:
    out = []
    for x, go in steps(count):
        xi = x.to(dtype).to(DEVICE).requires_grad_(True)
        y = module(xi)
        y.backward(go.to(dtype).to(DEVICE))
        out.append({"output": y.detach().float().cpu(), "grad_input": xi.grad.float().cpu(),
                    "grad_weight": module.weight.grad.float().cpu(), "grad_bias": module.bias.grad.float().cpu(),
                    "scales": module.scales() if hasattr(module, "scales") else None})
        module.weight.grad = None
        module.bias.grad = None
    return out


def linear(dtype: torch.dtype) -> torch.nn.Linear:
    w, b = weight_and_bias()
    lin = torch.nn.Linear(K, N)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(b)
    return lin.to(dtype).to(DEVICE)


def torchao_linear(recipe: str, dtype: torch.dtype) -> torch.nn.Module:
    from torchao.float8.config import Float8GemmConfig, Float8LinearConfig
    from torchao.float8.float8_linear import Float8Linear

    config = Float8LinearConfig.from_recipe_name(recipe)
    if recipe == "rowwise":
        config = dataclasses.replace(config, gemm_config_output=Float8GemmConfig(use_fast_accum=False))
    return Float8Linear.from_float(linear(dtype), config)


SHAPES = {"output": (M, N), "grad_input": (M, K), "grad_weight": (N, K), "grad_bias": (N,)}


def assert_bitwise(ours: list[dict], ref: list[dict]) -> None:
    assert len(ours) == len(ref)
    for t, (o, r) in enumerate(zip(ours, ref)):
        for name, shape in SHAPES.items():
            mine = as_tensor(o[name], shape)
            diff = (mine - r[name]).abs().max().item()
            assert torch.equal(mine, r[name]), f"step {t}: {name} differs by up to {diff:g}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("recipe", ["tensorwise", "rowwise"])
def test_dynamic_recipes_equal_torchao_float8linear(recipe, dtype):
    pytest.importorskip("torchao")
    ours = probe({"scaling": recipe}, dtype, 3)
    assert_bitwise(ours, replay(torchao_linear(recipe, DTYPES[dtype]), DTYPES[dtype], 3))


@pytest.mark.parametrize("recipe", ["tensorwise", "rowwise", "delayed"])
def test_bfloat16_activations_on_float32_weights_equal_the_oracle(recipe):
    """Autocast's case: float32 master weights, bfloat16 activations and
    output gradients; the output and both gradient GEMMs in bfloat16, cast
    back to float32 for the weight and the bias by autograd."""
    if recipe == "delayed":
        oracle = DelayedScalingLinear(linear(torch.float32), 4, 0, "max")
    else:
        pytest.importorskip("torchao")
        oracle = torchao_linear(recipe, torch.float32)
    ours = probe({"scaling": recipe, "history_len": 4}, "bfloat16", len(GROWTH), weight_dtype="float32")
    assert_bitwise(ours, replay(oracle, torch.bfloat16, len(GROWTH)))


DELAYED = [(1, 0, "max"), (4, 0, "max"), (4, 1, "most_recent"), (3, 2, "max")]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("history_len,margin,algo", DELAYED)
def test_delayed_recipe_equals_the_reference(history_len, margin, algo, dtype):
    recipe = {"scaling": "delayed", "history_len": history_len, "margin": margin, "amax_compute": algo}
    ours = probe(recipe, dtype, len(GROWTH))
    ref = replay(DelayedScalingLinear(linear(DTYPES[dtype]), history_len, margin, algo), DTYPES[dtype], len(GROWTH))
    assert_bitwise(ours, ref)
    assert [o["scales"] for o in ours] == [r["scales"] for r in ref]


def test_the_delayed_scale_comes_from_the_previous_step():
    ours = probe({"scaling": "delayed", "history_len": 1, "margin": 0, "amax_compute": "most_recent"}, "float32", 3)
    for t, (x, _) in enumerate(steps(3)):
        expected = float(x.abs().max().reciprocal() * 448.0)
        assert ours[t]["scales"][0] == expected, f"step {t}: the input scale is not 448 / this step's amax"


@pytest.mark.parametrize("recipe", ["tensorwise", "rowwise", "delayed"])
def test_the_gemms_really_run_in_fp8(recipe):
    """Not bit-equal to the float32 Linear (an unconverted GEMM would be), but
    within e4m3's rounding of it (a wrong scale is far outside). The same
    batch twice, so that the delayed scale of the second step fits it."""
    x, go = steps(1)[0]
    ours = probe({"scaling": recipe}, "float32", 2, [(x, go), (x, go)])
    exact = linear(torch.float32)(x.to(DEVICE)).detach().cpu()
    mine = as_tensor(ours[1]["output"], (M, N))
    assert not torch.equal(mine, exact)
    rel = ((mine - exact).norm() / exact.norm()).item()
    assert rel < 0.05, f"{recipe}: relative error {rel:.3g} of the output, more than e4m3's rounding explains"


@pytest.mark.parametrize("recipe,why", [({"scaling": "bogus"}, "unknown fp8 recipe 'bogus'"),
                                        ({"scaling": "delayed", "history_len": 0}, "history_len must be in [1, 4096] (got 0)"),
                                        ({"scaling": "delayed", "amax_compute": "mean"}, "unknown amax_compute 'mean'")])
def test_a_bad_recipe_is_refused_with_its_reason(recipe, why):
    w, b = weight_and_bias()
    request = {"recipe": recipe, "dtype": "float32", "weight": w.tolist(), "bias": b.tolist(), "steps": []}
    assert why in refusal(request)


def test_one_request_alone_answers_as_the_server_does_and_a_refusal_exits_2():
    """The probe run once per request (its plain form, for a user's own
    request file) gives the server's answer, and refuses with exit 2."""
    x, go = steps(1)[0]
    w, b = weight_and_bias()
    request = {"recipe": {"scaling": "tensorwise"}, "dtype": "float32", "device": DEVICE, "weight": w.tolist(),
               "bias": b.tolist(), "steps": [{"input": x.tolist(), "grad_output": go.tolist()}]}
    once = subprocess.run([PROBE], input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert once.returncode == 0, once.stderr
    assert json.loads(once.stdout) == call(request)
    request["recipe"] = {"scaling": "bogus"}
    once = subprocess.run([PROBE], input=json.dumps(request), capture_output=True, text=True, timeout=60)
    assert once.returncode == 2
    assert "unknown fp8 recipe 'bogus'" in once.stderr


def test_the_server_answers_a_line_that_is_not_json_and_goes_on():
    """A malformed line (not even UTF-8) gets an error line, and the next
    request its answer: the server neither stops nor crashes."""
    lines = b'{"plan": \xff\xfe}\n' + json.dumps({"plan": {"layers": [[4, 4]]}}).encode() + b"\n"
    served = subprocess.run([PROBE, "--serve"], input=lines, capture_output=True, timeout=60)
    assert served.returncode == 0, served.stderr
    first, second = [json.loads(line) for line in served.stdout.splitlines()]
    assert "parse error" in first["error"]
    assert second["plan"][0]["reason"] == "in_features 4 and out_features 4 not divisible by 16"
