"""ci/workloads-differ.py and ci/envelope-table.py read results.json through
the one loader: a valid file is judged, an off-schema one is refused."""
import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from reference.python.tests.results_samples import case_doc, valid_doc, write_doc  # noqa: E402


def script(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), ROOT / "ci" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fp32(case_id, loss, status="pass"):
    return case_doc(case_id, status=status, scaler_enabled=False, tag="",
                    trajectory={"loss": loss, "scale": [1.0] * len(loss), "skipped": [False] * len(loss)})


@pytest.mark.parametrize("clip_loss,expected", [([2.0, 1.5], 0), ([2.0, 1.0], 1)])
def test_a_workload_training_exactly_like_plain_is_named(tmp_path, capsys, clip_loss, expected):
    path = write_doc(tmp_path / "r.json", [fp32("plain/mlp/fp32/sgd", [2.0, 1.0]),
                                           fp32("clip_norm/mlp/fp32/sgd", clip_loss),
                                           fp32("penalty/mlp/fp32/sgd", [2.0, 1.0], status="error")])
    assert script("workloads-differ").main(path) == expected
    out = capsys.readouterr().out
    assert ("clip_norm/mlp/fp32/sgd" in out) == (expected == 1) and "penalty" not in out


def test_workloads_differ_refuses_an_off_schema_file(tmp_path, capsys):
    path = write_doc(tmp_path / "r.json", [dict(fp32("plain/mlp/fp32/sgd", [1.0]), status="passed")])
    assert script("workloads-differ").main(path) == 2
    assert ".cases[0].status (case plain/mlp/fp32/sgd): 'passed' is not one of" in capsys.readouterr().err


def test_envelope_table_lists_cases_with_bounds(tmp_path, capsys):
    bound = {"distance": [0.1, 0.2], "envelope": [0.1, 0.1], "bound": [1.0, 1.0], "max_ratio": 0.2, "peak_step": 1}
    check = dict(valid_doc()["cases"][0]["check"], bounds={"loss_rel": bound, "param_rel_l2": bound}, max_ratio=0.2,
                 envelope={"c": 4, "noise": "init", "replicas": 3, "unit_roundoff": 1e-3})
    checked = case_doc("plain/mlp/fp16/sgd", check=check)
    control = case_doc("clip_norm+clip_before_unscale/mlp/fp16/sgd", status="fail", expect="fail", conforms=True,
                       check=dict(check, max_ratio=3.0))
    script("envelope-table").main([write_doc(tmp_path / "r.json", [checked, control])])
    out = capsys.readouterr().out
    assert "plain/mlp/fp16/sgd" in out and "worst correct case: 0.200" in out and "margin: 15.0x" in out
