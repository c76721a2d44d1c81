"""The C++ MXFP8 recipe (harness/fp8/mx_cast.h, mx_linear.h, through
ampbench_fp8_probe) held to torchao's emulated MXFP8 path bit for bit: the
casts (e4m3 data and E8M0 exponents, floor, rceil and ceil), one Linear's
output and three gradients over several steps (torchao's MXFP8Linear with
KernelPreference.EMULATED), and SGD steps of a small network with its
planned layers in MXFP8 (reference/python/mx_linear.py, itself held to
MXFP8Linear here). Also: each MX mistake moves the exponents the way the
scale audit sees it, and a bad MX recipe exits 2 naming the setting.

AMPBENCH_FP8_PROBE names the probe (the CTest fp8.linear_vs_torchao sets it).
"""

from __future__ import annotations


import pytest
import torch

from reference.python.mx_linear import MxLinear, cast
from reference.python.tests.fp8_probe_client import PROBE, assert_sgd_steps_equal, call, refusal

pytestmark = [pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")]
torchao = pytest.importorskip("torchao")

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
M, K, N = 64, 64, 96


def awkward(rows: int, cols: int, seed: int) -> torch.Tensor:
    """Blocks across many binades: an all-zero block, one below E8M0's range
    after the offset (2^-125), one exactly a power of two, one past 448 x 2^8."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * torch.logspace(-6, 3, rows).unsqueeze(1)
    x[0, :32] = 0.0
    x[1, :32] *= 2.0 ** -125 / x[1, :32].abs().max()
    x[2, 0] = 2.0 ** 5
    x[2, 1:32] = x[2, 1:32].clamp(-31, 31)
    x[3, 5] = 3.0e5
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["floor", "rceil", "ceil"])
def test_the_cast_equals_torchao_to_mx(mode, dtype):
    from torchao.prototype.mx_formats.mx_tensor import to_mx

    x = awkward(8, 96, 3).to(DTYPES[dtype])
    ours = call({"mx_cast": {"input": x.float().tolist(), "dtype": dtype,
                             "recipe": {"scaling": "mxfp8", "mx_scale_mode": mode}}})
    scale, data = to_mx(x.contiguous(), torch.float8_e4m3fn, 32, cast.__globals__["_modes"]()[mode])
    assert ours["exponent"] == scale.view(torch.uint8).flatten().tolist()
    assert torch.equal(torch.tensor(ours["data"]).reshape(x.shape), data.float())


def test_a_partial_block_is_padded_with_zeros():
    x = awkward(4, 70, 5)
    ours = call({"mx_cast": {"input": x.tolist(), "recipe": {"scaling": "mxfp8"}}})
    data, exponent = cast(x)
    assert exponent.shape == (4, 3)
    assert ours["exponent"] == exponent.flatten().tolist()
    assert torch.equal(torch.tensor(ours["data"]).reshape(x.shape), data.float())


def linear_data(count: int, rows: int) -> tuple[torch.Tensor, torch.Tensor, list]:
    g = torch.Generator().manual_seed(7)
    w, b = torch.randn(N, K, generator=g) * 0.2, torch.randn(N, generator=g) * 0.1
    w[3, 5] = 3.0
    steps = []
    for t in range(count):
        x = torch.randn(rows, K, generator=g) * (1.0, 8.0, 0.125)[t % 3]
        x[t % rows] *= 30.0
        go = torch.randn(rows, N, generator=g) * 1e-3
        go[:, t % N] *= 1e3
        steps.append((x, go))
    return w, b, steps


def probe_linear(recipe: dict, dtype: str, rows: int, count: int = 3) -> list[dict]:
    w, b, steps = linear_data(count, rows)
    return call({"recipe": recipe, "dtype": dtype, "weight": w.tolist(), "bias": b.tolist(),
                 "steps": [{"input": x.tolist(), "grad_output": go.tolist()} for x, go in steps]})["steps"]


def replay_linear(module_of, dtype: torch.dtype, rows: int, count: int = 3) -> list[dict]:
    w, b, steps = linear_data(count, rows)
    lin = torch.nn.Linear(K, N).to(dtype)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(b)
    module = module_of(lin)
    out = []
    for x, go in steps:
        xi = x.to(dtype).requires_grad_(True)
        y = module(xi)
        y.backward(go.to(dtype))
        out.append({"output": y.detach().float(), "grad_input": xi.grad.float(),
                    "grad_weight": module.weight.grad.float(), "grad_bias": module.bias.grad.float()})
        module.weight.grad = None
        module.bias.grad = None
    return out


def torchao_mxfp8(mode: str):
    from torchao.prototype.moe_training.mxfp8_linear import MXFP8Linear
    from torchao.prototype.mx_formats.config import ScaleCalculationMode
    from torchao.quantization.quantize_.common.kernel_preference import KernelPreference

    def make(lin: torch.nn.Linear):
        m = MXFP8Linear(K, N, kernel_preference=KernelPreference.EMULATED,
                        scale_calculation_mode=getattr(ScaleCalculationMode, mode.upper()))
        m = m.to(lin.weight.dtype)
        m.weight, m.bias = lin.weight, lin.bias
        return m
    return make


def assert_steps_equal(ours: list[dict], theirs: list[dict], rows: int) -> None:
    shapes = {"output": (rows, N), "grad_input": (rows, K), "grad_weight": (N, K), "grad_bias": (N,)}
    for o, t in zip(ours, theirs, strict=True):
        for key, shape in shapes.items():
            assert torch.equal(torch.tensor(o[key]).reshape(shape), t[key]), key


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["floor", "rceil"])
def test_one_linear_equals_torchao_mxfp8linear(mode, dtype):
    ours = probe_linear({"scaling": "mxfp8", "mx_scale_mode": mode}, dtype, M)
    assert_steps_equal(ours, replay_linear(torchao_mxfp8(mode), DTYPES[dtype], M), M)
    # and the oracle's own MxLinear is torchao's there
    assert_steps_equal(ours, replay_linear(lambda lin: MxLinear(lin, mode), DTYPES[dtype], M), M)


def test_rows_that_are_no_whole_block_equal_the_padded_oracle():
    """ViT's 17 tokens an image: torchao refuses such a batch, the oracle pads."""
    rows = 34
    ours = probe_linear({"scaling": "mxfp8"}, "float32", rows)
    assert_steps_equal(ours, replay_linear(lambda lin: MxLinear(lin), torch.float32, rows), rows)


def test_the_output_is_mx_rounding_of_the_float32_linear():
    w, b, steps = linear_data(1, M)
    ours = torch.tensor(probe_linear({"scaling": "mxfp8"}, "float32", M, 1)[0]["output"]).reshape(M, N)
    exact = torch.nn.functional.linear(steps[0][0], w, b)
    rel = ((ours - exact).norm() / exact.norm()).item()
    assert 0 < rel < 0.05


TRAIN_LAYERS = [(32, 64), (64, 64), (64, 64), (64, 16)]


def test_sgd_steps_with_the_planned_layers_in_mxfp8_equal_the_oracle():
    assert_sgd_steps_equal(TRAIN_LAYERS, {"scaling": "mxfp8"}, 32)


def exponents(recipe: dict, x: torch.Tensor) -> list[int]:
    return call({"mx_cast": {"input": x.tolist(), "recipe": {"scaling": "mxfp8", **recipe}}})["exponent"]


def test_each_mx_mistake_changes_the_exponents():
    x = awkward(8, 64, 9)
    right = exponents({}, x)
    ceil = exponents({"mx_scale_mode": "ceil"}, x)
    # Rounded up: one more wherever a block's amax is not a power of two.
    assert sum(c == r + 1 for c, r in zip(ceil, right)) >= len(right) - 3
    assert len(exponents({"mx_block": 16}, x)) == 2 * len(right)
    wrapped = exponents({"mx_clamp_exponent": False}, x)
    # Two blocks a row: row 0's first is all zero (-127 - 8 + 127 wraps to
    # 248), row 1's first is at 2^-125 (-125 - 8 + 127 wraps to 250); the
    # others are in range and unchanged.
    assert (right[0], wrapped[0]) == (0, 248)
    assert (right[2], wrapped[2]) == (0, 250)
    assert right[1] == wrapped[1] and right[3:] == wrapped[3:]


@pytest.mark.parametrize("recipe,why", [
    ({"scaling": "mxfp8", "mx_block": 8}, "mx_block must be 32"),
    ({"scaling": "mxfp8", "mx_scale_mode": "even"}, "unknown mx_scale_mode 'even'"),
    ({"scaling": "mxfp8", "freeze_scales": True}, "not ones of mxfp8"),
    ({"scaling": "tensorwise", "mx_block": 16}, "are MXFP8 settings"),
])
def test_a_bad_mx_recipe_is_refused_with_its_reason(recipe, why):
    assert why in refusal({"mx_cast": {"input": [[1.0] * 32], "recipe": recipe}})
