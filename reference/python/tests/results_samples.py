"""Small valid results documents for the tests of every results.json reader,
and the ways to break one that the schema must refuse.

valid_doc() is one fp16 case with every block the schema describes;
case_doc() builds a case from its id with only the fields a test cares
about, the rest filled in validly, so a reader's test states its point and
still goes through the real loader.
"""
from __future__ import annotations

import copy
import json

from reference.python.results_file import SCHEMA_NAME, SCHEMA_VERSION


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
    return results_doc([case])


def results_doc(cases: list) -> dict:
    return {"schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION, "suite": "smoke",
            "suite_file": "suites/smoke.json", "started_utc": "2026-11-29T10:00:00Z", "finished_utc": None,
            "complete": False,
            "env": {"host": "h", "os": "Linux", "cpu_model": "x", "cpu_cores": 2, "device": "cpu",
                    "gpu_name": "none", "libtorch_version": "2.11.0", "cuda_runtime": "none",
                    "torch_build": {"cuda": True}},
            "cases": cases}


def write_doc(path, cases: list) -> str:
    path.write_text(json.dumps(results_doc(cases)))
    return str(path)


def _identity(case_id: str) -> dict:
    """workload/model/precision/optimizer read back from a suite-style id
    ("clip_norm+variant/mlp/fp16+scaler/adamw+fused@tag"); plain/mlp/fp32/sgd
    for any other id."""
    parts = case_id.split("@")[0].split("/")
    if len(parts) != 4:
        return {}
    (workload, _, variant), model, precision, optimizer = parts[0].partition("+"), *parts[1:]
    return {"workload": workload, "variant": variant or "correct", "model": model,
            "precision": precision.split("+")[0], "optimizer": optimizer.split("+")[0]}


def case_doc(case_id: str, status: str = "pass", throughput: dict | None = None, **fields) -> dict:
    """A valid case. throughput: the fields a test sets (None: not timed);
    the median defaults to 1 and min/max/samples follow it."""
    case = copy.deepcopy(valid_doc()["cases"][0])
    case.update(id=case_id, baseline_id=None, check=None, throughput=None, **_identity(case_id))
    case.update(status=status, conforms=None if status == "skipped" else status == "pass",
                reason="not run in this test" if status in ("skipped", "error") else None)
    if throughput is not None:
        tp = copy.deepcopy(valid_doc()["cases"][0]["throughput"])
        median = throughput.get("median", 1.0)
        tp.update(samples_per_s=[median], median=median, min=median, max=median, repetitions=1,
                  speedup_vs_fp32=None)
        tp.update(throughput)
        case["throughput"] = tp
    case.update(fields)
    return case


def _drop(path):
    def f(d):
        *parents, last = path
        for p in parents:
            d = d[p]
        del d[last]
    return f


def _put(path, value):
    def f(d):
        *parents, last = path
        for p in parents:
            d = d[p]
        d[last] = value
    return f


# name -> (how to break valid_doc(), the field a refusal must name)
BREAKAGES = {
    "missing cases": (_drop(["cases"]), "cases"),
    "wrong schema name": (_put(["schema"], "other"), "schema"),
    "future schema version": (_put(["schema_version"], 3), "schema_version"),
    "missing env device": (_drop(["env", "device"]), "env.device"),
    "unknown status": (_put(["cases", 0, "status"], "ok"), "status"),
    "unknown precision": (_put(["cases", 0, "precision"], "fp8"), "precision"),
    "unknown workload": (_put(["cases", 0, "workload"], "plainn"), "workload"),
    "missing trajectory": (_drop(["cases", 0, "trajectory"]), "trajectory"),
    "string loss": (_put(["cases", 0, "trajectory", "loss"], ["2.3"]), "trajectory.loss[0]"),
    "NaN written as a string": (_put(["cases", 0, "check", "deviation_per_step"], ["nan"]),
                                "check.deviation_per_step[0]"),
    "no throughput samples": (_put(["cases", 0, "throughput", "samples_per_s"], []), "throughput.samples_per_s"),
    "zero throughput": (_put(["cases", 0, "throughput", "median"], 0), "throughput.median"),
    "unknown timing method": (_put(["cases", 0, "throughput", "timing"], "wall"), "throughput.timing"),
    "missing tolerance": (_drop(["cases", 0, "check", "tolerances", "loss_rel"]), "check.tolerances.loss_rel"),
    "skipped without a reason": (lambda d: d["cases"][0].update(status="skipped", conforms=None, reason=None),
                                 "reason"),
    "error that conforms": (lambda d: d["cases"][0].update(status="error", conforms=True, reason="boom"),
                            "conforms"),
    "malformed timestamp": (_put(["started_utc"], "yesterday"), "started_utc"),
    "null achieved FLOP/s": (_put(["cases", 0, "throughput", "achieved_flops_per_s"], None),
                             "throughput.achieved_flops_per_s"),
    "ceiling rate as a string": (_put(["env", "ceilings"], {"matmul_tflops": {"fp16": "0.05"}}),
                                 "env.ceilings.matmul_tflops.fp16"),
}


def broken_doc(name: str) -> dict:
    doc = valid_doc()
    BREAKAGES[name][0](doc)
    return doc
