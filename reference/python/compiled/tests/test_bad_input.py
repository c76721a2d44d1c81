"""Bad input: refused at load with exit 2 (or 3 for a case compiled training
cannot run by design), a case error with exit 1; always one line naming the
cause, never a traceback, no record left behind."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import torch

from reference.python.compiled import compiling
from reference.python.compiled.errors import EXIT_BAD_INPUT, EXIT_CASE_ERROR, EXIT_NOT_COMPILABLE

from . import dumps
from .helpers import one_thread, run_module

PREFIX = "python -m reference.python.compiled: error: "
ROOT = Path(__file__).resolve().parents[4]  # the repository: `reference` importable from there


@pytest.fixture(scope="module")
def dump_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    with one_thread():
        dumps.make(root, dumps.spec("mlp", "fp32", steps=2))
        dumps.make(root, dumps.spec("mlp", "bf16", steps=2))
        dumps.make(root, dumps.spec("mlp", "fp32", workload="penalty", steps=1))
    return root


def _expect(capsys, case, out, status, *needles, flags=()):
    rc, rec, err = run_module(capsys, case, out, *flags)
    assert rc == status, err
    assert rec is None and not out.exists()
    assert "Traceback" not in err, err
    line = err.strip().splitlines()[-1]
    for needle in needles:
        assert needle in line, line
    return line


def test_no_folder_and_no_dump_exit_2(tmp_path, capsys):
    _expect(capsys, tmp_path / "absent", tmp_path / "r.json", EXIT_BAD_INPUT, PREFIX, "no such case folder")
    (tmp_path / "empty").mkdir()
    _expect(capsys, tmp_path / "empty", tmp_path / "r.json", EXIT_BAD_INPUT, "not an ampbench dump folder")


def test_a_truncated_dump_exits_2_naming_the_file(dump_root, tmp_path, capsys):
    import shutil

    case = shutil.copytree(dump_root / "plain_mlp_fp32_sgd", tmp_path / "case")
    (case / "inputs.pt").unlink()
    _expect(capsys, case, tmp_path / "r.json", EXIT_BAD_INPUT, "inputs.pt", "missing dump file")


def test_an_unknown_mode_exits_2(dump_root, tmp_path, capsys):
    rc, rec, err = run_module(capsys, dump_root / "plain_mlp_fp32_sgd", tmp_path / "r.json", "--mode", "turbo")
    assert rc == EXIT_BAD_INPUT and rec is None and "invalid choice: 'turbo'" in err and "Traceback" not in err


def test_a_torchscript_model_exits_2(dump_root, tmp_path, capsys):
    import shutil

    case = shutil.copytree(dump_root / "plain_mlp_fp32_sgd", tmp_path / "case")
    meta = json.loads((case / "case.json").read_text())
    meta["spec"]["torchscript"] = {"path": "/models/net.pt", "inputs": [{"kind": "float", "shape": [8]}]}
    (case / "case.json").write_text(json.dumps(meta))
    _expect(capsys, case, tmp_path / "r.json", EXIT_BAD_INPUT,
            "torch.compile cannot compile", "names no Python module", "reference.export", "/models/net.pt")


def _from_module(dump_root, tmp_path, python: dict) -> Path:
    """The mlp case as if its model were a file made from `python`."""
    import shutil

    case = shutil.copytree(dump_root / "plain_mlp_fp32_sgd", tmp_path / "file-case")
    meta = json.loads((case / "case.json").read_text())
    inputs = [{"kind": "float", "shape": [meta["spec"]["sizes"]["in_features"]], "vocab": 0}]
    meta["spec"]["torchscript"] = {"path": "/models/absent.pt", "inputs": inputs, "python": python}
    (case / "case.json").write_text(json.dumps(meta))
    return case


def test_a_file_trains_through_the_module_it_was_made_from(dump_root, tmp_path, capsys):
    """The file itself is never loaded (it does not exist here): the module
    named by the suite is built, given the dumped start, and trains exactly
    as the family does."""
    case = _from_module(dump_root, tmp_path, {"factory": "reference.python.models:make_model",
                                              "kwargs": {"family": "mlp", "sizes": _sizes(dump_root)}})
    rc, rec, err = run_module(capsys, case, tmp_path / "file.json", "--eager")
    assert rc == 0, err
    rc, family, err = run_module(capsys, dump_root / "plain_mlp_fp32_sgd", tmp_path / "family.json", "--eager")
    assert rc == 0, err
    assert rec["loss"] == family["loss"] and rec["final_params"] == family["final_params"]


def _sizes(dump_root) -> dict:
    return json.loads((dump_root / "plain_mlp_fp32_sgd" / "case.json").read_text())["spec"]["sizes"]


@pytest.mark.parametrize("python, needle", [({"factory": "no_such_pkg.mod:make"}, "No module named 'no_such_pkg'"),
                                            ({"factory": "reference.python.models:absent"}, "has no attribute"),
                                            ({"factory": "reference.python.models:make_model", "kwargs": {"x": 1}},
                                             "fails: TypeError")])
def test_a_module_that_cannot_be_made_exits_2_naming_it(dump_root, tmp_path, capsys, python, needle):
    case = _from_module(dump_root, tmp_path, python)
    _expect(capsys, case, tmp_path / "r.json", EXIT_BAD_INPUT, PREFIX, python["factory"], needle, flags=("--eager",))


def test_the_gradient_penalty_is_not_compilable_exit_3(dump_root, tmp_path, capsys):
    _expect(capsys, dump_root / "penalty_mlp_fp32_sgd", tmp_path / "r.json", EXIT_NOT_COMPILABLE,
            "double backward", "penalty/mlp/fp32/sgd")


def test_no_cxx_compiler_exits_2_naming_it(dump_root, tmp_path, capsys):
    from torch._inductor import config

    with config.patch({"cpp.cxx": (None, "/nonexistent/bin/c++")}):  # as CXX=/nonexistent/bin/c++ would
        _expect(capsys, dump_root / "plain_mlp_fp32_sgd", tmp_path / "r.json", EXIT_BAD_INPUT,
                "no C++ compiler for Inductor", "/nonexistent/bin/c++")


@pytest.mark.parametrize("flags, needle", [(("--eager", "--fault", "drop_autocast_cast"), "--eager runs without"),
                                           (("--fault", "drop_autocast_cast"), "without autocast"),
                                           (("--throughput-repetitions", "0"), "at least 1")])
def test_contradictory_options_exit_2(dump_root, tmp_path, capsys, flags, needle):
    _expect(capsys, dump_root / "plain_mlp_fp32_sgd", tmp_path / "r.json", EXIT_BAD_INPUT, needle, flags=flags)


def _backend(fail):
    def compile_models(models, opts):
        for m in models:
            m.compile(backend=fail)
    return compile_models


def test_a_compile_error_is_a_case_error(dump_root, tmp_path, capsys, monkeypatch):
    def broken(gm, example_inputs):
        raise RuntimeError("lowering exploded")

    monkeypatch.setattr(compiling, "compile_models", _backend(broken))
    _expect(capsys, dump_root / "plain_mlp_bf16_sgd", tmp_path / "r.json", EXIT_CASE_ERROR,
            "compile error", "lowering exploded", flags=("--no-fullgraph-check",))


def test_a_compile_that_never_ends_meets_the_time_limit(dump_root, tmp_path, capsys, monkeypatch):
    def endless(gm, example_inputs):
        time.sleep(60)
        return gm.forward

    monkeypatch.setattr(compiling, "compile_models", _backend(endless))
    began = time.monotonic()
    _expect(capsys, dump_root / "plain_mlp_bf16_sgd", tmp_path / "r.json", EXIT_CASE_ERROR,
            "wall-clock limit of 1 s", flags=("--timeout", "1", "--no-fullgraph-check"))
    assert time.monotonic() - began < 20


def test_the_command_line_itself_exits_2_without_a_compiler(dump_root, tmp_path):
    """`python -m reference.python.compiled` in its own process, CXX naming no
    compiler (Inductor reads it at import): exit 2, one line, no record."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "CXX": "/nonexistent/bin/c++"}
    p = subprocess.run([sys.executable, "-m", "reference.python.compiled", str(dump_root / "plain_mlp_fp32_sgd"),
                        "--out", str(tmp_path / "r.json")], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert p.returncode == EXIT_BAD_INPUT and not (tmp_path / "r.json").exists(), p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith(PREFIX + "no C++ compiler for Inductor")
    assert "/nonexistent/bin/c++" in p.stderr and "Traceback" not in p.stderr


WATCHDOG = """
import signal, time
from reference.python.compiled import guard
guard.GRACE_S = 0.5
with guard.wall_clock_limit(0.5, "prog"):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # as a C call that never returns to Python
    time.sleep(30)
"""


def test_the_watchdog_ends_a_run_the_alarm_cannot_reach():
    import subprocess
    import sys

    began = time.monotonic()
    p = subprocess.run([sys.executable, "-c", WATCHDOG], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == EXIT_CASE_ERROR and time.monotonic() - began < 20, p.stderr
    assert "wall-clock limit of 0.5 s" in p.stderr and "watchdog" in p.stderr and "Traceback" not in p.stderr
