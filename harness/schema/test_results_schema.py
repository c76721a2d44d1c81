"""The results schema accepts what the writers produce and rejects what the
gate and the reports could not read.  (The smoke run's real output is
validated by the CTest results.smoke_output_matches_schema.)"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import validate_results as V  # noqa: E402

SCHEMA = V.load_schema()


def valid_doc() -> dict:
    case = {
        "id": "plain/mlp/fp16/sgd", "workload": "plain", "variant": "correct", "model": "mlp",
        "precision": "fp16", "optimizer": "sgd", "tag": "", "scaler_enabled": True, "device": "cpu",
        "world_size": 1, "batch_size": 32, "steps": 3, "seed": 1, "expect": "pass", "status": "pass",
        "conforms": True, "reason": None, "baseline_id": "plain/mlp/fp32/sgd",
        "trajectory": {"loss": [2.3, 2.2, None], "scale": [65536.0, 65536.0, 32768.0], "skipped": [False, False, True]},
        "check": {"metrics": {"max_loss_rel_dev": 1e-3, "param_rel_l2": None},
                  "tolerances": {"loss_rel": 4e-3, "param_rel_l2": 0.1, "final_loss_ratio": 4e-3,
                                 "max_skipped_steps": 3},
                  "deviation_per_step": [0.0, 1e-3, None], "first_crossing_step": None, "failures": []},
        "throughput": {"unit": "samples/s", "timing": "steady_clock", "input": "cached", "warmup_steps": 1,
                       "measured_steps": 3, "repetitions": 2, "samples_per_s": [100.0, 110.0], "median": 105.0,
                       "min": 100.0, "max": 110.0, "iqr": 5.0, "stddev": 7.07, "cv": 0.067, "step_time_ms": 304.8,
                       "training_flops_per_sample": 1e5, "achieved_flops_per_s": 1.05e7, "speedup_vs_fp32": 1.1,
                       "peak_memory_bytes": 1 << 20, "peak_memory_kind": "process_max_rss"},
        "ddp": None,
    }
    return {"schema": "ampbench.results", "schema_version": 1, "suite": "smoke", "suite_file": "suites/smoke.json",
            "started_utc": "2026-11-29T10:00:00Z", "finished_utc": None, "complete": False,
            "env": {"host": "h", "os": "Linux", "cpu_model": "x", "cpu_cores": 2, "device": "cpu", "gpu_name": "none",
                    "libtorch_version": "2.11.0", "cuda_runtime": "none", "torch_build": {"cuda": True}},
            "cases": [case]}


def test_a_complete_document_is_valid():
    assert V.violations(valid_doc(), SCHEMA) == []


def test_unknown_keys_are_allowed_for_forward_compatibility():
    doc = valid_doc()
    doc["future_field"] = 1
    doc["cases"][0]["future_field"] = {"x": 1}
    assert V.violations(doc, SCHEMA) == []


def test_a_skipped_tf32_case_and_a_not_ieee_warning_are_valid():
    doc = valid_doc()
    doc["cases"].append(dict(copy.deepcopy(doc["cases"][0]), id="plain/mlp/tf32/sgd", precision="tf32",
                             scaler_enabled=False, status="skipped", conforms=None, check=None, throughput=None,
                             trajectory={"loss": [], "scale": [], "skipped": []},
                             reason="tf32 is CUDA tensor-core math; on cpu it would be IEEE fp32, "
                                    "identical to the baseline"))
    settings = {"precision": {"cuda.matmul": "ieee"}, "legacy": {}, "cublas_reduction": {},
                "env_overrides": {"NVIDIA_TF32_OVERRIDE": "1"}}
    doc["env"]["float32_math"] = {"process_default": settings, "in_cases": settings, "in_cases_ieee": True,
                                  "fp32_is_ieee": False,
                                  "fp32_not_ieee_reasons": ["NVIDIA_TF32_OVERRIDE=1 is set: ..."]}
    assert V.violations(doc, SCHEMA) == []
    doc["env"]["float32_math"]["fp32_is_ieee"] = "no"
    assert V.violations(doc, SCHEMA)


def breakages():
    def drop(path):
        def f(d):
            *parents, last = path
            for p in parents:
                d = d[p]
            del d[last]
        return f

    def put(path, value):
        def f(d):
            *parents, last = path
            for p in parents:
                d = d[p]
            d[last] = value
        return f

    return {
        "missing cases": drop(["cases"]),
        "wrong schema name": put(["schema"], "other"),
        "future schema version": put(["schema_version"], 3),
        "missing env device": drop(["env", "device"]),
        "unknown status": put(["cases", 0, "status"], "ok"),
        "unknown precision": put(["cases", 0, "precision"], "fp8"),
        "unknown workload": put(["cases", 0, "workload"], "plainn"),
        "missing trajectory": drop(["cases", 0, "trajectory"]),
        "string loss": put(["cases", 0, "trajectory", "loss"], ["2.3"]),
        "NaN written as a string": put(["cases", 0, "check", "deviation_per_step"], ["nan"]),
        "no throughput samples": put(["cases", 0, "throughput", "samples_per_s"], []),
        "zero throughput": put(["cases", 0, "throughput", "median"], 0),
        "unknown timing method": put(["cases", 0, "throughput", "timing"], "wall"),
        "missing tolerance": drop(["cases", 0, "check", "tolerances", "loss_rel"]),
        "skipped without a reason": lambda d: d["cases"][0].update(status="skipped", conforms=None, reason=None),
        "error that conforms": lambda d: d["cases"][0].update(status="error", conforms=True, reason="boom"),
        "malformed timestamp": put(["started_utc"], "yesterday"),
    }


@pytest.mark.parametrize("name", sorted(breakages()))
def test_a_broken_document_is_rejected_with_its_path(name):
    doc = copy.deepcopy(valid_doc())
    breakages()[name](doc)
    found = V.violations(doc, SCHEMA)
    assert found, f"schema accepted: {name}"


def test_violations_name_the_case():
    doc = valid_doc()
    doc["cases"][0]["status"] = "ok"
    (message,) = V.violations(doc, SCHEMA)
    assert message.startswith(".cases[0].status (case plain/mlp/fp16/sgd)")


def test_cli_exit_codes(tmp_path):
    good, bad, junk = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "junk.json"
    good.write_text(json.dumps(valid_doc()))
    broken = valid_doc()
    broken["schema_version"] = 7
    bad.write_text(json.dumps(broken))
    junk.write_text("{not json")
    assert V.main([str(good)]) == 0
    assert V.main([str(good), str(bad)]) == 1
    assert V.main([str(junk)]) == 2


def test_derived_throughput_figures_must_agree_with_the_samples():
    doc = valid_doc()
    base = copy.deepcopy(doc["cases"][0])
    base.update(id="plain/mlp/fp32/sgd", precision="fp32", baseline_id="plain/mlp/fp32/sgd")
    base["throughput"].update(samples_per_s=[200.0, 220.0, 210.0], median=210.0, speedup_vs_fp32=None)
    doc["cases"].insert(0, base)
    doc["cases"][1]["throughput"]["speedup_vs_fp32"] = 105.0 / 210.0
    assert V.inconsistencies(doc) == []
    doc["cases"][1]["throughput"]["speedup_vs_fp32"] = 0.6
    assert [v.split(":")[1].strip() for v in V.inconsistencies(doc)] == ["speedup_vs_fp32 0.6 is not median / the fp32 baseline's median (0.5)"]
    doc["cases"][1]["throughput"]["speedup_vs_fp32"] = None  # looked up under the wrong id
    assert any("speedup_vs_fp32 is null, though the case and its fp32 baseline plain/mlp/fp32/sgd were both measured"
               in v for v in V.inconsistencies(doc))
    doc["cases"][0]["throughput"]["median"] = 205.0
    assert any("median 205.0 is not the median of samples_per_s (210.0)" in v for v in V.inconsistencies(doc))
