"""ci/ctest-times.py on CTest's own console lines: the totals, the longest
tests, every test that did not pass (however CTest words it), exit 2 on a
file with no result."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "ctest-times.py"

LOG = """Test project /tmp/clone/build
        Start 194: cli.convergence_ci_suite_conforms
  1/5 Test #194: cli.convergence_ci_suite_conforms .........   Passed  200.75 sec
  2/5 Test   #8: pytest.ci .................................***Failed   16.06 sec
  3/5 Test  #10: history.twenty_real_runs ..................***Timeout 600.02 sec
  4/5 Test  #77: Fuzz.* ....................................***Exception: SegFault  0.51 sec
  5/5 Test #228: TempDir.* .................................   Passed    0.01 sec

40% tests passed, 3 tests failed out of 5

Total Test time (real) = 771.39 sec
"""


def run(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(path), *args], capture_output=True, text=True,
                          timeout=60)


def test_totals_longest_and_every_failure(tmp_path):
    log = tmp_path / "test.log"
    log.write_text(LOG)
    p = run(log, "--top", "2")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "CTest: 5 tests, 817 s of them, 771 s wall",
        "   600.0  history.twenty_real_runs",
        "   200.8  cli.convergence_ci_suite_conforms",
        "not passed: pytest.ci (Failed, 16.1 s)",
        "not passed: history.twenty_real_runs (Timeout, 600.0 s)",
        "not passed: Fuzz.* (Exception: SegFault, 0.5 s)",
    ]


def test_a_run_cut_short_says_it_has_no_total(tmp_path):
    log = tmp_path / "test.log"
    log.write_text("\n".join(LOG.splitlines()[:4]) + "\n")
    p = run(log)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "CTest: 2 tests, 217 s of them, no total (the run did not finish)"


def test_a_top_below_one_exits_2(tmp_path):
    log = tmp_path / "test.log"
    log.write_text(LOG)
    p = run(log, "--top", "0")
    assert p.returncode == 2 and p.stdout == "" and "--top 0: must be at least 1" in p.stderr, p


def test_no_ctest_result_or_no_file_exits_2(tmp_path):
    empty = tmp_path / "build.log"
    empty.write_text("build: error: cmake configure failed\n")
    for path in (empty, tmp_path / "missing.log"):
        p = run(path)
        assert p.returncode == 2 and p.stdout == "", p
        assert p.stderr.startswith(f"ctest-times: error: {path}: "), p.stderr
