"""The checker end to end: exit codes and what it names.

Two sources of dumps:
* `py_dump`: written by the Python workloads themselves in the C++ layout
  (dumpmaker.py), so the plumbing and the exit codes are tested everywhere;
* `cpp_dump`: a real `ampbench run --dump`, when AMPBENCH_BINARY names the
  binary (skipped otherwise).  The teeth tests corrupt a copy of it and
  expect exit 1 naming the case, the step and the tensor.
"""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from reference.python.check import check, main
from reference.python.replay import torch_load
from reference.python.spec import Spec
from reference.python.tests.dumpmaker import write_dump

TINY = {"batch": 8, "in_features": 8, "hidden": 8, "classes": 4, "channels": 4, "image": 8, "seq": 4,
        "d_model": 8, "heads": 2, "ffn": 8}


def run_check(root, **kw):
    out, err = io.StringIO(), io.StringIO()
    rc = check(Path(root), out=out, err=err, **kw)
    return rc, out.getvalue() + err.getvalue()


# --- Python-made dumps (no binary needed) -----------------------------------

@pytest.fixture(scope="module")
def py_dump(tmp_path_factory):
    root = tmp_path_factory.mktemp("pydump")
    # fp16 with growth_interval 1 and an injected inf: the scale grows, backs
    # off and grows again within 4 steps.
    write_dump(root, Spec(id="plain/mlp/fp16/sgd@inject", workload="plain", model="mlp", precision="fp16",
                          optimizer="sgd", scaler_enabled=True, steps=4, sizes=dict(TINY), inject_inf_step=2,
                          scaler={"init_scale": 128.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                  "growth_interval": 1}))
    write_dump(root, Spec(id="accumulation/mlp/fp32/adamw", workload="accumulation", model="mlp",
                          precision="fp32", optimizer="adamw", lr=0.003, steps=3, sizes=dict(TINY)))
    return root


@pytest.fixture
def py_copy(py_dump, tmp_path):
    dst = tmp_path / "dump"
    shutil.copytree(py_dump, dst)
    return dst


def test_consistent_dump_passes(py_dump):
    rc, text = run_check(py_dump)
    assert rc == 0, text
    assert "2 of 2 cases agree" in text
    assert text.count("\nok ") + text.startswith("ok ") == 2


def test_scale_growth_one_step_late_is_caught(py_copy):
    meta_path = py_copy / "plain_mlp_fp16_sgd@inject" / "case.json"
    meta = json.loads(meta_path.read_text())
    scale = meta["trajectory"]["scale"]
    assert scale[:2] == [256.0, 512.0]  # grows every step (growth_interval 1)
    scale[1] = scale[0]  # growth at step 1 arrives one step late
    meta_path.write_text(json.dumps(meta))
    rc, text = run_check(py_copy)
    assert rc == 1, text
    assert "MISMATCH plain/mlp/fp16/sgd@inject: step 1: scale: 512 (Python) vs 256 (C++)" in text


def test_perturbed_final_parameter_is_caught(py_copy):
    path = py_copy / "accumulation_mlp_fp32_adamw" / "final_model0.pt"
    state = torch.load(path)
    state["fc2.weight"][1, 2] += 1e-3
    torch.save(state, path)
    rc, text = run_check(py_copy)
    assert rc == 1, text
    assert "accumulation/mlp/fp32/adamw: step final (after step 2): model0.fc2.weight: max deviation at [1,2]" in text


def test_bitwise_excuses_no_ulp(py_copy):
    """--bitwise: the Python-made dump replays bit for bit; one element one
    ulp off is within every tolerance, and a mismatch only under --bitwise,
    which names the tensor and how many elements differ."""
    rc, text = run_check(py_copy, bitwise=True)
    assert rc == 0 and text.count("  bitwise") == 2, text
    path = py_copy / "accumulation_mlp_fp32_adamw" / "final_model0.pt"
    state = torch.load(path)
    w = state["fc2.weight"]
    w[1, 2] = torch.nextafter(w[1, 2], torch.tensor(float("inf")))
    torch.save(state, path)
    rc, text = run_check(py_copy)
    assert rc == 0, text
    rc, text = run_check(py_copy, bitwise=True)
    assert rc == 1, text
    assert (f"MISMATCH accumulation/mlp/fp32/adamw: step final (after step 2): model0.fc2.weight: "
            f"1 of {w.numel()} elements differ: not bit for bit") in text


def test_bitwise_names_the_first_loss_that_differs(py_copy):
    """A loss one ulp off at step 1 (and nothing else): the step and both
    values, before any tensor."""
    import math
    meta_path = py_copy / "plain_mlp_fp16_sgd@inject" / "case.json"
    meta = json.loads(meta_path.read_text())
    loss = meta["trajectory"]["loss"]
    loss[1] = float(torch.nextafter(torch.tensor(loss[1], dtype=torch.float32), torch.tensor(math.inf)))
    meta_path.write_text(json.dumps(meta))
    assert run_check(py_copy)[0] == 0
    rc, text = run_check(py_copy, bitwise=True)
    assert rc == 1, text
    assert "MISMATCH plain/mlp/fp16/sgd@inject: step 1: loss: " in text and "(C++): not bit for bit" in text


def test_unusable_inputs_exit_2(py_copy, tmp_path):
    (py_copy / "accumulation_mlp_fp32_adamw" / "labels.pt").unlink()
    rc, text = run_check(py_copy)
    assert rc == 2, text
    assert "labels.pt: missing dump file" in text
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_check(empty)[0] == 2
    assert run_check(tmp_path / "does-not-exist")[0] == 2
    assert main([str(py_copy), "--filter", "(["]) == 2


def test_truncated_batches_exit_2(py_copy):
    path = py_copy / "plain_mlp_fp16_sgd@inject" / "inputs.pt"
    torch.save(torch.load(path)[:-1], path)
    rc, text = run_check(py_copy, case_filter="inject")
    assert rc == 2 and "need 4" in text


def test_a_tf32_dump_is_skipped_with_a_reason(py_copy):
    # tf32 (CUDA TF32 tensor-core math) is not replayed; a dump of one is
    # listed as skipped and fails nothing.
    src = py_copy / "accumulation_mlp_fp32_adamw"
    meta = json.loads((src / "case.json").read_text())
    meta["spec"].update(id="accumulation/mlp/tf32/adamw", precision="tf32")
    (src / "case.json").write_text(json.dumps(meta))
    rc, text = run_check(py_copy)
    assert rc == 0, text
    assert ("SKIPPED accumulation_mlp_fp32_adamw: the Python reference does not run tf32 "
            "(CUDA TF32 tensor-core math) yet") in text
    assert "1 of 2 cases agree" in text and "1 skipped" in text


# --- real C++ dumps (AMPBENCH_BINARY) ----------------------------------------

BINARY = os.environ.get("AMPBENCH_BINARY", "")
# One case per corruption, plus their fp32 baselines (select_cases adds them),
# and O3, whose float16 momentum replays bit for bit only with LibTorch's rounding.
CPP_FILTER = r"^(plain/mlp/fp16/sgd@inject|clip_norm/mlp/fp16/sgd|plain/mlp/fp32/sgd|plain/mlp/o3/sgd)$"


@pytest.fixture(scope="session")
def cpp_dump(tmp_path_factory):
    if not BINARY:
        pytest.skip("AMPBENCH_BINARY is not set: no C++ binary to generate a real dump with")
    if not (Path(BINARY).is_file() and os.access(BINARY, os.X_OK)):
        pytest.skip(f"AMPBENCH_BINARY={BINARY} is not an executable file")
    base = tmp_path_factory.mktemp("cppdump")
    proc = subprocess.run([BINARY, "run", "--suite", "smoke", "--device", "cpu", "--no-report",
                           "--no-throughput", "--filter", CPP_FILTER, "--dump", str(base / "dump"),
                           "--out", str(base / "run")], capture_output=True, text=True, timeout=300)
    if not (base / "dump").is_dir():
        pytest.fail(f"{BINARY} run --dump wrote no dump (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return base / "dump"


@pytest.fixture
def cpp_copy(cpp_dump, tmp_path):
    dst = tmp_path / "dump"
    shutil.copytree(cpp_dump, dst)
    return dst


def test_real_dump_agrees(cpp_dump):
    rc, text = run_check(cpp_dump)
    assert rc == 0, text


def test_real_dump_replays_bit_for_bit(cpp_dump):
    """LibTorch's own roundings are the oracle's for the loop cases, O3's
    float16 momentum included (libtorch_optim.py)."""
    rc, text = run_check(cpp_dump, bitwise=True)
    assert rc == 0, text
    assert "plain/mlp/o3/sgd" in text


def test_real_dump_scale_growth_one_step_late(cpp_copy):
    meta_path = cpp_copy / "plain_mlp_fp16_sgd@inject" / "case.json"
    meta = json.loads(meta_path.read_text())
    scale = meta["trajectory"]["scale"]
    growth = next(i for i in range(1, len(scale)) if scale[i] > scale[i - 1])
    scale[growth] = scale[growth - 1]
    meta_path.write_text(json.dumps(meta))
    rc, text = run_check(cpp_copy)
    assert rc == 1, text
    assert f"MISMATCH plain/mlp/fp16/sgd@inject: step {growth}: scale:" in text


def test_real_dump_perturbed_final_parameter(cpp_copy):
    path = cpp_copy / "plain_mlp_fp32_sgd" / "final_model0.pt"
    state = torch_load(path)
    state["fc2.weight"][3, 5] *= 1.0001
    torch.save(state, path)
    rc, text = run_check(cpp_copy)
    assert rc == 1, text
    assert "plain/mlp/fp32/sgd: step final (after step 11): model0.fc2.weight: max deviation at [3,5]" in text


def test_real_dump_wrong_procedure_is_caught(cpp_copy):
    """Python replays the negative control on a dump of the correct
    procedure: the checker must see the procedures part."""
    meta_path = cpp_copy / "clip_norm_mlp_fp16_sgd" / "case.json"
    meta = json.loads(meta_path.read_text())
    meta["spec"]["variant"] = "clip_before_unscale"
    meta_path.write_text(json.dumps(meta))
    rc, text = run_check(cpp_copy)
    assert rc == 1, text
    assert "MISMATCH clip_norm/mlp/fp16/sgd: step " in text


def test_deeply_nested_case_json_is_unusable_not_a_traceback(tmp_path):
    # RecursionError used to escape json.loads.
    case = tmp_path / "deep"
    case.mkdir()
    (case / "case.json").write_text("[" * 5000 + "]" * 5000)
    rc, text = run_check(case)
    assert rc == 2, text
    assert "nested deeper than 64 levels" in text
