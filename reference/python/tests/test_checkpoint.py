"""The C++ checkpoint of a resume_at case (harness/runner/checkpoint.h) is a
torch.load-able dict, and it holds what Python's own run has at that step."""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path

import pytest
import torch

from reference.python.replay import load_case, replay, torch_load

BINARY = os.environ.get("AMPBENCH_BINARY", "")
CASE = "plain/mlp/fp16/adamw@resume"  # suites/smoke.json: resume_at 6, an inf at step 6


@pytest.fixture(scope="module")
def resumed_dump(tmp_path_factory):
    if not (BINARY and Path(BINARY).is_file() and os.access(BINARY, os.X_OK)):
        pytest.skip("AMPBENCH_BINARY is not set to the ampbench binary: no C++ checkpoint to read")
    base = tmp_path_factory.mktemp("resume")
    proc = subprocess.run([BINARY, "run", "--suite", "smoke", "--device", "cpu", "--no-report", "--no-throughput",
                           "--filter", "^" + CASE.replace("+", r"\+") + "$", "--dump", str(base / "dump"),
                           "--out", str(base / "run")], capture_output=True, text=True, timeout=300)
    folder = base / "dump" / CASE.replace("/", "_")
    if not (folder / "checkpoint.pt").is_file():
        pytest.fail(f"no checkpoint in {folder} (exit {proc.returncode}): {proc.stdout[-1500:]}{proc.stderr[-1500:]}")
    return folder


def test_the_checkpoint_is_a_dict_of_everything_a_resume_needs(resumed_dump):
    ckpt = torch_load(resumed_dump / "checkpoint.pt")
    assert int(ckpt["step_index"]) == 6
    assert {"scaler.scale", "scaler.growth_tracker", "optimizer0.0.exp_avg", "optimizer0.0.step"} <= set(ckpt)
    assert any(k.startswith("model0.") for k in ckpt)


def test_python_trained_to_the_resume_step_holds_the_checkpointed_state(resumed_dump):
    case = load_case(resumed_dump)
    ckpt = torch_load(resumed_dump / "checkpoint.pt")
    head = copy.copy(case)
    head.spec = copy.copy(case.spec)
    head.spec.steps = 6  # Python's run up to the resume point, from the same initial state and batches
    run = replay(head)
    # C++ and Python fp16 runs agree to float32 rounding, not bitwise (the
    # cross-check's business); a checkpoint of another step would be ~1e-3
    # away (one AdamW update at lr 0.003).
    for name, value in run.final[0].items():
        diff = (value - ckpt[f"model0.{name}"]).abs().max().item()
        assert diff <= 1e-6 * max(value.abs().max().item(), 1e-3), f"{name}: {diff}"
    assert float(ckpt["scaler.scale"]) == run.scale[-1]
