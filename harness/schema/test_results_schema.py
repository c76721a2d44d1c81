"""The results schema accepts what the writers produce and rejects what the
gate and the reports could not read, through the one Python reader
(reference/python/results_file.py) that validate_results.py runs.  (The
smoke run's real output is validated by the CTest
results.smoke_output_matches_schema.)"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validate_results as V  # noqa: E402
from reference.python.results_file import violations  # noqa: E402
from reference.python.tests.results_samples import BREAKAGES, broken_doc, case_doc, valid_doc  # noqa: E402


def test_a_complete_document_is_valid():
    assert violations(valid_doc()) == []


def test_unknown_keys_are_allowed_for_forward_compatibility():
    doc = valid_doc()
    doc["future_field"] = 1
    doc["cases"][0]["future_field"] = {"x": 1}
    assert violations(doc) == []


def test_a_skipped_tf32_case_and_a_not_ieee_warning_are_valid():
    doc = valid_doc()
    doc["cases"].append(dict(copy.deepcopy(doc["cases"][0]), id="plain/mlp/tf32/sgd", precision="tf32",
                             scaler_enabled=False, status="skipped", conforms=None, check=None, throughput=None,
                             trajectory={"loss": [], "scale": [], "skipped": []},
                             reason="tf32 is CUDA tensor-core math; on cpu it would be IEEE fp32, "
                                    "identical to the baseline"))
    settings = {"precision": {"cuda.matmul": "ieee"}, "legacy": {}, "cublas_reduction": {},
                "env_overrides": {"NVIDIA_TF32_OVERRIDE": "1"}}
    doc["env"]["float32_math"] = {"process_default": settings, "in_cases": settings, "in_cases_ieee": True,
                                  "fp32_is_ieee": False,
                                  "fp32_not_ieee_reasons": ["NVIDIA_TF32_OVERRIDE=1 is set: ..."]}
    assert violations(doc) == []
    doc["env"]["float32_math"]["fp32_is_ieee"] = "no"
    assert violations(doc) == [".env.float32_math.fp32_is_ieee: 'no' is not of type 'boolean'"]


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_a_broken_document_is_rejected_with_its_path(name):
    found = violations(broken_doc(name))
    assert found, f"schema accepted: {name}"
    assert f".{BREAKAGES[name][1]}" in found[0]


def test_violations_name_the_case():
    doc = valid_doc()
    doc["cases"][0]["status"] = "ok"
    (message,) = violations(doc)
    assert message.startswith(".cases[0].status (case plain/mlp/fp16/sgd)")


def test_cli_exit_codes(tmp_path, capsys):
    good, bad, junk = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "junk.json"
    good.write_text(json.dumps(valid_doc()))
    broken = valid_doc()
    broken["schema_version"] = 7
    bad.write_text(json.dumps(broken))
    junk.write_text("{not json")
    assert V.main([str(good)]) == 0
    assert V.main([str(good), str(bad)]) == 1
    assert f"{bad}: .schema_version: is 7" in capsys.readouterr().err
    assert V.main([str(junk)]) == 2
    assert "cannot read results: not valid JSON" in capsys.readouterr().err


def test_the_cli_also_checks_the_derived_throughput_figures(tmp_path, capsys):
    base = case_doc("plain/mlp/fp32/sgd", throughput={"median": 200.0})
    fp16 = case_doc("plain/mlp/fp16/sgd", baseline_id=base["id"],
                    throughput={"median": 100.0, "speedup_vs_fp32": 0.5})
    doc = valid_doc()
    doc["cases"] = [base, fp16]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    assert V.main([str(path)]) == 0
    fp16["throughput"]["speedup_vs_fp32"] = 0.6
    path.write_text(json.dumps(doc))
    assert V.main([str(path)]) == 1
    assert "speedup_vs_fp32 0.6 is not median / the fp32 baseline's median (0.5)" in capsys.readouterr().err
