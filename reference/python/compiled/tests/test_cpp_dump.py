"""Against the C++ runner itself (AMPBENCH_BINARY names the built ampbench;
skipped otherwise): on real dumps of the smoke suite's fp32 and bf16 mlp,
the --eager control's record, read in runner.cpp's flattening order, is the
C++ run (the cross-check's tolerances: bit for bit, in fact, on one thread),
and the compiled fp32 record stays within the fp32 tolerance of it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reference.python.compare import TOLERANCES, compare_runs
from reference.python.replay import load_case

from .helpers import as_run, dump_params, floats, rel_l2, run_module

BINARY = os.environ.get("AMPBENCH_BINARY", "")
FILTER = r"^plain/mlp/(fp32|bf16)/sgd$"


@pytest.fixture(scope="module")
def cpp_dump(tmp_path_factory):
    if not BINARY:
        pytest.skip("AMPBENCH_BINARY is not set: no C++ binary to dump a case with")
    if not (Path(BINARY).is_file() and os.access(BINARY, os.X_OK)):
        pytest.skip(f"AMPBENCH_BINARY={BINARY} is not an executable file")
    base = tmp_path_factory.mktemp("cpp")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    proc = subprocess.run([BINARY, "run", "--suite", "smoke", "--device", "cpu", "--no-report", "--no-throughput",
                           "--filter", FILTER, "--dump", str(base / "dump"), "--out", str(base / "run")],
                          capture_output=True, text=True, timeout=300, env=env)
    folders = {p: base / "dump" / f"plain_mlp_{p}_sgd" for p in ("fp32", "bf16")}
    if not all((f / "case.json").is_file() for f in folders.values()):
        pytest.fail(f"{BINARY} run --dump wrote no dump (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return folders


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_eager_record_is_the_cpp_run_in_runner_order(cpp_dump, tmp_path, capsys, precision):
    case = load_case(cpp_dump[precision])
    rc, rec, err = run_module(capsys, cpp_dump[precision], tmp_path / "r.json", "--eager")
    assert rc == 0, err
    assert (floats(rec["initial_params"]) == dump_params(case, case.cpp.initial)).all()
    report = compare_runs(case.spec.id, precision, as_run(case, rec), case.cpp, TOLERANCES[precision])
    assert report.ok, [str(m) for m in report.mismatches]
    final = dump_params(case, case.cpp.final)
    assert rel_l2(floats(rec["final_params"]), final, dump_params(case, case.cpp.initial)) <= 1e-5


def test_compiled_fp32_record_is_within_the_fp32_tolerance_of_the_cpp_run(cpp_dump, tmp_path, capsys):
    case = load_case(cpp_dump["fp32"])
    rc, rec, err = run_module(capsys, cpp_dump["fp32"], tmp_path / "r.json", "--no-fullgraph-check")
    assert rc == 0, err
    report = compare_runs(case.spec.id, "fp32", as_run(case, rec), case.cpp, TOLERANCES["fp32"])
    assert report.ok, [str(m) for m in report.mismatches]
