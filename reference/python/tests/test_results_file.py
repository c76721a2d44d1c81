"""The one results.json reader: it accepts exactly what
harness/schema/results.schema.json accepts (plus unique ids and ordered
min/median/max), names the field it refuses, and types what it returns."""
from __future__ import annotations

import json
import re

import jsonschema
import pytest

from reference.python import results_file as R
from reference.python.results_file import Expect, ResultsError, Status, load_results, parse_results
from reference.python.tests.results_samples import BREAKAGES, broken_doc, case_doc, results_doc, valid_doc

SCHEMA = json.loads(R.SCHEMA_PATH.read_text())


def write(tmp_path, doc, name="r.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def refusal(tmp_path, doc) -> str:
    path = write(tmp_path, doc)
    with pytest.raises(ResultsError) as info:
        load_results(path)
    assert info.value.path == path
    return info.value.reason


# -- the one version, the one schema ------------------------------------------------

def cpp_constant(name: str) -> int | None:
    headers = sorted((R.SCHEMA_PATH.parents[1] / "results").glob("*.h"))
    found = {int(v) for h in headers for v in re.findall(rf"\b{name} = (\d+);", h.read_text())}
    assert len(found) <= 1, (name, found)
    return found.pop() if found else None


def test_schema_versions_are_the_cpp_harness():
    assert R.SCHEMA_VERSION == cpp_constant("kResultsSchemaVersion")
    assert cpp_constant("kOldestResultsSchemaVersion") in (None, R.OLDEST_READABLE_VERSION)
    assert SCHEMA["properties"]["schema_version"]["enum"] == list(R.READABLE_VERSIONS)
    assert SCHEMA["properties"]["schema"]["const"] == R.SCHEMA_NAME


@pytest.mark.parametrize("enum,key", [(Status, "status"), (Expect, "expect")])
def test_enums_are_the_schemas(enum, key):
    assert [m.value for m in enum] == SCHEMA["$defs"]["case"]["properties"][key]["enum"]


def test_a_sample_validates_against_the_json_schema_and_loads(tmp_path):
    doc = valid_doc()
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    results = load_results(write(tmp_path, doc))
    case = results.cases[0]
    assert (results.schema_version, results.suite, results.complete) == (R.SCHEMA_VERSION, "smoke", False)
    assert case.status is Status.PASS and case.expect is Expect.PASS
    assert (case.id, case.workload, case.model, case.precision, case.optimizer) == \
        ("plain/mlp/fp16/sgd", "plain", "mlp", "fp16", "sgd")
    assert case.throughput.samples_per_s == (100.0, 110.0) and case.throughput.speedup_vs_fp32 == 1.1
    assert case.trajectory.loss == (2.3, 2.2, None) and case.check.tolerances["loss_rel"] == 4e-3
    assert case.ddp is None and results.case("plain/mlp/fp16/sgd") is case and results.case("x") is None


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_what_the_schema_refuses_the_loader_refuses_naming_the_field(tmp_path, name):
    doc = broken_doc(name)
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(doc), f"the schema accepts: {name}"
    field = BREAKAGES[name][1]
    assert f".{field}" in refusal(tmp_path, doc)


@pytest.mark.parametrize("version", [3, 0, "2", 1.5, True, None])
def test_a_wrong_schema_version_is_refused_naming_it(tmp_path, version):
    doc = valid_doc()
    doc["schema_version"] = version
    reason = refusal(tmp_path, doc)
    assert reason.startswith(f".schema_version: is {version!r}") and "reads versions 1, 2" in reason


@pytest.mark.parametrize("version", R.READABLE_VERSIONS)
def test_every_readable_version_reads(version):
    doc = valid_doc()
    doc["schema_version"] = version
    assert parse_results(doc).schema_version == version


def test_every_problem_is_kept_the_first_is_the_reason():
    doc = valid_doc()
    doc["cases"][0]["status"] = "ok"
    del doc["env"]["device"]
    with pytest.raises(ResultsError) as info:
        parse_results(doc, "f.json")
    assert info.value.problems == (".cases[0].status (case plain/mlp/fp16/sgd): 'ok' is not one of "
                                   "['pass', 'fail', 'skipped', 'error']",
                                   ".env.device: missing required key")
    assert info.value.reason == info.value.problems[0] + " (and 1 more)"


# -- what a JSON schema cannot say ------------------------------------------------------

def test_duplicate_case_ids_are_refused():
    doc = results_doc([case_doc("a"), case_doc("b"), case_doc("a")])
    assert R.violations(doc) == [".cases[2].id (case a): duplicate case id, also cases[0]"]


@pytest.mark.parametrize("key,value,expected", [
    ("median", float("nan"), "must be finite"),
    ("min", 1e12, "min <= median <= max does not hold"),
])
def test_impossible_throughput_is_refused_not_plotted(key, value, expected):
    doc = valid_doc()
    doc["cases"][0]["throughput"][key] = value
    (problem,) = R.violations(doc)
    assert problem.startswith(".cases[0].throughput (case plain/mlp/fp16/sgd):") and expected in problem


def test_derived_throughput_figures_must_agree_with_the_samples():
    base = case_doc("plain/mlp/fp32/sgd", throughput={"samples_per_s": [200.0, 220.0, 210.0], "median": 210.0,
                                                      "min": 200.0, "max": 220.0})
    fp16 = case_doc("plain/mlp/fp16/sgd", baseline_id=base["id"],
                    throughput={"samples_per_s": [100.0, 110.0], "median": 105.0, "min": 100.0, "max": 110.0,
                                "speedup_vs_fp32": 0.5})
    doc = results_doc([base, fp16])
    assert R.inconsistencies(parse_results(doc)) == []
    fp16["throughput"]["speedup_vs_fp32"] = 0.6
    (found,) = R.inconsistencies(parse_results(doc))
    assert found.endswith("speedup_vs_fp32 0.6 is not median / the fp32 baseline's median (0.5)")
    fp16["throughput"]["speedup_vs_fp32"] = None  # looked up under the wrong id
    (found,) = R.inconsistencies(parse_results(doc))
    assert "speedup_vs_fp32 is null, though the case and its fp32 baseline plain/mlp/fp32/sgd" in found
    base["throughput"]["median"] = 205.0
    assert any("median 205.0 is not the median of samples_per_s (210.0)" in v
               for v in R.inconsistencies(parse_results(doc)))


# -- forward compatibility and optional blocks ---------------------------------------------

def test_unknown_keys_are_ignored_and_kept_raw():
    doc = valid_doc()
    doc["written_by"] = "ampbench 0.2"
    doc["cases"][0]["future_field"] = {"x": 1}
    results = parse_results(doc)
    assert results.raw["written_by"] == "ampbench 0.2" and results.cases[0].raw["future_field"] == {"x": 1}


def test_optional_case_keys_default_when_absent():
    doc = valid_doc()
    for key in ("tag", "scaler_enabled", "iqr"):
        doc["cases"][0].pop(key, None)
        doc["cases"][0]["throughput"].pop(key, None)
    case = parse_results(doc).cases[0]
    assert (case.tag, case.scaler_enabled, case.throughput.iqr, case.grad_health, case.check.bounds) == \
        ("", None, None, None, {})


def test_a_skipped_case_reads_with_no_blocks():
    doc = results_doc([case_doc("plain/mlp/tf32/sgd", status="skipped", steps=3,
                                trajectory={"loss": [], "scale": [], "skipped": []})])
    case = parse_results(doc).cases[0]
    assert case.status is Status.SKIPPED and case.conforms is None and case.reason
    assert case.throughput is None and case.check is None and case.trajectory.loss == ()


def test_well_formed_ceilings_and_grad_health_load():
    doc = valid_doc()
    doc["env"]["ceilings"] = {"device": "cpu", "memory_bandwidth_gbs": 12.3,
                              "matmul_tflops": {"fp32": 0.21, "tf32": None}, "repetitions": 5,
                              "gemm_size": 1024, "copy_bytes": 1 << 27, "notes": {"tf32": "CUDA only"}}
    doc["cases"][0]["grad_health"] = {"scale": [1.0], "underflow_fp16_fraction_at_scale_1": [0.9],
                                      "underflow_fp16_fraction_at_scale": [0.0], "nonfinite": [0]}
    results = parse_results(doc)
    assert results.env["ceilings"]["matmul_tflops"]["tf32"] is None
    assert results.cases[0].grad_health["nonfinite"] == [0]


def test_grad_health_values_are_named_when_wrong(tmp_path):
    doc = valid_doc()
    doc["cases"][0]["grad_health"] = {"scale": [1.0], "underflow_fp16_fraction_at_scale_1": [0.9, "lots"],
                                      "underflow_fp16_fraction_at_scale": [0.0], "nonfinite": [0]}
    assert ".cases[0].grad_health.underflow_fp16_fraction_at_scale_1[1] (case plain/mlp/fp16/sgd): " \
           "'lots' is not of type 'number'" == refusal(tmp_path, doc)


def test_long_values_are_cut_from_the_message():
    doc = valid_doc()
    doc["cases"][0]["model"] = "x" * 500
    (problem,) = R.violations(doc)
    assert problem.startswith(".cases[0].model (case plain/mlp/fp16/sgd): 'xxx")
    assert problem.endswith("...") and len(problem) < 300


# -- hostile and unreadable inputs: refused with the reason, never a traceback ----------------

def test_missing_file(tmp_path):
    with pytest.raises(ResultsError, match="no such file") as info:
        load_results(tmp_path / "absent.json")
    assert info.value.problems == ()


def test_not_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "ampbench.results", ')
    with pytest.raises(ResultsError, match="not valid JSON"):
        load_results(path)


def test_top_level_not_an_object(tmp_path):
    assert refusal(tmp_path, [1, 2]) == "(top level): not a JSON object"


def test_device_is_refused_not_read_forever():
    with pytest.raises(ResultsError, match="not a regular file"):
        load_results("/dev/zero")


def test_deep_nesting_is_refused_before_json_loads(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(ResultsError, match="nested deeper than 64 levels"):
        load_results(path)


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    doc = valid_doc()
    doc["suite"] = "[" * 500 + '\\"{'
    assert load_results(write(tmp_path, doc)).suite == doc["suite"]


def test_reason_is_one_line():
    # The CLIs print "FILE: reason" as one line; a parser message must not break it.
    assert ResultsError("f.json", "bad\nthing\there").reason == "bad thing here"
