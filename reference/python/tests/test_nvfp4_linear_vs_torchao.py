"""The C++ NVFP4 recipe (harness/fp8/nvfp4_cast.h, nvfp4_linear.h, through
ampbench_fp8_probe) held bit for bit to torchao's NVFP4 cast
(nvfp4_quantize, NVFP4Tensor.dequantize, its Hadamard matrix) and to the
oracle's NVFP4 Linear built on it (reference/python/nvfp4_linear.py): the
casts (values, E4M3 block scales, tensor scale; nearest and stochastic from
one recorded stream), the random Hadamard transform, one Linear's output and
three gradients over several steps, and SGD steps of a small network. Also:
each NVFP4 mistake moves what it should, and a bad recipe exits 2.

AMPBENCH_FP8_PROBE names the probe (the CTest fp8.nvfp4_vs_torchao sets it).
"""

from __future__ import annotations


import pytest
import torch

from reference.python import nvfp4_linear as ref
from reference.python.tests.fp8_probe_client import PROBE, assert_sgd_steps_equal, call, refusal

pytestmark = [pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")]
torchao = pytest.importorskip("torchao")

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
NV = {"scaling": "nvfp4"}
M, K, N = 48, 64, 80


def awkward(rows: int, cols: int, seed: int) -> torch.Tensor:
    """Rows over nine binades, an all-zero block, exact E2M1 ties, an outlier."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * torch.logspace(-6, 3, rows).unsqueeze(1)
    x[0, :16] = 0.0
    x[1, :16] = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 6.0] * 2)
    x[2, 3] = 4.0e4
    return x


def probe_cast(x: torch.Tensor, dtype: str = "float32", recipe: dict | None = None, **extra) -> dict:
    return call({"nvfp4_cast": {"input": x.float().tolist(), "dtype": dtype, "recipe": {**NV, **(recipe or {})},
                                **extra}})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_tensor_scale", [True, False])
def test_the_cast_equals_torchao_nvfp4_quantize(dtype, with_tensor_scale):
    from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor

    x = awkward(8, 96, 3).to(DTYPES[dtype])
    ours = probe_cast(x, dtype, {"nvfp4_tensor_scale": with_tensor_scale})
    ts = ref.tensor_scale(x) if with_tensor_scale else None
    t = NVFP4Tensor.to_nvfp4(x.contiguous(), 16, ts)
    data, scales, _ = ref.cast(x, with_tensor_scale=with_tensor_scale)
    assert torch.equal(torch.tensor(ours["block_scale"]).reshape(8, 6), t.scale.float())
    assert torch.equal(torch.tensor(ours["data"]).reshape(x.shape), data)
    assert (ours["tensor_scale"] is None) == (not with_tensor_scale)
    if with_tensor_scale:
        assert ours["tensor_scale"] == ts.item()
    # and torchao's own dequantize gives what our values and scales give
    ours_dq = ref.dequantize(torch.tensor(ours["data"]).reshape(x.shape),
                             torch.tensor(ours["block_scale"]).reshape(8, 6).to(torch.float8_e4m3fn), ts, x.dtype)
    assert torch.equal(ours_dq, t.dequantize(x.dtype))


def test_ties_round_to_even_and_the_outlier_block_gets_448():
    x = awkward(8, 32, 4)
    ours = probe_cast(x, recipe={"nvfp4_tensor_scale": False})
    # row 1's block: amax 6, scale 1, the values themselves rounded
    assert torch.tensor(ours["data"]).reshape(8, 32)[1, :8].tolist() == [0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 6.0]
    scaled = probe_cast(x)
    assert max(scaled["block_scale"]) == 448.0


def test_stochastic_rounding_replays_a_recorded_stream():
    x = awkward(8, 64, 5)
    u = torch.rand(x.shape, generator=torch.Generator().manual_seed(11))
    ours = probe_cast(x, uniform=u.tolist())
    data, _, _ = ref.cast(x, uniform=u)
    assert torch.equal(torch.tensor(ours["data"]).reshape(x.shape), data)
    nearest = torch.tensor(probe_cast(x)["data"]).reshape(x.shape)
    changed = (data != nearest).float().mean().item()
    assert 0.1 < changed < 0.6  # off the grid, about a third of values round the other way


def test_stochastic_rounding_is_unbiased():
    """Many draws on one value between two E2M1 neighbours average to it."""
    # 40 rows, each a block of its own: 40 x 15 draws in one request.
    x = torch.full((40, 16), 2.7)
    x[:, 0] = 6.0  # amax 6: with no tensor scale each block's scale is exactly 1
    u = torch.rand(x.shape, generator=torch.Generator().manual_seed(0))
    ours = probe_cast(x, recipe={"nvfp4_tensor_scale": False}, uniform=u.tolist())
    assert torch.equal(torch.tensor(ours["block_scale"]), torch.ones(40))
    drawn = torch.tensor(ours["data"]).reshape(x.shape)[:, 1:]
    assert set(drawn.unique().tolist()) == {2.0, 3.0}  # the two E2M1 neighbours of 2.7
    assert abs(drawn.mean().item() - 2.7) < 0.05


def test_the_hadamard_transform_equals_torchaos_rht_matrix():
    x = awkward(4, 48, 6)
    ours = probe_cast(x, recipe={"nvfp4_seed": 3}, hadamard=True)
    sign = ref.signs(3)
    assert ours["signs"] == sign.tolist()
    data, scales, _ = ref.cast(ref.hadamard(x, sign))
    assert torch.equal(torch.tensor(ours["data"]).reshape(x.shape), data)
    assert torch.equal(torch.tensor(ours["block_scale"]).reshape(4, 3), scales.float())
    # orthogonal: two operands transformed alike keep their product
    g = torch.Generator().manual_seed(8)
    a, b = torch.randn(4, 48, generator=g), torch.randn(5, 48, generator=g)
    assert torch.allclose(ref.hadamard(a, sign) @ ref.hadamard(b, sign).t(), a @ b.t(), atol=1e-5)
    assert not torch.allclose(ref.hadamard(a, sign), a, atol=0.1)


def linear_data(count: int, rows: int):
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


def replay_linear(recipe: dict, dtype: torch.dtype, rows: int, count: int = 3) -> list[dict]:
    w, b, steps = linear_data(count, rows)
    lin = torch.nn.Linear(K, N).to(dtype)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(b)
    module = ref.Nvfp4Linear(lin, recipe)
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


def as_tensors(ours: list[dict], rows: int) -> list[dict]:
    shapes = {"output": (rows, N), "grad_input": (rows, K), "grad_weight": (N, K), "grad_bias": (N,)}
    return [{k: torch.tensor(o[k]).reshape(s) for k, s in shapes.items()} for o in ours]


def assert_steps_equal(ours: list[dict], theirs: list[dict], rows: int) -> None:
    for o, t in zip(as_tensors(ours, rows), theirs, strict=True):
        for key in o:
            assert torch.equal(o[key], t[key]), key


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows", [M, 34])  # 34: ViT's 17 tokens an image, no whole block
def test_one_linear_equals_the_oracle_over_steps(dtype, rows):
    recipe = {**NV, "nvfp4_seed": 5}
    assert_steps_equal(probe_linear(recipe, dtype, rows), replay_linear(recipe, DTYPES[dtype], rows), rows)


def test_the_output_and_gradients_are_nvfp4_rounding_of_float32():
    w, b, steps = linear_data(1, M)
    ours = as_tensors(probe_linear(NV, "float32", M, 1), M)[0]
    x, go = steps[0]
    exact = {"output": torch.nn.functional.linear(x, w, b), "grad_input": go @ w, "grad_weight": go.t() @ x}
    for key, want in exact.items():
        rel = ((ours[key] - want).norm() / want.norm()).item()
        assert 0 < rel < 0.25, (key, rel)


TRAIN_LAYERS = [(32, 64), (64, 64), (64, 64), (64, 16)]


def test_sgd_steps_with_the_planned_layers_in_nvfp4_equal_the_oracle():
    assert_sgd_steps_equal(TRAIN_LAYERS, {**NV, "nvfp4_seed": 2}, 32)


def test_the_same_stream_every_step_repeats_the_rounding():
    """Same input and output gradient every step: a fresh stream rounds them
    differently each step, a reseeded one identically."""
    w, b, steps = linear_data(1, M)
    x, go = steps[0]
    request = {"dtype": "float32", "weight": w.tolist(), "bias": b.tolist(),
               "steps": [{"input": x.tolist(), "grad_output": go.tolist()}] * 3}
    fresh = as_tensors(call({**request, "recipe": NV})["steps"], M)
    same = as_tensors(call({**request, "recipe": {**NV, "nvfp4_fresh_stream": False}})["steps"], M)
    for key in ("grad_input", "grad_weight"):
        assert not torch.equal(fresh[0][key], fresh[1][key]), key
        assert torch.equal(same[0][key], same[1][key]) and torch.equal(same[1][key], same[2][key]), key
    assert torch.equal(fresh[0]["grad_weight"], same[0]["grad_weight"])  # step 0 draws alike


def test_each_nvfp4_mistake_moves_what_it_should():
    x = awkward(8, 64, 9)
    right = probe_cast(x)
    assert len(probe_cast(x, recipe={"nvfp4_block": 32})["block_scale"]) == len(right["block_scale"]) // 2
    # No tensor scale: block scales of amax / 6 itself, none of the rule's.
    flat = probe_cast(x, recipe={"nvfp4_tensor_scale": False})
    assert flat["tensor_scale"] is None
    assert sum(a != b for a, b in zip(flat["block_scale"], right["block_scale"])) > len(right["block_scale"]) // 2
    # Hadamard omitted: the weight gradient changes, the other GEMMs do not.
    with_h = as_tensors(probe_linear(NV, "float32", M, 1), M)[0]
    without = as_tensors(probe_linear({**NV, "nvfp4_hadamard": False}, "float32", M, 1), M)[0]
    assert torch.equal(with_h["output"], without["output"])
    assert torch.equal(with_h["grad_input"], without["grad_input"])
    assert not torch.equal(with_h["grad_weight"], without["grad_weight"])


@pytest.mark.parametrize("recipe,why", [
    ({"scaling": "nvfp4", "nvfp4_block": 8}, "nvfp4_block must be 16"),
    ({"scaling": "nvfp4", "nvfp4_seed": -1}, "nvfp4_seed must be non-negative"),
    ({"scaling": "nvfp4", "freeze_scales": True}, "not ones of nvfp4"),
    ({"scaling": "nvfp4", "mx_block": 16}, "are MXFP8 settings"),
    ({"scaling": "mxfp8", "nvfp4_hadamard": False}, "are NVFP4 settings"),
])
def test_a_bad_nvfp4_recipe_is_refused_with_its_reason(recipe, why):
    assert why in refusal({"nvfp4_cast": {"input": [[1.0] * 16], "recipe": recipe}})
