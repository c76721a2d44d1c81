"""Synthetic fleets for the fleet report's tests: one results.json per
machine, as `ampbench run --deterministic` writes it (reports/tests/
sample_results.py for the cases, plus what harness/results/results_writer.cpp
adds under --deterministic: env.machine_id, env.deterministic and a
per-case fingerprint of 16 hex digits per part).

No C++ runs: a healthy machine of a group is a copy of one document with
its own identity and its own throughput noise, which is what a real fleet's
healthy machines look like to the report.
"""

from __future__ import annotations

import copy
import hashlib

import numpy as np

from reports.tests.sample_results import make_results, write_results

FINGERPRINT_PARTS = ("loss", "final_params", "optimizer_state")
SMALL = {"workloads": ("plain",), "models": ("mlp",), "ddp": False, "negative_controls": False}


def _hex(*parts) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def add_fingerprints(doc, corrupt=()) -> dict:
    """Fingerprints for every case that ran: equal across healthy machines
    of one kind; a case in `corrupt` differs in its parameters and
    optimizer state, as a flipped bit after the last recorded loss does."""
    for case in doc["cases"]:
        if case["status"] == "skipped":
            continue
        bad = case["id"] in corrupt
        parts = {p: _hex(case["id"], p, bad and p != "loss") for p in FINGERPRINT_PARTS}
        case["fingerprint"] = {"algorithm": "fnv1a64", "hash": _hex(tuple(parts.values())), **parts}
    return doc


def deterministic_env(doc, machine, *, on=True) -> dict:
    on_gpu = doc["env"]["device"] == "cuda"
    pinned = {"algorithms": True, "intra_op_threads": 1, "cublas_workspace_config": ":4096:8" if on_gpu else None}
    doc["env"].update(machine_id=machine, deterministic=pinned if on else False)
    return doc


def machine_doc(machine, *, speed=1.0, corrupt=(), gpu="NVIDIA A100-SXM4-40GB", suite="smoke", commit="abc1234",
                deterministic=True, complete=True, noise=0.0, seed=0, base=None):
    """One machine's results. `base`: a make_results() document to copy
    instead of building the small default one for `gpu` (building dominates
    a large fleet's time)."""
    doc = copy.deepcopy(base) if base is not None else make_results(gpu=gpu, **SMALL)
    doc.update(suite=suite, complete=complete)
    doc["env"]["git_commit"] = commit
    deterministic_env(doc, machine, on=deterministic)
    if deterministic:
        add_fingerprints(doc, corrupt)
    rng = np.random.default_rng(seed)
    for case in doc["cases"]:
        if case["throughput"]:
            scale_throughput(case["throughput"], speed * (1 + noise * rng.standard_normal()))
    return doc


def scale_throughput(t, factor) -> None:
    """Every rate of one timing block, consistently (the loader checks)."""
    t["samples_per_s"] = [s * factor for s in t["samples_per_s"]]
    for key in ("median", "min", "max", "iqr", "stddev", "achieved_flops_per_s"):
        t[key] *= factor
    t["step_time_ms"] /= factor


def write_fleet(root, docs: dict) -> str:
    """One folder per machine under root; None: a folder without results."""
    for folder, doc in docs.items():
        (root / folder).mkdir(parents=True)
        if doc is not None:
            write_results(root / folder / "results.json", doc)
    return str(root)
