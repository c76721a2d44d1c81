"""The oracle's FP8 conversion (reference/python/fp8_convert.py) against the
C++ conversion plan (through ampbench_fp8_probe's "plan" request): the same
layers converted, with the same reasons, and each converted layer running
its recipe on the module's own parameters.

AMPBENCH_FP8_PROBE names the probe (the CTest fp8.linear_vs_torchao sets it).
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from reference.python import fp8_convert
from reference.python.fp8_delayed import DelayedScalingLinear
from reference.python.tests.fp8_probe_client import PROBE, call


LAYERS = [
    [(32, 64), (64, 64), (64, 10)],  # the mlp's shape: only the middle one converts
    [(32, 64), (64, 48), (48, 40), (40, 16)],  # a misaligned pair in the middle
    [(12, 10), (10, 5)],  # nothing to convert
    [(16, 16)],  # one layer, both first and last
]


def sequential(layers) -> torch.nn.Sequential:
    mods = []
    for i, (n_in, n_out) in enumerate(layers):
        mods.append(torch.nn.Linear(n_in, n_out))
        if i + 1 < len(layers):
            mods.append(torch.nn.ReLU())
    return torch.nn.Sequential(*mods)


@pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")
@pytest.mark.parametrize("first,last", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("layers", LAYERS, ids=["mlp", "misaligned", "none", "single"])
def test_the_python_plan_is_the_cpp_plan(layers, first, last):
    request = {"plan": {"layers": layers, "convert_first": first, "convert_last": last}}
    ours = [dataclasses.asdict(c) for c in fp8_convert.plan_conversion(sequential(layers), first, last)]
    assert ours == call(request)["plan"]


@pytest.mark.parametrize("scaling", ["tensorwise", "rowwise", "delayed"])
def test_convert_swaps_the_planned_layers_and_keeps_the_parameters(scaling):
    if scaling == "delayed":
        kind = DelayedScalingLinear
    else:
        kind = pytest.importorskip("torchao.float8.float8_linear").Float8Linear
    net = sequential(LAYERS[1])
    params = {name: p for name, p in net.named_parameters()}
    plan = fp8_convert.convert(net, {"scaling": scaling, "history_len": 4}, convert_first=True)
    assert [c.name for c in plan if c.converted] == ["0", "2"]
    assert isinstance(net[0], kind) and isinstance(net[2], kind)
    assert type(net[4]) is torch.nn.Linear and type(net[6]) is torch.nn.Linear
    after = dict(net.named_parameters())
    assert after.keys() == params.keys()
    assert all(after[name] is p for name, p in params.items())  # the same tensors, not copies
    net(torch.randn(16, 32)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())


TRAIN_LAYERS = [(32, 64), (64, 64), (64, 64), (64, 16)]  # the middle two convert, the first when asked
TRAIN_STEPS = (1.0, 4.0, 0.5, 2.0)


@pytest.mark.skipif(not PROBE, reason="AMPBENCH_FP8_PROBE names no ampbench_fp8_probe binary")
@pytest.mark.parametrize("first", [False, True], ids=["first-kept", "first-converted"])
@pytest.mark.parametrize("autocast", [False, True], ids=["fp32-rest", "bf16-autocast-rest"])
@pytest.mark.parametrize("scaling", ["tensorwise", "rowwise", "delayed"])
def test_sgd_steps_with_the_planned_layers_in_fp8_equal_the_oracle(scaling, autocast, first):
    """Training, not one Linear: the losses and the float32 master weights
    after SGD steps, bit for bit, the unconverted layers in float32 or under
    bfloat16 autocast. Under autocast a converted layer's output is in
    bfloat16 even from a float32 input (the first layer): torchao's GEMM sees
    autocast, its casts do not."""
    if scaling != "delayed":
        pytest.importorskip("torchao")
    torch.manual_seed(0)
    net = sequential(TRAIN_LAYERS)
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    g = torch.Generator().manual_seed(1)
    data = [(torch.randn(16, 32, generator=g) * m, torch.randint(0, 16, (16,), generator=g)) for m in TRAIN_STEPS]
    recipe = {"scaling": scaling, "history_len": 2}
    request = {"train": {"layers": TRAIN_LAYERS, "recipe": recipe, "autocast": autocast, "lr": 0.1,
                         "convert_first": first,
                         "params": [[m.weight.tolist(), m.bias.tolist()] for m in linears],
                         "steps": [{"input": x.tolist(), "labels": y.tolist()} for x, y in data]}}
    ours = call(request)

    plan = fp8_convert.convert(net, recipe, convert_first=first)
    assert [c.name for c in plan if c.converted] == (["0", "2", "4"] if first else ["2", "4"])
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for x, y in data:
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert ours["losses"] == losses
    for (w, b), m in zip(ours["params"], [m for m in net.modules() if hasattr(m, "weight")]):
        assert torch.equal(torch.tensor(w).reshape(m.weight.shape), m.weight.detach())
        assert torch.equal(torch.tensor(b), m.bias.detach())


class _Block(torch.nn.Module):
    """An encoder block as torchvision's ViT has it: attention, then an MLP."""

    def __init__(self, d: int = 32):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(d, 2, batch_first=True)
        self.fc1 = torch.nn.Linear(d, 2 * d)
        self.fc2 = torch.nn.Linear(2 * d, d)


def test_an_attention_out_proj_is_not_converted_and_takes_no_seed():
    """nn.MultiheadAttention reads out_proj's weight, never its forward: the C++
    plan keeps it in its own precision, so the NVFP4 seeds count only the
    layers that run converted (one layer's shift reseeds every later one)."""
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), _Block(), _Block(), torch.nn.Linear(32, 16))
    plan = fp8_convert.plan_conversion(net)
    out_projs = [c for c in plan if c.name.endswith("attn.out_proj")]
    assert len(out_projs) == 2 and not any(c.converted for c in out_projs)
    assert all(c.reason == fp8_convert.ATTENTION_OUT_PROJ for c in out_projs)
    pytest.importorskip("torchao")
    fp8_convert.convert(net, {"scaling": "nvfp4", "nvfp4_seed": 7})
    seeds = [m.stream.seed for m in net.modules() if hasattr(m, "stream")]
    assert seeds == [7, 8, 9, 10]  # fc1, fc2 of each block
    assert type(net[1].attn.out_proj) is torch.nn.modules.linear.NonDynamicallyQuantizableLinear
