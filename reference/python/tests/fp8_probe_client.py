"""What the low-precision Linear tests share: a request to ampbench_fp8_probe
(named by AMPBENCH_FP8_PROBE), and the few SGD steps of a small network with
its planned layers in a recipe, run by the probe in C++ and here through the
oracle's conversion, which must agree bit for bit.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import select
import subprocess

import torch

from reference.python import fp8_convert

PROBE = os.environ.get("AMPBENCH_FP8_PROBE", "")
ANSWER_TIMEOUT_S = 120


class _Server:
    """One `ampbench_fp8_probe --serve` for the test process: a request per
    line, an answer per line. Starting the probe (loading LibTorch) costs
    about 0.4 s, which was most of these tests' time at ~180 requests."""

    def __init__(self):
        self.proc = subprocess.Popen([PROBE, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        atexit.register(self.close)

    def ask(self, request: dict) -> dict:
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        # One answer per request, so nothing is left buffered between calls
        # and select sees the next line's arrival.
        ready, _, _ = select.select([self.proc.stdout], [], [], ANSWER_TIMEOUT_S)
        line = self.proc.stdout.readline() if ready else b""
        if not line:
            self.proc.kill()
            raise AssertionError(f"{PROBE} --serve gave no answer within {ANSWER_TIMEOUT_S} s "
                                 f"(exit {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


@functools.lru_cache(maxsize=1)
def _server() -> _Server:
    return _Server()


def answer(request: dict) -> dict:
    """The probe's answer, a refusal as {"error": reason}."""
    return _server().ask(request)


def call(request: dict) -> dict:
    result = answer(request)
    assert "error" not in result, result["error"]
    return result


def refusal(request: dict) -> str:
    """The reason the probe refuses the request (it must refuse it)."""
    result = answer(request)
    assert "error" in result, f"the probe answered a request it should refuse: {str(result)[:200]}"
    return result["error"]


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
