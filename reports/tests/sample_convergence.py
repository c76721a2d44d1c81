"""A small convergence-ci-shaped results file for the tests, with numbers
small enough to work by hand.

Shaped like `ampbench run --suite convergence-ci` output
(harness/results/convergence_json.cpp): fp32, fp16 and bf16 converge cases
and two controls, each with its seeds' curves in `convergence.runs` and an
empty per-step trajectory.  Four seeds (not ten) and three evaluations, so
fp32's mean and trimmed range at each step can be checked with pencil and
paper: FP32_MEAN_ACCURACY, FP32_BAND_ACCURACY, ... below.
"""

from __future__ import annotations

import copy

from reports.tests.sample_results import _case, make_env

STEPS = [100, 200, 300]
TARGET = 0.95
# Per seed: accuracy and validation loss at each step of STEPS.
FP32_ACCURACY = {1: [0.50, 0.90, 0.96], 2: [0.40, 0.80, 0.95], 3: [0.60, 0.85, 0.97], 4: [0.30, 0.85, 0.96]}
FP32_LOSS = {1: [1.0, 0.4, 0.2], 2: [1.2, 0.5, 0.3], 3: [0.8, 0.3, 0.1], 4: [1.4, 0.6, 0.2]}
# Worked by hand: the mean of the four seeds; the range with the highest and
# the lowest dropped (the rule's trim of 1).
FP32_MEAN_ACCURACY = [0.45, 0.85, 0.96]
FP32_BAND_ACCURACY = ([0.40, 0.85, 0.96], [0.50, 0.85, 0.96])
FP32_MEAN_LOSS = [1.1, 0.45, 0.2]
FP32_BAND_LOSS = ([1.0, 0.4, 0.2], [1.2, 0.5, 0.2])
# fp16's GradScaler: every seed grows 2^16 -> 2^17 but seed 2, which backs
# off at step 200 (one skipped step); geometric mean at 200: 2^((3*16+15)/4).
FP16_SCALE = {1: [65536.0, 65536.0, 131072.0], 2: [65536.0, 32768.0, 65536.0],
              3: [65536.0, 65536.0, 131072.0], 4: [65536.0, 65536.0, 131072.0]}
FP16_MEAN_SCALE = [2.0 ** 16, 2.0 ** 15.75, 2.0 ** 16.75]

FP32, FP16, BF16 = "converge/mlp/fp32/sgd", "converge/mlp/fp16/sgd", "converge/mlp/bf16/sgd"
NO_MASTER = "converge+bf16_weights_no_master/mlp/bf16/sgd"
GROWTH_OFF = "converge+scaler_growth_off/mlp/fp16/sgd@scale1e-6"
SCALER_CASES = (FP16, GROWTH_OFF)


def convergence_results() -> dict:
    cases = [_converge_case(FP32, "fp32", _runs(FP32_ACCURACY, FP32_LOSS)),
             _converge_case(FP16, "fp16", _runs(FP32_ACCURACY, FP32_LOSS, scale=FP16_SCALE)),
             _converge_case(BF16, "bf16", _runs(FP32_ACCURACY, FP32_LOSS)),
             _converge_case(NO_MASTER, "bf16", _runs(FP32_ACCURACY, FP32_LOSS, shift=-0.05),
                            variant="bf16_weights_no_master"),
             _converge_case(GROWTH_OFF, "fp16", _flat_runs(0.1, 2.3, 1e-6), variant="scaler_growth_off",
                            tag="scale1e-6")]
    return {"schema": "ampbench.results", "schema_version": 2, "suite": "convergence-ci",
            "suite_file": "suites/convergence-ci.json", "started_utc": "2026-12-06T10:00:00Z",
            "finished_utc": "2026-12-06T10:01:10Z", "complete": True, "env": make_env(None, "2.15.0"),
            "cases": cases}


def _runs(accuracy, loss, scale=None, shift=0.0) -> list:
    runs = []
    for seed in accuracy:
        acc = [round(a + shift, 6) for a in accuracy[seed]]
        reached = [s for s, a in zip(STEPS, acc) if a >= TARGET]
        runs.append({"seed": seed, "step": list(STEPS), "accuracy": acc,
                     "loss": [round(v - 2 * shift, 6) for v in loss[seed]],
                     "train_loss": [round(v * 0.9, 6) for v in loss[seed]],
                     "scale": list(scale[seed]) if scale else [1.0] * len(STEPS),
                     "skipped_steps": sum(b < a for a, b in zip(scale[seed], scale[seed][1:])) if scale else 0,
                     "steps_to_target": reached[0] if reached else None, "final_accuracy": acc[-1]})
    return runs


def _flat_runs(accuracy, loss, scale) -> list:
    return [{"seed": seed, "step": list(STEPS), "accuracy": [accuracy] * 3, "loss": [loss] * 3,
             "train_loss": [loss] * 3, "scale": [scale] * 3, "skipped_steps": 0, "steps_to_target": None,
             "final_accuracy": accuracy} for seed in FP32_ACCURACY]


def _converge_case(case_id, precision, runs, variant="correct", tag="") -> dict:
    control = variant != "correct"
    case = _case(case_id, "converge", "mlp", precision, "sgd", 3000, [], variant=variant,
                 expect="fail" if control else "pass", status="fail" if control else "pass", tag=tag)
    case.update(device="cpu", batch_size=32, trajectory={"loss": [], "scale": [], "skipped": []},
                scaler_enabled=case_id in SCALER_CASES,
                baseline_id=None if case_id == FP32 else FP32)
    if control:
        case["reason"] = "4 of 4 runs never reached the target accuracy 0.950"
    case["convergence"] = {
        "dataset": "digits",
        "rule": {"seeds": sorted(FP32_ACCURACY), "target_accuracy": TARGET, "alpha": 0.05,
                 "accuracy_band": 0.01, "trim": 1, "max_missed": 1, "warmup_steps": 100,
                 "eval_every": 100, "max_epochs": 100},
        "data": {"sha256": "0" * 64, "train_size": 1437, "validation_size": 360},
        "runs": copy.deepcopy(runs), "summary": None}
    return case
