"""Realistic results.json documents for the tests, valid by
harness/schema/results.schema.json (reports/tests/test_sample_results.py).

Shaped like harness/results/results_writer.cpp output: case ids as the suite
builds them ("workload+variant/model/precision/optimizer@tag"), the writer's
extra keys (tag, scaler_enabled, wall_seconds, ...) that readers must ignore
or treat as optional.  Numbers are derived the way the harness derives them
(deviation from the loss arrays, median/min/max/IQR from the repetitions,
speedup over the fp32 baseline, GradScaler-style scale trajectory), so a
test can recompute any table cell from the JSON.
"""

from __future__ import annotations

import json

import numpy as np

from reference.python.results_file import SCHEMA_NAME, SCHEMA_VERSION

TOLERANCE = {"fp16": 0.01, "o2": 0.01, "o3": 0.01, "bf16": 0.03}
NOISE = {"fp32": 0.0, "fp16": 5e-4, "o2": 6e-4, "o3": 8e-4, "bf16": 4e-3}
SPEEDUP = {"fp32": 1.0, "fp16": 1.8, "o2": 1.9, "o3": 2.0, "bf16": 1.6}
BASE_RATE = {"mlp": 50000.0, "cnn": 4000.0, "transformer": 1500.0}
OTHER_MODEL_RATE = 2500.0   # users' own models: any name works
PRECISIONS = ("fp32", "fp16", "bf16")
SKIPPED_STEP = 3       # the fp16 step whose gradients overflow
BATCH = 64


def make_results(*, gpu="NVIDIA A100-SXM4-40GB", libtorch="2.11.0", speed=1.0,
                 workloads=("plain", "clip_norm", "accumulation"), models=("mlp", "cnn"),
                 optimizers=("sgd",), steps=12, ddp=True, negative_controls=True,
                 skipped=("accumulation/cnn/bf16/sgd",), precisions=PRECISIONS) -> dict:
    rng = np.random.default_rng(7)
    cases = []
    for workload in workloads:
        for model in models:
            for optimizer in optimizers:
                cases += _precision_triplet(rng, workload, model, optimizer, steps, speed, skipped,
                                            precisions)
    if "plain" in workloads:
        cases += _tagged_pair(rng, steps, speed)
    if negative_controls:
        cases += _negative_controls(rng, steps)
    if ddp:
        cases += _ddp_cases(rng, steps, speed)
    cases += [_skipped_case(f"dataparallel/mlp/{p}/sgd", "dataparallel", "mlp", p, "sgd", steps,
                            "DataParallel needs at least 2 CUDA devices, found 1")
              for p in ("fp32", "fp16", "bf16")]
    _derive_speedups(cases)
    return {
        "schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION, "suite": "smoke",
        "suite_file": "suites/smoke.json", "started_utc": "2026-11-29T10:00:00Z",
        "finished_utc": "2026-11-29T10:02:00Z", "complete": True,
        "env": make_env(gpu, libtorch), "cases": cases,
    }


def _derive_speedups(cases) -> None:
    """speedup_vs_fp32 as the harness writes it: null for baselines and for
    cases whose baseline was not timed."""
    by_id = {c["id"]: c for c in cases}
    for case in cases:
        base = by_id.get(case["baseline_id"]) if case["baseline_id"] else None
        if case["throughput"] and base and base["throughput"]:
            case["throughput"]["speedup_vs_fp32"] = case["throughput"]["median"] / base["throughput"]["median"]


def make_env(gpu, libtorch) -> dict:
    on_gpu = gpu is not None
    return {
        "host": "node-17", "os": "Linux 6.1.0", "cpu_model": "AMD EPYC 7742 64-Core Processor",
        "cpu_cores": 16, "device": "cuda" if on_gpu else "cpu", "gpu_name": gpu or "none",
        "compute_capability": "8.0" if on_gpu else "none", "driver": "550.54" if on_gpu else "none",
        "cuda_runtime": "12.4" if on_gpu else "none", "cudnn": "9.1.0" if on_gpu else "none",
        "nccl": "2.21.5" if on_gpu else "none", "libtorch_version": libtorch,
        "torch_build": {"cuda": on_gpu, "distributed": True, "gloo": True, "nccl": on_gpu},
        "compiler": "GCC 12.2.0", "git_commit": "abc1234", "git_dirty": False,
    }


def write_results(path, doc) -> str:
    path.write_text(json.dumps(doc, indent=1))
    return str(path)


# -- case builders ------------------------------------------------------------

def _precision_triplet(rng, workload, model, optimizer, steps, speed, skipped, precisions) -> list:
    base_id = f"{workload}/{model}/fp32/{optimizer}"
    fp32_loss = _fp32_loss(rng, steps)
    cases = []
    for precision in precisions:
        case_id = f"{workload}/{model}/{precision}/{optimizer}"
        if case_id in skipped:
            cases.append(_skipped_case(case_id, workload, model, precision, optimizer, steps,
                                       "bf16 disabled for this model in the suite profile"))
            continue
        loss = fp32_loss * (1 + NOISE[precision] * rng.standard_normal(steps))
        case = _case(case_id, workload, model, precision, optimizer, steps, loss)
        case["throughput"] = _throughput(rng, base_rate(model) * SPEEDUP[precision] * speed, model)
        if precision != "fp32":
            case["baseline_id"] = base_id
            case["check"] = _check(loss, fp32_loss, TOLERANCE[precision])
        cases.append(case)
    return cases


def base_rate(model) -> float:
    return BASE_RATE.get(model, OTHER_MODEL_RATE)


def _tagged_pair(rng, steps, speed) -> list:
    """An explicit suite case with a tag: its own fp32 baseline, same tag."""
    fp32_loss = _fp32_loss(rng, steps)
    base = _case("plain/mlp/fp32/sgd@inject", "plain", "mlp", "fp32", "sgd", steps, fp32_loss,
                 tag="inject")
    loss = fp32_loss * (1 + NOISE["fp16"] * rng.standard_normal(steps))
    case = _case("plain/mlp/fp16/sgd@inject", "plain", "mlp", "fp16", "sgd", steps, loss, tag="inject")
    case["baseline_id"] = base["id"]
    case["check"] = _check(loss, fp32_loss, TOLERANCE["fp16"])
    for c in (base, case):
        c["throughput"] = _throughput(rng, BASE_RATE["mlp"] * SPEEDUP[c["precision"]] * speed, "mlp")
    return [base, case]


def _negative_controls(rng, steps) -> list:
    """One control the checker catches, one it misses (so the kill count is
    "1 of 2"); the caught one also carries a non-finite loss (null)."""
    fp32_loss = _fp32_loss(rng, steps)
    caught_loss = fp32_loss * (1 + 0.002 * 1.8 ** np.arange(steps))
    caught = _case("clip_norm+clip_before_unscale/mlp/fp16/sgd", "clip_norm", "mlp", "fp16", "sgd",
                   steps, caught_loss, variant="clip_before_unscale", expect="fail", status="fail")
    caught["check"] = _check(caught_loss, fp32_loss, TOLERANCE["fp16"])
    caught["trajectory"]["loss"][-1] = None
    caught["check"]["deviation_per_step"][-1] = None
    caught["reason"] = "max_loss_rel_dev above tolerance"
    missed_loss = fp32_loss * (1 + 1e-4 * rng.standard_normal(steps))
    missed = _case("accumulation+step_every_microbatch/mlp/fp16/sgd", "accumulation", "mlp", "fp16",
                   "sgd", steps, missed_loss, variant="step_every_microbatch", expect="fail",
                   status="pass")
    missed["check"] = _check(missed_loss, fp32_loss, TOLERANCE["fp16"])
    return [caught, missed]


def _ddp_cases(rng, steps, speed, workload="ddp", tag="", efficiency=0.9) -> list:
    fp32_loss = _fp32_loss(rng, steps)
    cases = []
    suffix = f"@{tag}" if tag else ""
    for precision in ("fp32", "fp16", "bf16"):
        loss = fp32_loss * (1 + NOISE[precision] * rng.standard_normal(steps))
        case = _case(f"{workload}/mlp/{precision}/sgd{suffix}", workload, "mlp", precision, "sgd", steps,
                     loss, world_size=2, tag=tag)
        rate = BASE_RATE["mlp"] * SPEEDUP[precision] * speed
        case["throughput"] = _throughput(rng, 2 * efficiency * rate, "mlp")
        case["ddp"] = {"per_rank_samples_per_s": [(efficiency + 0.01) * rate, (efficiency - 0.01) * rate],
                       "aggregate_samples_per_s": 2 * efficiency * rate, "scaling_efficiency": efficiency,
                       "replicas": 2, "backend": "nccl"}
        if precision != "fp32":
            case["baseline_id"] = f"{workload}/mlp/fp32/sgd{suffix}"
            case["check"] = _check(loss, fp32_loss, TOLERANCE[precision])
        cases.append(case)
    return cases


def _case(case_id, workload, model, precision, optimizer, steps, loss, *, variant="correct",
          expect="pass", status="pass", world_size=1, tag="") -> dict:
    scaled = precision in ("fp16", "o2")
    scale, skipped = _scale_trajectory(steps) if scaled else ([1.0] * steps, [False] * steps)
    return {
        "id": case_id, "workload": workload, "variant": variant, "model": model,
        "precision": precision, "optimizer": optimizer, "tag": tag,
        "scaler_enabled": scaled, "device": "cuda",
        "world_size": world_size, "batch_size": BATCH, "steps": steps, "seed": 1,
        "expect": expect, "status": status, "conforms": status == expect, "reason": None,
        "baseline_id": None,
        "trajectory": {"loss": [float(v) for v in loss], "scale": scale, "skipped": skipped},
        "fp32_noise": None, "check": None, "throughput": None, "ddp": None, "wall_seconds": 1.5,
    }


def _skipped_case(case_id, workload, model, precision, optimizer, steps, reason) -> dict:
    case = _case(case_id, workload, model, precision, optimizer, steps, [])
    case.update(status="skipped", conforms=None, reason=reason,
                trajectory={"loss": [], "scale": [], "skipped": []},
                baseline_id=None if precision == "fp32" else case_id.replace(precision, "fp32"))
    return case


def _fp32_loss(rng, steps) -> np.ndarray:
    t = np.arange(steps)
    return 2.0 * np.exp(-0.15 * t) + 0.3 + 0.01 * rng.standard_normal(steps)


def _scale_trajectory(steps, init=65536.0, growth_interval=4):
    """Scale used at each step, GradScaler rules, one overflow at SKIPPED_STEP."""
    scale, tracker, scales, skipped = init, 0, [], []
    for step in range(steps):
        scales.append(scale)
        overflow = step == SKIPPED_STEP
        skipped.append(overflow)
        if overflow:
            scale, tracker = scale * 0.5, 0
        else:
            tracker += 1
            if tracker == growth_interval:
                scale, tracker = scale * 2.0, 0
    return scales, skipped


def _check(loss, fp32_loss, tol) -> dict:
    dev = np.abs(loss - fp32_loss) / np.abs(fp32_loss)
    crossing = [i for i, d in enumerate(dev) if d > tol]
    return {
        "metrics": {"max_loss_rel_dev": float(dev.max()), "param_rel_l2": float(dev.mean()),
                    "final_loss_ratio": float(loss[-1] / fp32_loss[-1]), "nonfinite_values": 0,
                    "skipped_steps": 1, "baseline_skipped_steps": 0},
        "tolerances": {"loss_rel": tol, "param_rel_l2": tol, "optimizer_state_rel_l2": tol,
                       "final_loss_ratio": 0.05, "max_skipped_steps": 3,
                       "unit_roundoff": 2.0 ** -11, "fp32_noise": 1e-7},
        "deviation_per_step": [float(v) for v in dev],
        "first_crossing_step": crossing[0] if crossing else None,
        "failures": [f"max_loss_rel_dev {dev.max():.3g} > {tol}"] if crossing else [],
    }


def _throughput(rng, rate, model, reps=5) -> dict:
    samples = rate * (1 + 0.02 * rng.standard_normal(reps))
    q1, q3 = np.percentile(samples, [25, 75])
    median, stddev = float(np.median(samples)), float(samples.std(ddof=1))
    flops = FLOPS_PER_SAMPLE.get(model, OTHER_MODEL_FLOPS)
    return {
        "unit": "samples/s", "timing": "cuda_events", "input": "cached", "warmup_steps": 3,
        "measured_steps": 10, "repetitions": reps, "samples_per_s": [float(s) for s in samples],
        "median": median, "min": float(samples.min()), "max": float(samples.max()),
        "iqr": float(q3 - q1), "stddev": stddev, "cv": stddev / float(samples.mean()),
        "step_time_ms": 1e3 * BATCH / median, "training_flops_per_sample": flops,
        "achieved_flops_per_s": median * flops, "speedup_vs_fp32": None,
        "peak_memory_bytes": 123456789, "peak_memory_kind": "cuda_max_allocated",
    }


# -- optional blocks: ceilings, utilisation, gradient health ------------------------

# `ampbench qualify` on a 2-core CPU (kernels/ceilings.h, to_json).
CPU_CEILINGS = {
    "device": "cpu", "memory_bandwidth_gbs": 12.3,
    "matmul_tflops": {"fp32": 0.21, "tf32": None, "fp16": 0.05, "bf16": 0.11},
    "repetitions": 5, "gemm_size": 1024, "copy_bytes": 134217728,
    "notes": {"tf32": "TF32 is a CUDA tensor-core mode; no CPU equivalent"},
}
# The same on an A100 (make_results' default environment).
A100_CEILINGS = {
    "device": "cuda:0", "memory_bandwidth_gbs": 1412.0,
    "matmul_tflops": {"fp32": 19.1, "tf32": 142.0, "fp16": 281.0, "bf16": 279.0},
    "repetitions": 10, "gemm_size": 8192, "copy_bytes": 1073741824, "notes": {},
}
# Analytic FLOPs of one training sample (forward + backward ≈ 3 × forward),
# sized so the fixture's fp32 rates (BASE_RATE) land near 30% of A100 fp32.
FLOPS_PER_SAMPLE = {"mlp": 1.2e8, "cnn": 1.5e9, "transformer": 4.0e9}
OTHER_MODEL_FLOPS = 3.0e9
UNDERFLOW_AT_SCALE_1 = {"mlp": 0.35, "cnn": 0.02, "transformer": 0.6}
OTHER_MODEL_UNDERFLOW = 0.1


def add_utilisation(doc, ceilings=A100_CEILINGS) -> dict:
    """Env ceilings plus the throughput fields, derived as the harness does;
    ceilings=None: a run without qualify (achieved FLOP/s, no MFU)."""
    if ceilings is not None:
        doc["env"]["ceilings"] = ceilings
    rates = (ceilings or {}).get("matmul_tflops", {})
    by_id = {c["id"]: c for c in doc["cases"]}
    for case in doc["cases"]:
        tp = case["throughput"]
        if tp is None:
            continue
        base = by_id.get(case["baseline_id"]) if case["baseline_id"] else None
        flops = FLOPS_PER_SAMPLE.get(case["model"], OTHER_MODEL_FLOPS)
        achieved = tp["median"] * flops
        ceiling, fp32_ceiling = rates.get(case["precision"]), rates.get("fp32")
        tp.update(training_flops_per_sample=flops,
                  achieved_flops_per_s=achieved,
                  speedup_vs_fp32=tp["median"] / base["throughput"]["median"]
                  if base and base["throughput"] else None,
                  model_flop_utilization=achieved / (ceiling * 1e12) if ceiling else None,
                  ceiling_speedup_vs_fp32=ceiling / fp32_ceiling if ceiling and fp32_ceiling else None)
    return doc


def add_grad_health(doc) -> dict:
    """grad_health for every fp32 and fp16 case that ran: the scaler's
    scale lifts all but a sliver of the unscaled underflow, and the fp16
    overflow step (SKIPPED_STEP) has non-finite values."""
    rng = np.random.default_rng(11)
    for case in doc["cases"]:
        if case["precision"] not in ("fp32", "fp16") or not case["trajectory"]["scale"]:
            continue
        scale = case["trajectory"]["scale"]
        steps = len(scale)
        unscaled = np.clip(UNDERFLOW_AT_SCALE_1.get(case["model"], OTHER_MODEL_UNDERFLOW) * (1 + 0.1 * rng.standard_normal(steps)), 0, 1)
        scaled = unscaled if case["precision"] == "fp32" else np.where(np.arange(steps) % 3 == 0, 1e-5, 0.0)
        skipped = case["trajectory"]["skipped"]
        case["grad_health"] = {
            "scale": list(scale),
            "underflow_fp16_fraction_at_scale_1": [float(v) for v in unscaled],
            "underflow_fp16_fraction_at_scale": [float(v) for v in scaled],
            "nonfinite": [7 if s else 0 for s in skipped],
        }
    return doc


# -- suites the size of the real ones -------------------------------------------------

SMOKE_WORKLOADS = ("plain", "clip_norm", "clip_value", "penalty", "accumulation", "multi")
SMOKE_PRECISIONS = ("fp32", "fp16", "o2", "o3", "bf16")
# Real architectures and users' own models, for the suite grown 5x.  A model
# given by file may have any plain name, so the schema takes them as they are.
MORE_MODELS = ("resnet18", "vit_tiny", "gpt2_small", "bert_base", "unet", "llama_tiny", "wav2vec",
               "dlrm", "my_model")
SMOKE_SUITE_CASES = 150   # `ampbench run --suite smoke --device cpu`: what "5x" is measured against


def smoke_like(grown: bool = False, **overrides) -> dict:
    """A suite shaped like the smoke suite (6 workloads x 3 models x 5
    precisions, controls, DDP; ~100 cases), or grown to ~5x the real smoke
    suite the way the report will grow: more models, and a second optimizer.
    With utilisation and gradient health, so every figure kind is drawn."""
    shape = {"workloads": SMOKE_WORKLOADS, "precisions": SMOKE_PRECISIONS, "steps": 10,
             "models": ("mlp", "cnn", "transformer"), "skipped": ()}
    if grown:
        shape.update(models=shape["models"] + MORE_MODELS, optimizers=("sgd", "adamw"))
    shape.update(overrides)
    doc = make_results(**shape)
    # The real smoke suite's distributed cases: long tagged ids, and an
    # injected slow rank that leaves a bar too short for its label.
    rng = np.random.default_rng(3)
    doc["cases"] += _ddp_cases(rng, shape["steps"], 1.0, tag="2ranks-inject", efficiency=0.11)
    doc["cases"] += _ddp_cases(rng, shape["steps"], 1.0, workload="dataparallel", tag="2replicas",
                               efficiency=0.6)
    return add_grad_health(add_utilisation(doc))


