"""python -m reference.export: what it writes, what it refuses (exit 2,
nothing left behind), and its fallback from scripting to tracing."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

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
    assert entry == {"torchscript": "tok.pt", "inputs": [{"tokens": 12, "vocab": 100}], "batch": 8,
                     "forward_flops": entry["forward_flops"], "classes": 6}
    assert entry["forward_flops"] > 0
    assert "penalty" not in suite["matrix"]["workloads"], "CPU flash attention has no double backward"
    cases = load_suite(str(out.with_suffix(".suite.json")), "cpu").cases
    assert cases and all(c.torchscript["path"] == str(out.resolve()) for c in cases)
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


def test_unscriptable_module_is_traced_with_a_warning(tmp_path, capsys):
    out = tmp_path / "v.pt"
    with pytest.warns(UserWarning, match="tracing instead"):
        rc, err = run(capsys, f"{HERE}:VarArgs", "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert "(torch.jit.trace)" in err and out.is_file()


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
