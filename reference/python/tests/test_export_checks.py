"""What the export checks before it writes a suite (reference/export_checks.py):
names, something to train, FLOPs that count recurrent layers or say they
cannot, and the precisions the module and the written file can run."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
import torch
from torch import nn

from reference import export
from reference.export_checks import ExportError, forward_flops, model_name
from reference.python.models import FAMILIES

HERE = "reference.python.tests.test_export_checks"


class LstmClassifier(nn.Module):
    """Token ids -> embedding -> one LSTM -> the last step's hidden state -> a
    linear head: the counter sees only the head."""

    def __init__(self, vocab=50, width=16, hidden=32, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        out, _ = self.lstm(self.embed(x))
        return self.head(out[:, -1])


class GruStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 10, num_layers=2, bidirectional=True)  # [seq, batch, features]
        self.head = nn.Linear(20, 3)

    def forward(self, x):
        out, _ = self.gru(x.transpose(0, 1))
        return self.head(out[-1])


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(8))

    def forward(self, x):
        return x * self.w


class WithGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.gate, self.b = nn.Linear(4, 8), Gate(), nn.Linear(8, 3)

    def forward(self, x):
        return self.b(self.gate(self.a(x)))


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3).requires_grad_(False)

    def forward(self, x):
        return self.fc(x)


class BakedMin(nn.Module):
    """Masks with the lowest value of the activations' dtype. Traced (the
    *args keep torch.jit.script out), float32's lowest value is baked in:
    under float16 it becomes -inf, where the module itself uses -65504."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)

    def forward(self, *xs):
        h = self.fc(xs[0])
        return h.masked_fill(h < 0, torch.finfo(h.dtype).min)


class BakedDtype(nn.Module):
    """Casts its input to its weight's dtype. Traced, the cast is to float32
    for good, which O2's float16 weights then cannot take; the module itself
    runs O2."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, *xs):
        return self.fc(xs[0].to(self.fc.weight.dtype))


class Overflows(nn.Module):
    """Float16 overflows in its forward (a product past 65504), in the module
    and in the file alike."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x * 1e5) * 1e5


def run(capsys, *argv) -> tuple[int, str]:
    rc = export.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def test_names_are_plain_and_never_a_familys():
    assert model_name(None, "mine") == ("mine", None)
    name, notice = model_name(None, "gpt2")
    assert name == "gpt2-file" and "built-in" in notice
    assert model_name(None, "my model")[0] == "my-model"
    assert model_name(None, ".hidden")[0] == "hidden"
    for bad in ("gpt2", "resnet", "my model", ".x"):
        with pytest.raises(ExportError, match="plain name"):
            model_name(bad, "anything")


def test_a_file_named_like_a_family_gets_a_name_the_suite_accepts(tmp_path, capsys):
    out = tmp_path / "gpt2.pt"
    rc, err = run(capsys, "reference.python.tests.test_export:VarArgs", "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert "gpt2-file" in err
    assert list(json.loads(out.with_suffix(".suite.json").read_text())["models"]) == ["gpt2-file"]


BINARY = os.environ.get("AMPBENCH_BINARY", "")


@pytest.mark.skipif(not BINARY or not os.path.exists(BINARY), reason="AMPBENCH_BINARY names no built ampbench")
def test_the_python_families_are_the_harness_families(tmp_path):
    """The names the export avoids are the ones the suite reader refuses."""
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps({"name": "s", "models": {"mlp": {"torchscript": "x.pt", "inputs": [{"shape": [4]}],
                                                                  "classes": 3}},
                                 "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32"],
                                            "optimizers": ["sgd"]}}))
    p = subprocess.run([BINARY, "list", "--suite", str(suite)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    listed = re.search(r"registered family's \(([^)]*)\)", p.stderr)
    assert listed, p.stderr
    assert {n.strip() for n in listed.group(1).split(",")} == set(FAMILIES)


def test_a_module_with_nothing_to_train_is_refused_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "frozen.pt"
    rc, err = run(capsys, f"{HERE}:Frozen", "--input", "4", "--out", str(out))
    assert rc == 2 and "no trainable floating-point parameter" in err
    assert list(tmp_path.iterdir()) == []


def test_an_lstm_counts_its_gates():
    x = torch.randint(0, 50, (2, 12))
    flops, why = forward_flops(LstmClassifier(), [x])
    assert why is None
    # Per step, the four gates' input (16) and hidden (32) products into 32
    # units, 2 FLOPs each multiply-add; the head once.
    assert flops == 12 * 2 * 4 * 32 * (16 + 32) + 2 * 32 * 5


def test_a_deep_bidirectional_gru_counts_every_layer_and_direction():
    x = torch.randn(2, 7, 6)
    flops, why = forward_flops(GruStack(), [x])
    assert why is None
    layer0 = 2 * (2 * 3 * 10 * (6 + 10))
    layer1 = 2 * (2 * 3 * 10 * (20 + 10))  # the second layer reads both directions
    assert flops == 7 * (layer0 + layer1) + 2 * 20 * 3


def test_a_layer_whose_work_is_not_counted_makes_the_count_unavailable():
    flops, why = forward_flops(WithGate(), [torch.randn(2, 4)])
    assert flops is None and "'gate'" in why and "Gate" in why


def test_the_suite_of_an_uncounted_model_has_no_flops_and_says_why(tmp_path, capsys):
    out = tmp_path / "gated.pt"
    rc, err = run(capsys, f"{HERE}:WithGate", "--input", "4", "--out", str(out))
    assert rc == 0, err
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    assert "forward_flops" not in suite["models"]["gated"]
    assert "No MFU" in suite["description"]


def test_a_precision_pytorch_cannot_run_is_left_out_with_its_controls(tmp_path, capsys, monkeypatch):
    """The module raises under float16 autocast, as PyTorch's CPU LSTM does."""
    real = LstmClassifier.forward

    def refuses_fp16(self, x):
        if torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") == torch.float16:
            raise RuntimeError("could not create a primitive descriptor for the LSTM forward propagation primitive")
        return real(self, x)

    monkeypatch.setattr(LstmClassifier, "forward", refuses_fp16)
    out = tmp_path / "lstm.pt"
    rc, err = run(capsys, f"{HERE}:LstmClassifier", "--tokens", "12", "--vocab", "50", "--out", str(out))
    assert rc == 0, err
    assert "fp16 left out of the suite: PyTorch cannot run it here: could not create a primitive" in err
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    assert "fp16" not in suite["matrix"]["precisions"] and "fp32" in suite["matrix"]["precisions"]
    assert all(c["precision"] != "fp16" for c in suite["cases"])
    assert suite["models"]["lstm"]["forward_flops"] > 12 * 2 * 4 * 32 * 16


def test_a_trace_that_baked_in_float32_constants_is_left_out_where_it_diverges(tmp_path, capsys):
    out = tmp_path / "baked.pt"
    rc, err = run(capsys, f"{HERE}:BakedMin", "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert "fp16 left out of the suite: the written file does not behave like the module" in err
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    assert "fp16" not in suite["matrix"]["precisions"]
    assert "fp32" in suite["matrix"]["precisions"]


def test_a_file_that_fails_where_the_module_runs_is_left_out_with_pytorchs_message(tmp_path, capsys):
    out = tmp_path / "cast.pt"
    rc, err = run(capsys, f"{HERE}:BakedDtype", "--input", "4", "--out", str(out))
    assert rc == 0, err
    line = next(x for x in err.splitlines() if x.startswith("reference.export: o2 left out"))
    # The op's own error, not the interpreter's wrapper around it.
    assert "it fails where the module runs: " in line and "dtype" in line, line
    assert "TorchScript interpreter" not in line, line
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    assert suite["matrix"]["precisions"] == ["fp32", "fp16", "bf16"]
    assert "o2 left out: the written file does not behave like the module" in suite["description"]


def test_an_overflow_the_file_shares_with_the_module_leaves_the_precision_in(tmp_path, capsys):
    out = tmp_path / "big.pt"
    rc, err = run(capsys, f"{HERE}:Overflows", "--input", "4", "--out", str(out))
    assert rc == 0, err
    assert "left out" not in err, err
    suite = json.loads(out.with_suffix(".suite.json").read_text())
    assert suite["matrix"]["precisions"] == ["fp32", "fp16", "bf16", "o2"]


@pytest.mark.skipif(not BINARY or not os.path.exists(BINARY), reason="AMPBENCH_BINARY names no built ampbench")
def test_the_harness_skips_a_precision_pytorch_cannot_run_with_its_message(tmp_path, capsys):
    """Asked for fp16 anyway (a suite written by hand), the harness probes the
    model at load and skips its fp16 cases on the CPU with PyTorch's reason,
    instead of erroring in every one."""
    out = tmp_path / "lstm.pt"
    rc, err = run(capsys, f"{HERE}:LstmClassifier", "--tokens", "12", "--vocab", "50", "--matrix", "quick",
                  "--out", str(out))
    assert rc == 0, err
    suite_file = out.with_suffix(".suite.json")
    suite = json.loads(suite_file.read_text())
    suite["matrix"]["precisions"] = ["fp32", "fp16"]
    suite["matrix"]["workloads"] = ["plain"]
    suite["defaults"]["steps"] = 3
    suite_file.write_text(json.dumps(suite))
    results = tmp_path / "run"
    p = subprocess.run([BINARY, "run", "--suite", str(suite_file), "--device", "cpu", "--no-report",
                        "--no-throughput", "--out", str(results)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    cases = {c["id"]: c for c in json.loads((results / "results.json").read_text())["cases"]}
    fp16 = [c for i, c in cases.items() if "/fp16/" in i]
    assert fp16 and all(c["status"] == "skipped" for c in fp16), fp16
    assert all("PyTorch cannot train lstm in fp16 on cpu" in c["reason"] and "primitive descriptor" in c["reason"]
               for c in fp16)
    assert all(c["status"] == "pass" for i, c in cases.items() if "/fp32/" in i)
