"""run_crosscheck.sh's bad input: exit 2 with one line naming the problem,
before anything runs (no binary is needed to reach these refusals but the
first's)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "run_crosscheck.sh"


def run(tmp_path, build, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), str(build), str(tmp_path / "out")], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("var,value,expected", [
    ("AMPBENCH_CROSSCHECK_BITWISE", "yes", "AMPBENCH_CROSSCHECK_BITWISE='yes' (expected 0 or 1)"),
    ("AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING", "2", "AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING='2' (expected 0 or 1)"),
    ("AMPBENCH_CROSSCHECK_THREADS", "0", "AMPBENCH_CROSSCHECK_THREADS='0' (expected a positive integer)"),
    ("AMPBENCH_CROSSCHECK_THREADS", "two", "AMPBENCH_CROSSCHECK_THREADS='two' (expected a positive integer)"),
])
def test_a_bad_setting_is_refused_by_name(tmp_path, var, value, expected):
    p = run(tmp_path, tmp_path, **{var: value})
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip() == f"run_crosscheck: error: {expected}"
    assert not (tmp_path / "out").exists()


def test_no_binary_is_refused(tmp_path):
    p = run(tmp_path, tmp_path / "nowhere", AMPBENCH_CROSSCHECK_BITWISE="1")
    assert p.returncode == 2 and "ampbench is not an executable" in p.stderr, p.stderr


def test_wrong_arguments_print_the_usage(tmp_path):
    p = subprocess.run(["bash", str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("usage: "), p.stderr
