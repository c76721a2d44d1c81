"""The suite expansion mirrors harness/suite/suite.cpp: same ids, same order."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from reference.python.bench import main as bench_main
from reference.python.results_file import SCHEMA_NAME, SCHEMA_VERSION, Status, load_results
from reference.python.suite import SuiteError, load_suite, parse_suite

BINARY = os.environ.get("AMPBENCH_BINARY", "")


def test_smoke_expansion_shape():
    suite = load_suite("smoke", "cpu")
    ids = [c.id for c in suite.cases]
    assert len(ids) == len(set(ids))
    # Matrix: 6 workloads x 3 models x 5 precisions (sgd only) = 90.
    assert ids[:5] == ["plain/mlp/fp32/sgd", "plain/mlp/fp16/sgd", "plain/mlp/o2/sgd", "plain/mlp/o3/sgd",
                       "plain/mlp/bf16/sgd"]
    assert "plain/mlp/fp32+scaler/sgd@exact" in ids
    assert "clip_norm+clip_before_unscale/mlp/fp16/sgd" in ids
    # A baseline comes before the first case that needs it.
    assert ids.index("plain/mlp/fp32/adamw@tinygrad") < ids.index("plain/mlp/fp16/adamw@tinygrad")
    by_id = {c.id: c for c in suite.cases}
    assert by_id["plain/mlp/fp16/adamw@tinygrad"].baseline_id == "plain/mlp/fp32/adamw@tinygrad"
    assert by_id["plain+no_scaler/mlp/fp16/adamw@tinygrad"].scaler_enabled is False
    assert by_id["multi/mlp/fp16/sgd@growth"].scaler["growth_interval"] == 2
    assert by_id["accumulation/mlp/fp16/sgd"].effective_batch() == 64
    assert not by_id["penalty+penalty_from_scaled_grads/mlp/fp16/sgd"].throughput.enabled


def test_suite_errors_are_reported():
    with pytest.raises(SuiteError, match="unknown suite"):
        load_suite("no-such-suite", "cpu")
    with pytest.raises(SuiteError, match="not valid JSON"):
        parse_suite("{", "x.json", "cpu")
    with pytest.raises(SuiteError, match="bf16 with a GradScaler"):
        parse_suite(json.dumps({"name": "x", "models": {"mlp": {"batch": 8}}, "cases": [
            {"workload": "plain", "model": "mlp", "precision": "bf16", "optimizer": "sgd",
             "scaler_enabled": True}]}), "x.json", "cpu")


def test_bench_refuses_bad_arguments(capsys):
    assert bench_main(["--suite", "no-such-suite"]) == 2
    assert bench_main(["--suite", "smoke", "--filter", "^nothing-matches$"]) == 2


@pytest.mark.skipif(not BINARY, reason="AMPBENCH_BINARY is not set: cannot compare with `ampbench list`")
@pytest.mark.parametrize("suite", ["smoke", "conformance", "throughput"])
def test_ids_match_the_cpp_loader(suite):
    proc = subprocess.run([BINARY, "list", "--suite", suite], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    cpp_ids = [line.split()[0] for line in proc.stdout.splitlines()[1:] if line.strip()]
    # The Python oracle leaves the distributed workloads out, their negative
    # controls ("ddp+rank_disagreement/...") included.
    cpp_ids = [i for i in cpp_ids if i.split("/")[0].split("+")[0] not in ("dataparallel", "ddp")]
    assert [c.id for c in load_suite(suite, "cpu").cases] == cpp_ids


def test_bench_writes_the_results_schema(tmp_path):
    suite = tmp_path / "tiny.json"
    suite.write_text(json.dumps({
        "name": "tiny", "defaults": {"steps": 2},
        "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 4}},
        "matrix": {"workloads": ["accumulation"], "models": ["mlp"], "precisions": ["fp16"],
                   "optimizers": ["sgd"]},
        "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}},
        "throughput": {"warmup_steps": 1, "measured_steps": 2, "repetitions": 2}}))
    out = tmp_path / "results.json"
    assert bench_main(["--suite", str(suite), "--out", str(out), "--device", "cpu"]) == 0
    doc = json.loads(out.read_text())
    assert doc["schema"] == SCHEMA_NAME and doc["schema_version"] == SCHEMA_VERSION and doc["complete"]
    assert doc["env"]["implementation"] == "python"
    for key in ("host", "os", "cpu_model", "cpu_cores", "device", "gpu_name", "gpu_count", "compute_capability",
                "driver", "cuda_runtime", "cudnn", "nccl", "libtorch_version", "torch_build", "compiler",
                "git_commit", "git_dirty"):
        assert key in doc["env"], key
    ids = [c["id"] for c in doc["cases"]]
    assert ids == ["accumulation/mlp/fp32/sgd", "accumulation/mlp/fp16/sgd"]
    case = doc["cases"][1]
    assert case["status"] == "pass" and case["conforms"] is True and case["batch_size"] == 16
    tp = case["throughput"]
    assert tp["unit"] == "samples/s" and tp["repetitions"] == 2 and len(tp["samples_per_s"]) == 2
    assert tp["min"] <= tp["median"] <= tp["max"]
    assert len(case["trajectory"]["loss"]) == 2
    # Every reader goes through the one loader: the file is valid by the schema.
    results = load_results(out)
    assert [c.status for c in results.cases] == [Status.PASS, Status.PASS]


def _tf32_suite(tf32_row: bool, cases=None, precisions=("fp32", "tf32")) -> str:
    tolerances = {"fp32": {}, "fp16": {}, "bf16": {}}
    if tf32_row:
        tolerances["tf32"] = {}
    doc = {"name": "x", "models": {"mlp": {"batch": 8}}, "tolerances": tolerances,
           "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": list(precisions),
                      "optimizers": ["sgd"]}}
    if cases:
        doc["cases"] = cases
    return json.dumps(doc)


def test_tf32_expands_like_the_cpp_loader():
    suite = parse_suite(_tf32_suite(True), "x.json", "cuda")
    assert [c.id for c in suite.cases] == ["plain/mlp/fp32/sgd", "plain/mlp/tf32/sgd"]
    tf32 = suite.cases[1]
    assert tf32.baseline_id == "plain/mlp/fp32/sgd" and tf32.scaler_enabled is False
    for name in ("conformance", "throughput"):
        assert "plain/mlp/tf32/adamw" in {c.id for c in load_suite(name, "cuda").cases}
    assert not any(c.precision == "tf32" for c in load_suite("smoke", "cpu").cases)


def test_tf32_needs_its_tolerance_row_and_no_scaler():
    with pytest.raises(SuiteError, match=r"matrix.precisions\[1\]: precision 'tf32' has no row"):
        parse_suite(_tf32_suite(False), "x.json", "cpu")
    explicit = [{"workload": "plain", "model": "mlp", "precision": "tf32", "optimizer": "sgd"}]
    with pytest.raises(SuiteError, match=r"cases\[0\].precision: precision 'tf32' has no row"):
        parse_suite(_tf32_suite(False, explicit, precisions=("fp32",)), "x.json", "cpu")
    explicit[0]["scaler_enabled"] = True
    with pytest.raises(SuiteError, match="tf32 with a GradScaler"):
        parse_suite(_tf32_suite(True, explicit, precisions=("fp32",)), "x.json", "cpu")


def test_bench_skips_tf32_with_the_cpp_reason(tmp_path):
    suite = tmp_path / "tf32.json"
    doc = json.loads(_tf32_suite(True))
    doc["defaults"] = {"steps": 2}
    doc["throughput"] = {"warmup_steps": 0, "measured_steps": 1, "repetitions": 1}
    suite.write_text(json.dumps(doc))
    out = tmp_path / "results.json"
    assert bench_main(["--suite", str(suite), "--device", "cpu", "--out", str(out), "--threads", "1"]) == 0
    results = load_results(out)
    tf32 = results.case("plain/mlp/tf32/sgd")
    assert tf32.status is Status.SKIPPED and tf32.conforms is None
    assert tf32.reason == "tf32 is CUDA tensor-core math; on cpu it would be IEEE fp32, identical to the baseline"
    assert results.case("plain/mlp/fp32/sgd").status is Status.PASS


def test_with_optimizer_impl_renames_cases_and_their_baselines_as_the_cpp_ids():
    from reference.python.suite import with_optimizer_impl
    cases = load_suite("smoke", "cpu").cases
    fused = with_optimizer_impl(cases, "fused")
    ids = {c.id for c in fused}
    assert "plain/mlp/fp16/sgd+fused" in ids and "plain/mlp/fp16/sgd" not in ids
    assert len(ids) == len(fused), "a case kept twice"
    for c in fused:
        assert c.optimizer_impl == "fused"
        assert not c.baseline_id or c.baseline_id in ids, f"{c.id}: baseline {c.baseline_id} is not a case"
    # Smoke already has plain/mlp/fp16/sgd+fused: renaming the loop case onto it keeps one.
    assert len(fused) < len(cases)
    with pytest.raises(SuiteError):
        with_optimizer_impl(cases, "vectorized")
