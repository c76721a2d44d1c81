"""Loaded result files and the questions the report asks of them.

A Run is one results.json, validated and typed by
reference/python/results_file.py, plus its place on the command line.  The
helpers here (grouping, labels, fp32 speedup) are shared by figures and tables
so both always show the same numbers for the same case.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reference.python.results_file import Case, Expect, Results, Status, load_results

# fp16 is Apex O1 (autocast): O2 and O3 sit beside it; the FP8 recipes last.
PRECISION_ORDER = ("fp32", "fp16", "o2", "o3", "bf16", "tf32", "fp8_tensorwise", "fp8_rowwise", "fp8_delayed", "mxfp8", "nvfp4", "fp8_blockwise")

# Case attributes that can distinguish two cases of the same workload, model
# and precision.  Labels show only the ones that actually vary, so a plain
# suite reads "fp16" and a mixed one "fp16 adamw bs=128".
DISTINGUISHING_FIELDS = ("optimizer", "optimizer_impl", "precision_option", "variant", "tag", "batch_size",
                         "world_size", "device", "input")


@dataclass
class Run:
    index: int            # 1-based position on the command line
    path: Path
    results: Results
    label: str = ""       # "run1: NVIDIA H200 · libtorch 2.11.0", set by load_runs

    @property
    def tag(self) -> str:
        """Short stable name, used as the figure file prefix."""
        return f"run{self.index}"

    @property
    def env(self) -> dict:
        return self.results.env

    @property
    def cases(self) -> tuple[Case, ...]:
        return self.results.cases

    def case(self, case_id) -> Case | None:
        return self.results.case(case_id)


def load_runs(paths) -> list:
    """Validate every file before returning, so bad input stops the report
    before anything is drawn or written."""
    runs = [Run(i + 1, Path(p), load_results(p)) for i, p in enumerate(paths)]
    _assign_labels(runs)
    return runs


def machine(env: dict) -> str:
    """The hardware a run's speed belongs to: the GPU's name on CUDA; on CPU
    the model name with its generation and the kernels' ISA ceiling where
    recorded, since a hypervisor may name Zen 4 and Zen 5 alike "AMD EPYC"
    and a run held to AVX2 has another CPU's speed. Files from before those
    fields were recorded give the model name alone."""
    gpu = env.get("gpu_name")
    if env.get("device") == "cuda" and gpu not in (None, "", "none"):
        return str(gpu)
    cpu = str(env.get("cpu_model") or "unknown CPU")
    parts = [f"{label}{env[key]}" for key, label in (("cpu_id", ""), ("cpu_capability", "kernels "),
                                                     ("onednn_max_cpu_isa", "oneDNN "))
             if env.get(key) not in (None, "", "none")]
    return f"{cpu} ({', '.join(parts)})" if parts else cpu


def env_fingerprint(env: dict) -> str:
    """What makes two runs different hardware/software: the machine + LibTorch."""
    return f"{machine(env)} · libtorch {env.get('libtorch_version', '?')}"


def implementation(env: dict) -> str:
    """Who ran the loops: "C++" (ampbench), "torch.compile" (ampbench run
    --implementation compiled), "Python eager" or "Python torch.compile"
    (python -m reference.python.bench [--compile])."""
    if env.get("implementation") == "compiled":
        return "torch.compile"
    if env.get("implementation") != "python":
        return "C++"
    return "Python torch.compile" if env.get("python_torch_compile") else "Python eager"


def _assign_labels(runs) -> None:
    prints = [f"{implementation(run.env)} · {env_fingerprint(run.env)}" for run in runs]
    repeated = Counter(prints)
    names = Counter(run.path.name for run in runs)
    for run, fingerprint in zip(runs, prints):
        # Two runs on one machine share a fingerprint: the file name tells them
        # apart, or its folder too when every run wrote results.json.
        name = run.path.name if names[run.path.name] == 1 else f"{run.path.parent.name}/{run.path.name}"
        suffix = f" ({name})" if repeated[fingerprint] > 1 else ""
        run.label = f"{run.tag}: {fingerprint}{suffix}"


def ordered_unique(values) -> list:
    """Distinct values in first-seen order (suite order is meaningful)."""
    return list(dict.fromkeys(values))


def precision_key(precision: str):
    known = precision in PRECISION_ORDER
    return (0, PRECISION_ORDER.index(precision)) if known else (1, precision)


def group_by(cases, key: str) -> dict:
    groups: dict = {}
    for case in cases:
        groups.setdefault(getattr(case, key), []).append(case)
    return groups


def attribute(case: Case, name: str):
    if name == "input":
        return case.throughput.input if case.throughput else None
    if name in ("optimizer_impl", "precision_option"):
        return _id_option(case, name)
    return getattr(case, name)


def _id_option(case: Case, name: str):
    """Options the case id carries and no field does: "+fused"/"+foreach" on
    the optimizer, "+scaler" on the precision ("plain/mlp/fp32+scaler/sgd@exact").
    Without them two such cases would share one bar and one legend entry."""
    parts = case.id.split("@")[0].split("/")
    if len(parts) < 4:
        return None
    segment = parts[3] if name == "optimizer_impl" else parts[2]
    # "" (not None): having no option is a value that sets a case apart too.
    return "+" + segment.split("+", 1)[1] if "+" in segment else ""


def varying_fields(cases) -> list:
    """Distinguishing fields with more than one value among cases.  None is
    not a value: a skipped case has no input mode but is no separate config."""
    return [name for name in DISTINGUISHING_FIELDS
            if len({attribute(c, name) for c in cases} - {None}) > 1]


def config_label(case: Case, fields) -> str:
    """The case's distinguishing attributes apart from precision and model."""
    parts = []
    for name in fields:
        value = attribute(case, name)
        if value is None or value == "" or (name == "variant" and value == "correct"):
            continue  # "correct" is every non-control case: naming it only adds words
        if name == "batch_size":
            parts.append(f"bs={value}")
        elif name == "world_size":
            parts.append(f"ws={value}")
        elif name == "tag":
            parts.append(f"@{value}")
        elif name == "optimizer_impl" and parts and attribute(case, "optimizer") is not None:
            parts[-1] += value  # "adamw+fused" reads as one word
        else:
            parts.append(str(value))
    return " ".join(parts)


def is_negative_control(case: Case) -> bool:
    return case.expect is Expect.FAIL


def fp32_baseline(run: Run, case: Case):
    """The fp32 case this one is compared with (itself for fp32 baselines)."""
    if case.baseline_id is None:
        return case if case.precision == "fp32" else None
    return run.case(case.baseline_id)


def speedup(run: Run, case: Case):
    """Median throughput over the fp32 baseline's, or None when not comparable.

    The join is baseline_id, the contract's key.  Cached-batch and host-input
    loops measure different things, so they are never divided by each other.
    """
    if case.throughput and case.throughput.speedup_vs_fp32 is not None:
        return case.throughput.speedup_vs_fp32  # as `ampbench run` wrote and printed it
    base = fp32_baseline(run, case)
    mine, theirs = case.throughput, base and base.throughput
    if not mine or not theirs or mine.input != theirs.input:
        return None
    return mine.median / theirs.median


def as_array(series) -> np.ndarray:
    """JSON series (null = non-finite) as float array with NaN gaps."""
    return np.array([np.nan if v is None else v for v in (series or [])], dtype=float)


def trajectory(case: Case, key: str) -> tuple:
    return getattr(case.trajectory, key)


def verdict_text(case: Case) -> str:
    """Status in words a reader of a negative control needs."""
    status = case.status
    if is_negative_control(case) and status is not Status.SKIPPED:
        return "fail (expected: caught)" if status is Status.FAIL else f"{status} (negative control missed)"
    if case.expect is Expect.REPORT and status in (Status.PASS, Status.FAIL):
        return f"{status} (reported, not required)"
    return str(status)

