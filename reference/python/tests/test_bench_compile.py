"""python -m reference.python.bench --compile: the same loops with each model
through torch.compile; the results say so, no case claims a pass that no
check gave, and the recorded losses stay those of the eager run (float32
rounding apart)."""

from __future__ import annotations

import json

from reference.python.bench import COMPILED_UNCHECKED, main
from reference.python.results_file import Status, load_results

TINY_SUITE = {
    "name": "tiny-compile",
    "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 16, "classes": 4}},
    "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32"], "optimizers": ["sgd"]},
    "defaults": {"steps": 3},
    "tolerances": {"fp32": {}, "fp16": {}, "bf16": {}},
    "throughput": {"warmup_steps": 2, "measured_steps": 2, "repetitions": 2},
}


def _run(tmp_path, *flags):
    suite = tmp_path / "tiny.json"
    suite.write_text(json.dumps(TINY_SUITE))
    out = tmp_path / ("compiled.json" if flags else "eager.json")
    assert main(["--suite", str(suite), "--device", "cpu", "--out", str(out), *flags]) == 0
    return load_results(out)


def test_compiled_models_train_like_eager_ones_and_the_results_say_so(tmp_path):
    eager, compiled = _run(tmp_path), _run(tmp_path, "--compile")
    assert eager.env["python_torch_compile"] is False
    assert compiled.env["python_torch_compile"] is True
    (e,), (c,) = eager.cases, compiled.cases
    assert e.status is Status.PASS
    assert c.status is Status.SKIPPED and c.conforms is None and c.reason == COMPILED_UNCHECKED
    assert c.throughput.median > 0
    for a, b in zip(e.trajectory.loss, c.trajectory.loss):
        assert abs(a - b) <= 1e-5 * abs(a), (a, b)
