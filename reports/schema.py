"""Load and validate results.json files (schema "ampbench.results", version 1).

The contract is harness/results/SCHEMA.md.  This reader is strict where the
report depends on a value (a wrong type would crash a figure later, far from
the cause) and lenient elsewhere: unknown keys are ignored, as SCHEMA.md asks
for forward compatibility within a version.  Every problem is raised as one
ResultsError naming the file and, where it applies, the offending key, so the
CLI can print a single clear line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from reference.python.bounded_json import JsonInputError, read_bounded_json

SCHEMA_NAME = "ampbench.results"
SCHEMA_VERSION = 2
# Version 2 added check.envelope/bounds/max_ratio; version 1 files still read.
SUPPORTED_VERSIONS = (1, 2)

STATUSES = ("pass", "fail", "skipped", "error")
EXPECTS = ("pass", "fail", "report")  # "report": the verdict is shown, not required (O3)


class ResultsError(Exception):
    """A results file that cannot be used: missing, not JSON, or off-schema."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        # One line on stderr: a multi-line reason would break log greps.
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{self.path}: {self.reason}")


def _is_number(value) -> bool:
    # bool is an int subclass in Python; JSON true is never a number here.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_series(value) -> bool:
    # null inside a series stands for a non-finite value: JSON has no NaN and
    # common C++ writers (nlohmann::json) emit NaN/Inf as null.
    return isinstance(value, list) and all(v is None or _is_number(v) for v in value)


_CHECKS = {
    "any": lambda v: True,
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "series": _is_series,
    "numbers": lambda v: isinstance(v, list) and all(_is_number(x) for x in v),
    "booleans": lambda v: isinstance(v, list) and all(isinstance(x, bool) for x in v),
}

# Field tables: key -> type name; a trailing "?" means null is allowed.
# "any" marks keys the report only prints: required present, type free.
TOP_FIELDS = {
    "schema": "string", "schema_version": "integer", "suite": "string",
    "suite_file": "string?", "started_utc": "string?", "finished_utc": "string?",
    "complete": "boolean", "env": "object", "cases": "array",
}
ENV_FIELDS = {
    "host": "any", "os": "any", "cpu_model": "string", "cpu_cores": "any",
    "device": "string", "gpu_name": "string", "compute_capability": "any",
    "driver": "any", "cuda_runtime": "any", "cudnn": "any", "nccl": "any",
    "libtorch_version": "string", "torch_build": "any", "compiler": "any",
    "git_commit": "any", "git_dirty": "any",
}
CASE_FIELDS = {
    "id": "string", "workload": "string", "variant": "string", "model": "string",
    "precision": "string", "optimizer": "string", "device": "string",
    "world_size": "integer", "batch_size": "integer", "steps": "integer",
    "seed": "any", "expect": "string", "status": "string", "conforms": "boolean?",
    "reason": "string?", "baseline_id": "string?",
    # SCHEMA.md does not say trajectory may be null; a skipped case has
    # nothing to put there, so null is accepted and read as "no steps".
    "trajectory": "object?", "check": "object?", "throughput": "object?",
    "ddp": "object?",
}
TRAJECTORY_FIELDS = {"loss": "series", "scale": "series", "skipped": "booleans"}
CHECK_FIELDS = {
    "metrics": "object", "tolerances": "object", "deviation_per_step": "series",
    "first_crossing_step": "integer?", "failures": "array",
}
# Metric and tolerance names vary per check; only loss_rel is drawn.  The
# harness writes non-finite numbers as null, so null is accepted here too.
TOLERANCE_FIELDS = {"loss_rel": "number?"}
THROUGHPUT_FIELDS = {
    "unit": "string", "input": "string", "warmup_steps": "integer",
    "measured_steps": "integer", "repetitions": "integer",
    "samples_per_s": "numbers", "median": "number", "min": "number",
    "max": "number", "iqr": "number", "peak_memory_bytes": "integer?",
}
DDP_FIELDS = {
    "per_rank_samples_per_s": "numbers", "aggregate_samples_per_s": "number",
    "scaling_efficiency": "number", "replicas": "integer",
}

# Optional fields: newer writers add them, older files lack them.  Absent is
# fine; present with a wrong type is not, since tables and figures compute
# with them.
OPTIONAL_ENV_FIELDS = {"ceilings": "object?"}
# env.ceilings, written by `ampbench qualify` (kernels/ceilings.h).
CEILING_FIELDS = {
    "device": "any", "memory_bandwidth_gbs": "number?", "matmul_tflops": "object?",
    "repetitions": "integer?", "gemm_size": "integer?", "copy_bytes": "integer?",
    "notes": "object?",
}
OPTIONAL_THROUGHPUT_FIELDS = {
    "training_flops_per_sample": "number?", "achieved_flops_per_s": "number?",
    "speedup_vs_fp32": "number?", "model_flop_utilization": "number?",
    "ceiling_speedup_vs_fp32": "number?",
}
OPTIONAL_CASE_FIELDS = {"grad_health": "object?"}
# One entry per optimizer step; null inside stands for a non-finite value.
GRAD_HEALTH_FIELDS = {
    "scale": "series", "underflow_fp16_fraction_at_scale_1": "series",
    "underflow_fp16_fraction_at_scale": "series", "nonfinite": "series",
}


def load_results(path) -> dict:
    """Read and validate one results file; return its parsed JSON document."""
    doc = _read_json(path)
    validate_results(doc, path)
    return doc


def _read_json(path):
    try:
        return read_bounded_json(path)
    except JsonInputError as exc:
        raise ResultsError(path, exc.reason) from None


def validate_results(doc, path="<results>") -> None:
    """Raise ResultsError unless doc follows schema version 1 or 2."""
    if not isinstance(doc, dict):
        raise ResultsError(path, "top level is not a JSON object")
    # Identity first: a foreign or newer file should be named as such, not
    # reported as "missing key" noise.
    if doc.get("schema") != SCHEMA_NAME:
        raise ResultsError(path, f"schema is {doc.get('schema')!r}, expected {SCHEMA_NAME!r}")
    version = doc.get("schema_version")
    if version not in SUPPORTED_VERSIONS or not _CHECKS["integer"](version):
        raise ResultsError(path, f"schema_version is {version!r}, this reader supports 1 and 2")
    _check_fields(doc, TOP_FIELDS, path, "")
    _check_fields(doc["env"], ENV_FIELDS, path, "env.")
    _check_ceilings(doc["env"], path)
    seen = set()
    for index, case in enumerate(doc["cases"]):
        _check_case(case, index, path)
        if case["id"] in seen:
            raise ResultsError(path, f"cases[{index}]: duplicate case id {case['id']!r}")
        seen.add(case["id"])


def _check_case(case, index, path) -> None:
    where = f"cases[{index}]"
    if not isinstance(case, dict):
        raise ResultsError(path, f"{where} is not a JSON object")
    if isinstance(case.get("id"), str):
        where = f"cases[{index}] ({case['id']})"
    prefix = where + "."
    _check_fields(case, CASE_FIELDS, path, prefix)
    _check_choice(case, "status", STATUSES, path, prefix)
    _check_choice(case, "expect", EXPECTS, path, prefix)
    _check_block(case, "trajectory", TRAJECTORY_FIELDS, path, prefix)
    _check_block(case, "check", CHECK_FIELDS, path, prefix)
    if case["check"] is not None:
        _check_fields(case["check"]["tolerances"], TOLERANCE_FIELDS, path, prefix + "check.tolerances.")
    _check_block(case, "throughput", THROUGHPUT_FIELDS, path, prefix)
    if case["throughput"] is not None:
        _check_fields(case["throughput"], OPTIONAL_THROUGHPUT_FIELDS, path, prefix + "throughput.",
                      required=False)
        _check_throughput_order(case["throughput"], path, prefix + "throughput.")
    _check_block(case, "ddp", DDP_FIELDS, path, prefix)
    _check_fields(case, OPTIONAL_CASE_FIELDS, path, prefix, required=False)
    if case.get("grad_health") is not None:
        _check_fields(case["grad_health"], GRAD_HEALTH_FIELDS, path, prefix + "grad_health.",
                      required=False)


def _check_throughput_order(tp, path, prefix) -> None:
    # The figures draw min..max error bars around the median: a negative or
    # out-of-order triple is a corrupt file, not something to plot.
    low, mid, high = tp["min"], tp["median"], tp["max"]
    if not all(math.isfinite(v) and v >= 0 for v in (low, mid, high)):
        raise ResultsError(path, f"{prefix}min/median/max must be finite and >= 0, got {low}/{mid}/{high}")
    if not low <= mid <= high:
        raise ResultsError(path, f"{prefix}min <= median <= max does not hold: {low}/{mid}/{high}")


def _check_ceilings(env, path) -> None:
    _check_fields(env, OPTIONAL_ENV_FIELDS, path, "env.", required=False)
    ceilings = env.get("ceilings")
    if ceilings is None:
        return
    _check_fields(ceilings, CEILING_FIELDS, path, "env.ceilings.", required=False)
    # Any dtype name may appear; each rate is a number, or null when the
    # device cannot multiply in that dtype (the reason is in notes).
    rates = ceilings.get("matmul_tflops") or {}
    _check_fields(rates, dict.fromkeys(rates, "number?"), path, "env.ceilings.matmul_tflops.")


def _check_block(case, key, fields, path, prefix) -> None:
    if case[key] is not None:
        _check_fields(case[key], fields, path, f"{prefix}{key}.")


def _check_choice(obj, key, choices, path, prefix) -> None:
    if obj[key] not in choices:
        raise ResultsError(path, f"{prefix}{key} is {obj[key]!r}, expected one of {', '.join(choices)}")


def _check_fields(obj, fields, path, prefix, required=True) -> None:
    for key, kind in fields.items():
        if key not in obj:
            if not required:
                continue
            raise ResultsError(path, f"missing required key '{prefix}{key}'")
        value = obj[key]
        nullable = kind.endswith("?")
        kind = kind.rstrip("?")
        if value is None and nullable:
            continue
        if value is None or not _CHECKS[kind](value):
            raise ResultsError(path, f"'{prefix}{key}' should be {_describe(kind, nullable)}, got {_short(value)}")


def _describe(kind, nullable) -> str:
    text = {"series": "an array of numbers (null for non-finite)",
            "numbers": "an array of numbers",
            "booleans": "an array of booleans"}.get(kind, f"a JSON {kind}")
    return text + (" or null" if nullable else "")


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
