"""The C++ blockwise FP8 recipe (harness/fp8/blockwise_cast.h,
blockwise_linear.h, through ampbench_fp8_probe) held to torchao's blockwise
FP8 training reference bit for bit: the casts (e4m3 values and float32
scales of torchao's torch_blockwise_scale_act_quant_lhs, _rhs and
torch_blockwise_scale_weight_quant) over many magnitudes and an all-zero
tile, one Linear's output and three gradients over several steps against
the oracle's BlockwiseLinear (reference/python/blockwise_linear.py, built
from those quantizers as linear.py's fp8_blockwise_mm arranges them), and
SGD steps of a small network with its planned layers in blockwise FP8.
Also: 64-wide tiles (a control) give another number of scales, scales from
the tensor's amax (the other) one scale repeated, and a bad recipe exits 2
naming the setting.

AMPBENCH_FP8_PROBE names the probe.
"""

from __future__ import annotations


import pytest
import torch

from reference.python import fp8_convert
from reference.python.blockwise_linear import BlockwiseLinear, cast_act
from reference.python.tests.fp8_probe_client import PROBE, assert_sgd_steps_equal, call, refusal

pytestmark = [pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")]
torchao = pytest.importorskip("torchao")

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
M, K, N = 256, 256, 384


def kernels():
    from torchao.prototype.blockwise_fp8_training import kernels as k

    return k


def awkward(rows: int, cols: int, seed: int) -> torch.Tensor:
    """Tiles across many binades (1e-9 to 1e4), an all-zero tile, one below
    eps (1e-13), and one value past 448 in a tile of small ones."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * torch.logspace(-9, 4, rows).unsqueeze(1)
    x[:128, :128] = 0.0
    x[0:2, 128:256] = 1e-13 * torch.randn(2, 128, generator=g)
    x[5, 130] = 3.0e5
    return x


def cast(tiles: str, x: torch.Tensor, dtype: str, tile: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    out = call({"blockwise_cast": {"input": x.float().tolist(), "dtype": dtype, "tiles": tiles, "tile": tile}})
    return torch.tensor(out["data"]).reshape(x.shape), torch.tensor(out["scale"]).reshape(out["scale_shape"])


TORCHAO_CASTS = {"1x128": "torch_blockwise_scale_act_quant_lhs", "128x1": "torch_blockwise_scale_act_quant_rhs",
                 "128x128": "torch_blockwise_scale_weight_quant"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tiles", TORCHAO_CASTS)
def test_each_cast_equals_torchaos_reference_quantizer(tiles, dtype):
    x = awkward(256, 384, 3).to(DTYPES[dtype])
    data, scale = cast(tiles, x, dtype)
    want_data, want_scale = getattr(kernels(), TORCHAO_CASTS[tiles])(x.contiguous(), 128)
    assert torch.equal(data, want_data.float())
    assert torch.equal(scale, want_scale.float())
    assert scale.dtype == torch.float32 and (scale > 0).all()


def test_an_all_zero_tile_casts_to_zeros_under_the_eps_scale():
    x = awkward(256, 256, 4)
    data, scale = cast("128x128", x, "float32")
    assert (data[:128, :128] == 0).all()
    assert scale[0, 0].item() == pytest.approx(1e-12 / 448, rel=1e-6)


def test_a_ragged_dimension_is_padded_with_zeros():
    """torchao refuses it; the cast pads (zeros change no tile's amax)."""
    x = awkward(200, 256, 5)
    data, scale = cast("128x1", x, "float32")
    from reference.python.blockwise_linear import cast_act_t
    want_data, want_scale = cast_act_t(x)
    assert scale.shape == (2, 256)
    assert torch.equal(data, want_data.float()) and torch.equal(scale, want_scale)


def linear_data(count: int, rows: int) -> tuple[torch.Tensor, torch.Tensor, list]:
    g = torch.Generator().manual_seed(7)
    w, b = torch.randn(N, K, generator=g) * 0.05, torch.randn(N, generator=g) * 0.1
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


def replay_linear(dtype: torch.dtype, rows: int, count: int = 3) -> list[dict]:
    w, b, steps = linear_data(count, rows)
    lin = torch.nn.Linear(K, N).to(dtype)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(b)
    module = BlockwiseLinear(lin)
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


def assert_steps_equal(ours: list[dict], theirs: list[dict], rows: int) -> None:
    shapes = {"output": (rows, N), "grad_input": (rows, K), "grad_weight": (N, K), "grad_bias": (N,)}
    for o, t in zip(ours, theirs, strict=True):
        for key, shape in shapes.items():
            assert torch.equal(torch.tensor(o[key]).reshape(shape), t[key]), key


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_linear_equals_the_oracle_on_torchaos_quantizers(dtype):
    ours = probe_linear({"scaling": "blockwise"}, dtype, M)
    assert_steps_equal(ours, replay_linear(DTYPES[dtype], M), M)


def test_rows_that_are_no_whole_tile_equal_the_padded_oracle():
    rows = 136
    ours = probe_linear({"scaling": "blockwise"}, "float32", rows)
    assert_steps_equal(ours, replay_linear(torch.float32, rows), rows)


def test_the_output_is_fp8_rounding_of_the_float32_linear():
    w, b, steps = linear_data(1, M)
    ours = torch.tensor(probe_linear({"scaling": "blockwise"}, "float32", M, 1)[0]["output"]).reshape(M, N)
    exact = torch.nn.functional.linear(steps[0][0], w, b)
    rel = ((ours - exact).norm() / exact.norm()).item()
    assert 0 < rel < 0.05


TRAIN_LAYERS = [(64, 128), (128, 256), (256, 128), (128, 16)]


def test_sgd_steps_with_the_planned_layers_in_blockwise_fp8_equal_the_oracle():
    assert_sgd_steps_equal(TRAIN_LAYERS, {"scaling": "blockwise"}, 48, alignment=128)


def test_the_plan_keeps_layers_128_does_not_divide_in_their_precision():
    plan = call({"plan": {"layers": [[64, 128], [128, 192], [192, 128], [128, 16]], "convert_first": True,
                          "convert_last": True, "alignment": 128}})["plan"]
    assert [p["converted"] for p in plan] == [False, False, False, False]
    assert plan[0]["reason"] == "in_features 64 not divisible by 128"
    assert plan[1]["reason"] == "out_features 192 not divisible by 128"
    py = fp8_convert.plan_conversion(torch.nn.Sequential(*[torch.nn.Linear(a, b) for a, b in
                                                           [(64, 128), (128, 192), (192, 128), (128, 16)]]),
                                     True, True, 128)
    assert [c.reason for c in py] == [p["reason"] for p in plan]


def test_64_wide_tiles_give_another_number_of_scales():
    """The control: finer tiles fit better, so only the scale count shows them."""
    x = awkward(256, 256, 9)
    _, right = cast("1x128", x, "float32")
    _, fine = cast("1x128", x, "float32", tile=64)
    assert fine.shape == (256, 4) and right.shape == (256, 2)
    assert torch.equal(right, cast_act(x)[1])


def test_scales_from_the_tensors_amax_are_one_scale_repeated():
    """The other control: every tile scaled as the tile holding the tensor's amax."""
    x = awkward(256, 256, 10)
    out = call({"blockwise_cast": {"input": x.tolist(), "tiles": "1x128", "own_amax": False}})
    scale = torch.tensor(out["scale"])
    want = 1.0 / torch.tensor(448.0 / x.abs().max().double().item(), dtype=torch.float32)
    assert torch.equal(scale, want.expand_as(scale))
    assert not torch.equal(scale, cast_act(x)[1].flatten())


@pytest.mark.parametrize("recipe,why", [
    ({"scaling": "blockwise", "blockwise_tile": 32}, "blockwise_tile must be 128"),
    ({"scaling": "blockwise", "freeze_scales": True}, "not ones of blockwise"),
    ({"scaling": "tensorwise", "blockwise_tile": 64}, "are blockwise settings"),
    ({"scaling": "rowwise", "blockwise_own_amax": False}, "are blockwise settings"),
])
def test_a_bad_blockwise_recipe_is_refused_with_its_reason(recipe, why):
    request = {"recipe": recipe, "dtype": "float32", "weight": [[0.0] * 128] * 128, "bias": [0.0] * 128,
               "steps": []}
    assert why in refusal(request)
