#!/usr/bin/env python3
"""Writes the hostile inputs of the bad-input CTest table into DIR.

Usage: hostile_inputs.py DIR

Each suite file is a small valid suite with one field replaced by raw JSON
text (so numbers like 1e400 or 4294967308 reach the C++ parser verbatim);
harness/cli/bad_input_tests.cmake names each file with the exit code and the
message it must get.
"""
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from reports.tests.sample_results import make_results  # noqa: E402  (the reports' own sample)

BASE = {
    "name": "hostile",
    "defaults": {"steps": 2, "seed": 1},
    "models": {"mlp": {"batch": 4, "in_features": 4, "hidden": 4, "classes": 2}},
    "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32", "fp16"], "optimizers": ["sgd"]},
    "tolerances": {k: {"loss_rel_units": 8, "param_rel_units": 8, "optimizer_state_rel_units": 8,
                       "final_loss_ratio_units": 8} for k in ("fp32", "fp16", "bf16")},
    "throughput": {"warmup_steps": 1, "measured_steps": 1, "repetitions": 1},
}

# file name -> (path of keys in BASE, raw JSON text for the value)
SUITE_VARIANTS = {
    "steps-overflow": (("defaults", "steps"), "1e400"),
    "steps-wraps": (("defaults", "steps"), "4294967308"),
    "steps-1e12": (("defaults", "steps"), "1000000000000"),
    "steps-huge": (("defaults", "steps"), "1000000000"),
    "steps-float": (("defaults", "steps"), "12.5"),
    "seed-negative": (("defaults", "seed"), "-1"),
    "warmup-wraps": (("throughput", "warmup_steps"), "4294967297"),
    "hidden-huge": (("models", "mlp", "hidden"), "2147483647"),
    "hidden-max-cannot-fit": (("models", "mlp", "hidden"), "1048576"),
    "batch-huge": (("models", "mlp", "batch"), "100000000"),
    "world-size-huge": (("defaults", "world_size"), "1000"),  # ddp added to its matrix below
    "lr-negative": (("defaults", "lr"), "-0.1"),
    "max-norm-huge": (("defaults", "max_norm"), "1e308"),
    "tolerance-huge": (("tolerances", "fp16", "loss_rel_units"), "1e308"),
    "noise-factor-negative": (("tolerances", "noise_factor"), "-1"),
    "extra-skips-negative": (("tolerances", "fp16", "max_extra_skipped_steps"), "-3"),
    "min-effect-nan": (("gate", "min_effect"), "NaN"),
    "name-escapes": (("name",), '"../../escape"'),
}


def suite_text(keys, raw):
    doc = json.loads(json.dumps(BASE))
    node = doc
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = "@RAW@"
    return json.dumps(doc, indent=1).replace('"@RAW@"', raw)


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    (out / "valid-suite.json").write_text(json.dumps(BASE, indent=1))
    for name, (keys, raw) in SUITE_VARIANTS.items():
        text = suite_text(keys, raw)
        if name == "world-size-huge":
            text = text.replace('"plain"', '"plain", "ddp"', 1)
        (out / f"suite-{name}.json").write_text(text)
    (out / "deep-array.json").write_text("[" * 100000 + "]" * 100000)
    (out / "deep-object.json").write_text('{"a":' * 100000 + "1" + "}" * 100000)
    (out / "not-json.json").write_text('{"schema": ')
    (out / "empty.json").write_text("")
    # Gate inputs: a results file, one of another suite, one unfinished.
    results = make_results()
    (out / "results-a.json").write_text(json.dumps(results))
    (out / "results-other-suite.json").write_text(json.dumps(dict(results, suite="conformance")))
    (out / "results-incomplete.json").write_text(json.dumps(dict(results, complete=False)))
    (out / "results-complete-string.json").write_text(json.dumps(dict(results, complete="false")))
    (out / "results-no-complete.json").write_text(json.dumps({k: v for k, v in results.items() if k != "complete"}))
    unmeasured = dict(results, cases=[dict(c, throughput=None) for c in results["cases"]])
    (out / "results-no-samples.json").write_text(json.dumps(unmeasured))
    write_overwrite_targets(out, results)
    write_bad_tags(out)
    write_bad_model_files(out)
    return 0


def write_bad_model_files(out):
    """Models given by file that cannot train: not TorchScript, missing, and
    a real module whose forward fails on the described input."""
    import torch  # the venv's: only this fixture needs it

    (out / "model-not-torchscript.pt").write_text("a text file, not a TorchScript archive\n")
    torch.jit.script(torch.nn.Linear(4, 2)).save(str(out / "model-linear4.pt"))

    def suite(file, shape):
        doc = json.loads(json.dumps(BASE))
        doc["models"] = {"mine": {"torchscript": file, "inputs": [{"shape": shape}], "batch": 4, "classes": 2}}
        doc["matrix"]["models"] = ["mine"]
        return json.dumps(doc, indent=1)

    (out / "suite-model-not-torchscript.json").write_text(suite("model-not-torchscript.pt", [4]))
    (out / "suite-model-missing.json").write_text(suite("no-such-model.pt", [4]))
    (out / "suite-model-wrong-input.json").write_text(suite("model-linear4.pt", [5]))


def write_overwrite_targets(out, results):
    """Files a command must refuse to overwrite: each its own copy, so that a
    regression destroys only the copy its own test reads."""
    user = out / "user-folder"
    (user / "report").mkdir(parents=True, exist_ok=True)
    (user / "notes.txt").write_text("the user's own notes\n")
    (user / "report" / "draft.md").write_text("the user's own draft\n")
    for name in ("user-dump-folder", "user-dump-folder-overwrite"):
        # Made afresh: a marker a regression left behind would let --overwrite in.
        shutil.rmtree(out / name, ignore_errors=True)
        (out / name / "case-notes").mkdir(parents=True)
        (out / name / "case-notes" / "case.json").write_text('{"the user\'s": "own case"}\n')
        (out / name / "notes.txt").write_text("the user's own notes\n")
    (out / "junit-target-suite.json").write_text(json.dumps(BASE, indent=1))
    (out / "results-markdown-target.json").write_text(json.dumps(results))


def write_bad_tags(out):
    """Tags the suite reader refuses, and more ddp cases than the ranks'
    filter of exact ids can name."""
    def with_cases(cases):
        return json.dumps(dict(BASE, cases=cases), indent=1)
    case = {"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd"}
    (out / "suite-tag-nul.json").write_text(with_cases([dict(case, tag="a\u0000b")]))
    (out / "suite-tag-long.json").write_text(with_cases([dict(case, tag="x" * 300)]))
    ddp = dict(case, workload="ddp", world_size=2)
    many = [dict(ddp, tag=f"{i:05d}-" + "x" * 58) for i in range(800)]
    (out / "suite-many-ddp.json").write_text(with_cases(many))


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
