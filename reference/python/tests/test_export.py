"""python -m reference.export: what it writes, what it refuses (exit 2,
one line, nothing left behind), and its fallback from scripting to tracing
when scripting fails or the scripted file cannot run or train like the
module."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
import torch
from torch import nn
from torch.nn.utils.parametrizations import weight_norm

from reference import export
from reference.python import scripted
from reference.python.suite import load_suite


class VarArgs(nn.Module):
    """torch.jit.script cannot compile *args; torch.jit.trace can."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, *xs):
        return self.fc(xs[0])


class Flat(nn.Module):
    """Returns one value per sample: no [batch, classes] for the loss."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x).flatten()


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class WithPythonFunction(nn.Module):
    """torch.jit.script cannot compile Function.apply, and a trace records it
    as a call into Python, which TorchScript cannot save."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(Double.apply(x))


class WeightNormed(nn.Module):
    """Scripts, but the scripted parametrization raises when it runs; traced,
    it trains as the module does."""

    def __init__(self):
        super().__init__()
        self.fc = weight_norm(nn.Linear(4, 8))
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.relu(self.fc(x)))


class FrozenBranch(nn.Module):
    """Unscriptable (*args), and branches on a parameter that the first SGD
    step turns negative (it raises the logit of class 2, which neither
    sample of the export's batch of 2 is labelled): the trace keeps the
    first branch for good."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.gate = nn.Parameter(torch.tensor(0.01))

    def forward(self, *xs):
        out = self.fc(xs[0])
        if self.gate > 0:
            return out + 10 * self.gate * torch.tensor([0.0, 0.0, 1.0])
        return out * (1 - self.gate)


HERE = "reference.python.tests.test_export"


def run(capsys, *argv) -> tuple[int, str]:
    rc = export.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def test_token_model_gets_a_suite_the_readers_resolve(tmp_path, capsys):
    out = tmp_path / "m" / "tok.pt"
    rc, err = run(capsys, "reference.testmodels:TokenAttention", "--tokens", "12", "--vocab", "100", "--out", str(out))
    assert rc == 0, err
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    entry = suite["models"]["tok"]
    python = {"factory": "reference.testmodels:TokenAttention", "kwargs": {}}
    assert entry == {"torchscript": "tok.pt", "inputs": [{"tokens": 12, "vocab": 100}], "batch": 8,
                     "forward_flops": entry["forward_flops"], "classes": 6, "python": python}
    assert entry["forward_flops"] > 0
    assert "penalty" not in suite["matrix"]["workloads"], "CPU flash attention has no double backward"
    cases = load_suite(str(out.with_suffix(".suite.json")), "cpu").cases
    assert cases and all(c.torchscript["path"] == str(out.resolve()) for c in cases)
    assert all(c.torchscript["python"] == python for c in cases), "the compiled implementation trains the module"
    module = scripted.load(cases[0].torchscript)
    assert scripted.call(module, cases[0].torchscript, torch.randint(1, 100, (2, 12))).shape == (2, 6)


def test_two_inputs_are_split_from_one_packed_batch(tmp_path, capsys):
    out = tmp_path / "two.pt"
    rc, err = run(capsys, "reference.testmodels:TwoInputs", "--input", "3,8,8", "--input", "10", "--out", str(out))
    assert rc == 0, err
    ts = {"path": str(out), "inputs": [{"kind": "float", "shape": [3, 8, 8]}, {"kind": "float", "shape": [10]}]}
    module = scripted.load(ts)
    image, features = torch.randn(2, 3, 8, 8), torch.randn(2, 10)
    packed = torch.cat([image.flatten(1), features], 1)
    module.eval()
    assert torch.equal(scripted.call(module, ts, packed), module(image, features))


def test_the_quick_matrix_is_plain_and_accumulation_with_sgd_and_two_controls(tmp_path, capsys):
    out = tmp_path / "q.pt"
    rc, err = run(capsys, "reference.testmodels:TwoInputs", "--input", "3,8,8", "--input", "10", "--matrix", "quick",
                  "--out", str(out))
    assert rc == 0, err
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    assert suite["matrix"]["workloads"] == ["plain", "accumulation"] and suite["matrix"]["optimizers"] == ["sgd"]
    assert [c["variant"] for c in suite["cases"]] == ["fresh_scaler_each_step", "step_every_microbatch"]
    assert suite["defaults"]["steps"] == 8


def test_unscriptable_module_is_traced_and_says_so(tmp_path, capsys):
    out = tmp_path / "v.pt"
    rc, err = run(capsys, f"{HERE}:VarArgs", "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert "torch.jit.script: " in err and "traced instead" in err
    assert "(traced with torch.jit.trace)" in err and out.is_file()


@pytest.mark.parametrize("argv, why", [
    (["nosuch.module:f", "--input", "4"], "No module named 'nosuch'"),
    (["builtins:dict", "--input", "4"], "not a torch.nn.Module"),
    ([f"{HERE}:Flat", "--input", "4"], "expected [batch, classes]"),
    ([f"{HERE}:VarArgs", "--input", "4", "--kwargs", "{bad"], "--kwargs: not JSON"),
    ([f"{HERE}:VarArgs", "--tokens", "4"], "--tokens needs --vocab"),
])
def test_bad_input_exits_2_and_leaves_nothing(tmp_path, capsys, argv, why):
    out = tmp_path / "x.pt"
    rc, err = run(capsys, *argv, "--out", str(out))
    assert rc == 2
    assert why in err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_never_overwritten(tmp_path, capsys):
    out = tmp_path / "x.pt"
    out.write_text("mine")
    rc, err = run(capsys, f"{HERE}:VarArgs", "--input", "4", "--out", str(out))
    assert rc == 2 and "exists" in err
    assert out.read_text() == "mine"


def the_error(err: str) -> str:
    """The refusal: one line, no traceback."""
    assert "Traceback" not in err and "File \"" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("reference.export: error: ")]
    assert len(lines) == 1 and err.rstrip().endswith(lines[0]), err
    return lines[0]


def test_a_python_autograd_function_is_refused_in_one_line_that_says_what_to_do(tmp_path, capsys):
    rc, err = run(capsys, f"{HERE}:WithPythonFunction", "--input", "4", "--out", str(tmp_path / "f.pt"))
    line = the_error(err)
    assert rc == 2
    assert "'Double'" in line and "torch.autograd.Function" in line and "with torch ops" in line


def test_a_failed_save_leaves_nothing_and_the_rerun_is_not_refused(tmp_path, capsys):
    out = tmp_path / "f.pt"
    rc, err = run(capsys, f"{HERE}:WithPythonFunction", "--input", "4", "--out", str(out))
    assert rc == 2 and list(tmp_path.iterdir()) == [], err
    rc, err = run(capsys, f"{HERE}:VarArgs", "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pt", "f.suite.json"]


def sgd_losses(module: nn.Module, x: torch.Tensor, steps: int = 4) -> list[float]:
    opt = torch.optim.SGD(module.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(module(x), torch.tensor([0, 1]))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_a_scripted_file_that_cannot_run_is_traced_and_trains_like_the_module(tmp_path, capsys):
    out = tmp_path / "wn.pt"
    torch.manual_seed(0)
    eager = WeightNormed()
    rc, err = run(capsys, f"{HERE}:WeightNormed", "--input", "4", "--seed", "0", "--out", str(out))
    assert rc == 0, err
    assert "Parametrization is not working with scripting" in err and "traced instead" in err
    assert "(traced with torch.jit.trace)" in err
    assert "traced with torch.jit.trace" in json.loads(out.with_suffix(".suite.json").read_text())["description"]
    extra = {"ampbench-export.json": ""}
    loaded = torch.jit.load(str(out), _extra_files=extra)
    assert json.loads(extra["ampbench-export.json"])["torchscript"] == "trace"
    x = torch.randn(2, 4)
    assert sgd_losses(loaded, x) == sgd_losses(eager, x)


BINARY = os.environ.get("AMPBENCH_BINARY", "")


@pytest.mark.skipif(not BINARY or not os.path.exists(BINARY), reason="AMPBENCH_BINARY names no built ampbench")
def test_the_harness_trains_the_traced_weight_normed_file(tmp_path, capsys):
    out = tmp_path / "wn.pt"
    rc, err = run(capsys, f"{HERE}:WeightNormed", "--input", "4", "--matrix", "quick", "--out", str(out))
    assert rc == 0, err
    suite_file = out.with_suffix(".suite.json")
    suite = json.loads(suite_file.read_text())
    suite["defaults"]["steps"] = 5
    suite["cases"] = [c for c in suite["cases"] if c["workload"] == "plain"]
    suite_file.write_text(json.dumps(suite))
    p = subprocess.run([BINARY, "run", "--suite", str(suite_file), "--device", "cpu", "--no-report",
                        "--no-throughput", "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    cases = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert len(cases) == 10 and all(c["status"] == c["expect"] for c in cases), cases


def test_a_trace_whose_frozen_branch_trains_differently_is_refused(tmp_path, capsys):
    rc, err = run(capsys, f"{HERE}:FrozenBranch", "--input", "4", "--out", str(tmp_path / "b.pt"))
    line = the_error(err)
    assert rc == 2 and list(tmp_path.iterdir()) == []
    assert "torch.jit.trace: the file does not train like the module" in line
    assert "control flow" in line


MODULE_FILE = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)
"""


@pytest.mark.parametrize("spec", ["space model:Net", "{dir}/space model.py:Net"])
def test_a_module_file_whose_name_has_a_space_exports_and_loads(tmp_path, capsys, monkeypatch, spec):
    src = tmp_path / "src"
    src.mkdir()
    (src / "space model.py").write_text(MODULE_FILE)
    monkeypatch.syspath_prepend(str(src))
    out = tmp_path / "out" / "m.pt"
    rc, err = run(capsys, spec.format(dir=src), "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert "(scripted with torch.jit.script)" in err
    factory = json.loads(out.with_suffix(".suite.json").read_text())["models"]["m"]["python"]["factory"]
    assert factory == (f"{src / 'space model.py'}:Net" if spec.startswith("{dir}") else "space model:Net")
    loaded = torch.jit.load(str(out))
    assert loaded(torch.randn(2, 4)).shape == (2, 3)
    # the second test imports another file of that name: one more "_" apiece
    assert re.fullmatch(r"__torch__\.space_model_*\.Net", loaded._c._type().qualified_name())
