"""The FP8 mistakes the negative controls stand for, in the C++ FP8 Linear
(harness/fp8, through ampbench_fp8_probe), each on data where it matters:
each faulted recipe must be at least 3x further from the exact float32
Linear than the correct recipe on the same steps. The distance is the worst
relative error of one row (a sample of the output or of the input gradient,
an output feature of the weight gradient) over the steps; a non-finite value
is infinitely far. The delayed recipe's first step is left out of it: its
scales are 1 then, whatever the data (Transformer Engine's start).

AMPBENCH_FP8_PROBE names the probe (the CTest fp8.linear_vs_torchao sets it);
AMPBENCH_FP8_DEVICE=cuda runs it on the GPU.
"""

from __future__ import annotations

import math
import os

import pytest
import torch

from reference.python.tests.fp8_probe_client import PROBE, call, refusal

DEVICE = os.environ.get("AMPBENCH_FP8_DEVICE", "cpu")
pytestmark = pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")

M, K, N = 16, 32, 48
MARGIN = 3.0


def weight_and_bias() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    return torch.randn(N, K, generator=g) * 0.1, torch.randn(N, generator=g) * 0.1


def batches(magnitudes, grad_decades: float = 2.0) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """One batch per magnitude; the output gradient's rows span grad_decades."""
    g = torch.Generator().manual_seed(5)
    row_scale = torch.logspace(0, -grad_decades, M).unsqueeze(1)
    return [(torch.randn(M, K, generator=g) * m, torch.randn(M, N, generator=g) * row_scale) for m in magnitudes]


def run(recipe: dict, data) -> list[dict]:
    w, b = weight_and_bias()
    request = {"recipe": recipe, "dtype": "float32", "device": DEVICE, "weight": w.tolist(), "bias": b.tolist(),
               "steps": [{"input": x.tolist(), "grad_output": go.tolist()} for x, go in data]}
    return call(request)["steps"]


def worst_row_error(values, exact: torch.Tensor) -> float:
    got = torch.tensor([math.nan if v is None else v for v in values], dtype=torch.float64).reshape(exact.shape)
    if not torch.isfinite(got).all():
        return math.inf
    return float(((got - exact).norm(dim=1) / exact.norm(dim=1)).max())


def distance(recipe: dict, data) -> float:
    w, b = (t.double() for t in weight_and_bias())
    worst = 0.0
    first = 1 if recipe["scaling"] == "delayed" else 0
    for step, (x, go) in list(zip(run(recipe, data), data))[first:]:
        x, go = x.double(), go.double()
        exact = {"output": x @ w.t() + b, "grad_input": go @ w, "grad_weight": go.t() @ x}
        worst = max(worst, *(worst_row_error(step[k], v) for k, v in exact.items()))
    return worst


FAULTS = [
    # name, recipe, fault, data
    ("no saturation, delayed", {"scaling": "delayed", "history_len": 4}, {"saturate": False}, (1, 8)),
    ("e4m3 gradients, tensorwise", {"scaling": "tensorwise"}, {"e4m3_gradients": True}, (1, 1)),
    ("e4m3 gradients, delayed", {"scaling": "delayed", "history_len": 4}, {"e4m3_gradients": True}, (1, 1, 1)),
    ("frozen scales, tensorwise", {"scaling": "tensorwise"}, {"freeze_scales": True}, (1, 16, 256)),
    # Doubling every step, and a margin of one binade that absorbs it.
    ("frozen scales, delayed", {"scaling": "delayed", "history_len": 1, "margin": 1},
     {"freeze_scales": True}, (1, 2, 4, 8, 16, 32, 64)),
    ("input amax from the weight, tensorwise", {"scaling": "tensorwise"}, {"input_amax_from_weight": True}, (30, 30)),
    ("input amax from the weight, delayed", {"scaling": "delayed", "history_len": 4},
     {"input_amax_from_weight": True}, (30, 30, 30)),
    ("history not rolled, delayed", {"scaling": "delayed", "history_len": 4, "amax_compute": "max"},
     {"roll_history": False}, (8, 1, 8, 1, 8)),
]


@pytest.mark.parametrize("name,recipe,fault,magnitudes", FAULTS, ids=[f[0] for f in FAULTS])
def test_each_fault_is_far_from_the_correct_recipe(name, recipe, fault, magnitudes):
    decades = 7.0 if "e4m3_gradients" in fault else 2.0
    data = batches(magnitudes, decades)
    correct = distance(recipe, data)
    faulted = distance({**recipe, **fault}, data)
    assert faulted >= MARGIN * correct, f"{name}: {faulted:.3g} from exact, the correct recipe {correct:.3g}"


@pytest.mark.parametrize("recipe,why", [
    ({"scaling": "rowwise", "freeze_scales": True}, "need per-tensor scales (tensorwise or delayed), not rowwise"),
    ({"scaling": "rowwise", "input_amax_from_weight": True}, "need per-tensor scales"),
    ({"scaling": "tensorwise", "roll_history": False}, "roll_history is a delayed-scaling setting"),
])
def test_a_fault_without_meaning_for_the_recipe_is_refused(recipe, why):
    w, b = weight_and_bias()
    request = {"recipe": recipe, "dtype": "float32", "weight": w.tolist(), "bias": b.tolist(), "steps": []}
    assert why in refusal(request)
