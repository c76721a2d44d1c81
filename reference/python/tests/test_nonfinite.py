"""Non-finite losses and scales in dumps: the C++ dump writes them
as the strings "inf", "-inf" and "nan"; older dumps wrote null, read as NaN.
The per-step comparison treats them as values: inf matches an inf of the
same sign, NaN matches NaN, anything else is a mismatch printing both."""

from __future__ import annotations

import copy
import io
import json
import math
import shutil
from pathlib import Path

import pytest

from reference.python.check import check
from reference.python.compare import compare_runs
from reference.python.spec import Spec
from reference.python.tests.dumpmaker import write_dump
from reference.python.tests.test_compare import make_run

TINY = {"batch": 8, "in_features": 8, "hidden": 8, "classes": 4, "channels": 4, "image": 8, "seq": 4,
        "d_model": 8, "heads": 2, "ffn": 8}
CASE = "plain/mlp/fp16/sgd@overflow"
FOLDER = "plain_mlp_fp16_sgd@overflow"


def _spec() -> Spec:
    # A loss multiplier of 3e38 overflows the float32 loss to inf on every
    # step (the scaler then skips each step and halves the scale); a NaN in
    # the inputs of step 1 makes that step's loss NaN.
    return Spec(id=CASE, workload="plain", model="mlp", precision="fp16", optimizer="sgd", scaler_enabled=True,
                steps=4, sizes=dict(TINY), loss_multiplier=3e38,
                scaler={"init_scale": 128.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 1})


@pytest.fixture(scope="module")
def nonfinite_dump(tmp_path_factory):
    root = tmp_path_factory.mktemp("nonfinite")
    write_dump(root, _spec(), poison={1: math.nan})
    return root


@pytest.fixture
def dump_copy(nonfinite_dump, tmp_path):
    dst = tmp_path / "dump"
    shutil.copytree(nonfinite_dump, dst)
    return dst


def run_check(root: Path):
    out = io.StringIO()
    rc = check(root, out=out, err=out)
    return rc, out.getvalue()


def edit_trajectory(root: Path, key: str, step: int, value) -> None:
    path = root / FOLDER / "case.json"
    meta = json.loads(path.read_text())
    meta["trajectory"][key][step] = value
    path.write_text(json.dumps(meta))


def test_dump_writes_nonfinite_values_as_strings(nonfinite_dump):
    traj = json.loads((nonfinite_dump / FOLDER / "case.json").read_text())["trajectory"]
    assert traj["loss"] == ["inf", "nan", "inf", "inf"]
    assert traj["skipped"] == [True] * 4 and traj["scale"] == [64.0, 32.0, 16.0, 8.0]


def test_inf_and_nan_losses_agree(nonfinite_dump):
    rc, text = run_check(nonfinite_dump)
    assert rc == 0, text
    assert "1 of 1 cases agree" in text


def test_legacy_null_reads_as_nan_and_an_inf_disagrees(tmp_path):
    write_dump(tmp_path, _spec(), poison={1: math.nan}, legacy_null=True)
    rc, text = run_check(tmp_path)
    assert rc == 1, text
    assert (f"MISMATCH {CASE}: step 0: loss: inf (Python) vs nan (C++) "
            "(a non-finite loss must be the same value on both sides)") in text


@pytest.mark.parametrize("step,value,shown", [(0, "-inf", "inf (Python) vs -inf (C++)"),
                                              (0, "nan", "inf (Python) vs nan (C++)"),
                                              (1, "inf", "nan (Python) vs inf (C++)"),
                                              (1, 2.5, "nan (Python) vs 2.5 (C++)")])
def test_different_nonfinite_loss_is_caught(dump_copy, step, value, shown):
    edit_trajectory(dump_copy, "loss", step, value)
    rc, text = run_check(dump_copy)
    assert rc == 1, text
    assert f"MISMATCH {CASE}: step {step}: loss: {shown}" in text


def test_nonfinite_scale_is_compared_as_a_value(dump_copy):
    edit_trajectory(dump_copy, "scale", 2, "inf")
    rc, text = run_check(dump_copy)
    assert rc == 1, text
    assert f"MISMATCH {CASE}: step 2: scale: 16 (Python) vs inf (C++)" in text


@pytest.mark.parametrize("value", ["Infinity", "1.5", ""])
def test_unknown_string_is_unusable_naming_file_and_field(dump_copy, value):
    edit_trajectory(dump_copy, "loss", 3, value)
    rc, text = run_check(dump_copy)
    assert rc == 2, text
    assert f"{FOLDER}/case.json: trajectory.loss[3]: unknown string {json.dumps(value)}" in text


def test_compare_runs_treats_nonfinite_values_as_values():
    cpp = make_run()
    cpp.loss[1], cpp.loss[2], cpp.loss[3] = math.inf, -math.inf, math.nan
    cpp.scale[1] = math.inf
    assert compare_runs("c", "fp16", copy.deepcopy(cpp), cpp).ok
    py = copy.deepcopy(cpp)
    py.loss[1], py.loss[2], py.loss[3], py.scale[1] = math.nan, math.inf, 1.0, math.nan
    rep = compare_runs("c", "fp16", py, cpp)
    got = [(m.step, m.tensor) for m in rep.mismatches]
    assert got == [("1", "scale"), ("1", "loss"), ("2", "loss"), ("3", "loss")]
    assert "nan (Python) vs inf (C++)" in rep.mismatches[1].detail
    assert "inf (Python) vs -inf (C++)" in rep.mismatches[2].detail
    assert "1 (Python) vs nan (C++)" in rep.mismatches[3].detail
