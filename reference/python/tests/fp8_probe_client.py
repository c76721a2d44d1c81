"""What the low-precision Linear tests share: a request to ampbench_fp8_probe
(named by AMPBENCH_FP8_PROBE), and the few SGD steps of a small network with
its planned layers in a recipe, run by the probe in C++ and here through the
oracle's conversion, which must agree bit for bit.
"""

from __future__ import annotations

import json
import os
import subprocess

import torch

from reference.python import fp8_convert

PROBE = os.environ.get("AMPBENCH_FP8_PROBE", "")


def call(request: dict) -> dict:
    proc = subprocess.run([PROBE], input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def assert_sgd_steps_equal(layers: list[tuple[int, int]], recipe: dict, rows: int, **train) -> None:
    """Four SGD steps (lr 0.1) of Linear/ReLU layers over inputs of four
    magnitudes: the probe's losses and final parameters equal the oracle's,
    and the oracle converts the two middle layers, as the C++ plan does."""
    torch.manual_seed(0)
    last = len(layers) - 1
    net = torch.nn.Sequential(*[m for i, (a, b) in enumerate(layers)
                                for m in ([torch.nn.Linear(a, b)] + ([torch.nn.ReLU()] if i < last else []))])
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    g = torch.Generator().manual_seed(1)
    in_features, classes = layers[0][0], layers[-1][1]
    data = [(torch.randn(rows, in_features, generator=g) * s, torch.randint(0, classes, (rows,), generator=g))
            for s in (1, 4, .5, 2)]
    ours = call({"train": {"layers": layers, "recipe": recipe, "autocast": False, "lr": 0.1, **train,
                           "params": [[m.weight.tolist(), m.bias.tolist()] for m in linears],
                           "steps": [{"input": x.tolist(), "labels": y.tolist()} for x, y in data]}})
    plan = fp8_convert.convert(net, recipe)
    assert [c.name for c in plan if c.converted] == ["2", "4"]
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for x, y in data:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert ours["losses"] == losses
    for (w, b), m in zip(ours["params"], linears, strict=True):
        assert torch.equal(torch.tensor(w).reshape(m.weight.shape), m.weight.detach())
        assert torch.equal(torch.tensor(b), m.bias.detach())
