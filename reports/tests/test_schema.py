"""Loading and validating results.json (harness/results/SCHEMA.md, v1)."""

from __future__ import annotations

import pytest

from reports.schema import ResultsError, load_results, validate_results
from reports.tests.sample_results import add_grad_health, add_utilisation, write_results


def rejected(doc, tmp_path) -> str:
    path = write_results(tmp_path / "bad.json", doc)
    with pytest.raises(ResultsError) as info:
        load_results(path)
    assert info.value.path == path
    return info.value.reason


def test_valid_file_loads(results_file, results):
    assert load_results(results_file)["cases"] == results["cases"]


def test_missing_file(tmp_path):
    with pytest.raises(ResultsError, match="no such file"):
        load_results(tmp_path / "absent.json")


def test_not_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "ampbench.results", ')
    with pytest.raises(ResultsError, match="not valid JSON"):
        load_results(path)


def test_top_level_not_object(tmp_path):
    assert "not a JSON object" in rejected([1, 2], tmp_path)


def test_wrong_schema_name(results, tmp_path):
    results["schema"] = "something.else"
    assert "schema is 'something.else'" in rejected(results, tmp_path)


@pytest.mark.parametrize("version", [1, 2])
def test_schema_versions_one_and_two_read(results, tmp_path, version):
    results["schema_version"] = version
    assert load_results(write_results(tmp_path / "r.json", results))["schema_version"] == version


@pytest.mark.parametrize("version", [3, 0, "1", 1.5, True, None])
def test_schema_version_mismatch(results, tmp_path, version):
    results["schema_version"] = version
    assert "schema_version" in rejected(results, tmp_path)


def test_missing_top_level_key_is_named(results, tmp_path):
    del results["complete"]
    assert "missing required key 'complete'" in rejected(results, tmp_path)


def test_missing_env_key_is_named(results, tmp_path):
    del results["env"]["libtorch_version"]
    assert "'env.libtorch_version'" in rejected(results, tmp_path)


def test_missing_case_key_names_case_and_key(results, tmp_path):
    del results["cases"][1]["check"]
    reason = rejected(results, tmp_path)
    assert results["cases"][1]["id"] in reason and ".check'" in reason


def test_missing_nested_throughput_key(results, tmp_path):
    del results["cases"][0]["throughput"]["median"]
    assert "throughput.median'" in rejected(results, tmp_path)


def test_wrong_type_is_named(results, tmp_path):
    results["cases"][0]["batch_size"] = "64"
    assert "batch_size' should be a JSON integer" in rejected(results, tmp_path)


def test_unknown_status(results, tmp_path):
    results["cases"][0]["status"] = "passed"
    assert "status is 'passed'" in rejected(results, tmp_path)


def test_duplicate_case_ids(results, tmp_path):
    results["cases"].append(dict(results["cases"][0]))
    assert "duplicate case id" in rejected(results, tmp_path)


def test_unknown_keys_are_ignored(results):
    results["written_by"] = "ampbench 0.2"
    results["env"]["new_probe"] = {"x": 1}
    results["cases"][0]["check_extra"] = []
    validate_results(results)


def test_null_stands_for_non_finite_in_series(results):
    case = next(c for c in results["cases"] if c["check"])
    case["trajectory"]["loss"][2] = None
    case["check"]["deviation_per_step"][2] = None
    validate_results(results)


def test_reason_is_one_line():
    # The CLI prints "reports: error: FILE: reason" as one line; JSON parser
    # messages or key names must not break it.
    assert ResultsError("f.json", "bad\nthing\there").reason == "bad thing here"


# -- optional blocks: absent is fine, a wrong type is named --------------------------

def test_optional_blocks_load_when_well_formed(results):
    validate_results(add_grad_health(add_utilisation(results)))


def test_ceilings_must_be_an_object(results, tmp_path):
    results["env"]["ceilings"] = "fast"
    assert "'env.ceilings' should be a JSON object" in rejected(results, tmp_path)


def test_ceiling_rate_must_be_a_number_or_null(results, tmp_path):
    results["env"]["ceilings"] = {"matmul_tflops": {"fp32": 0.21, "fp16": "0.05"}}
    assert "'env.ceilings.matmul_tflops.fp16' should be a JSON number or null" in rejected(results, tmp_path)


def test_throughput_flop_field_must_be_a_number_or_null(results, tmp_path):
    case = next(c for c in results["cases"] if c["throughput"])
    case["throughput"]["model_flop_utilization"] = "31%"
    reason = rejected(results, tmp_path)
    assert case["id"] in reason and "throughput.model_flop_utilization' should be" in reason


def test_grad_health_series_must_hold_numbers(results, tmp_path):
    case = results["cases"][0]
    case["grad_health"] = {"underflow_fp16_fraction_at_scale_1": [0.9, "lots"]}
    assert "grad_health.underflow_fp16_fraction_at_scale_1' should be" in rejected(results, tmp_path)


def test_null_optional_blocks_are_accepted(results):
    results["env"]["ceilings"] = None
    results["cases"][0]["grad_health"] = None
    results["cases"][0]["throughput"]["speedup_vs_fp32"] = None
    validate_results(results)


# Hostile inputs: refused with the reason, never a traceback.

def test_device_is_refused_not_read_forever():
    with pytest.raises(ResultsError, match="not a regular file"):
        load_results("/dev/zero")


def test_deep_nesting_is_refused_before_json_loads(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(ResultsError, match="nested deeper than 64 levels"):
        load_results(path)


def test_brackets_inside_strings_do_not_count_as_nesting(results, tmp_path):
    results["suite"] = "[" * 500 + '\\"{'
    path = write_results(tmp_path / "ok.json", results)
    assert load_results(path)["suite"] == results["suite"]


@pytest.mark.parametrize("field,value,expected", [
    ("median", -5.0, "must be finite and >= 0"),
    ("min", 1e12, "min <= median <= max does not hold"),
])
def test_impossible_throughput_is_refused_not_plotted(results, tmp_path, field, value, expected):
    results["cases"][0]["throughput"][field] = value
    assert expected in rejected(results, tmp_path)
