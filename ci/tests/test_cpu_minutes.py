"""ci/cpu-minutes.sh on a stand-in repository (AMPBENCH_MINUTES_SOURCE): a
git repository whose `./ampbench`, `ci/test.sh` and `ci/build-times.py`
only print and exit as told, so the script's own part runs in a second:
the fresh clone, the empty ccache, each command timed with its exit status
in minutes.md, a failure kept and reported (exit 1), bad usage (exit 2)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "cpu-minutes.sh"

STAND_INS = {
    "ampbench": '#!/bin/sh\necho "ampbench $* with CCACHE_DIR=$CCACHE_DIR"\nexit "${FAKE_RUN_EXIT:-0}"\n',
    "ci/test.sh": '#!/bin/sh\necho "all tests"\nexit "${FAKE_TEST_EXIT:-0}"\n',
    "ci/build-times.py": '#!/usr/bin/env python3\nprint("wall 12.0 s, 34 jobs")\n',
    "ci/ctest-times.py": '#!/usr/bin/env python3\nimport sys\nprint("CTest of", sys.argv[1])\n',
}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("standin")
    for name, text in STAND_INS.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "stand-ins"], check=True)
    return repo


def minutes(source: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "AMPBENCH_MINUTES_SOURCE": str(source), **env})


def test_each_command_is_timed_in_a_fresh_clone_with_an_empty_ccache(source, tmp_path):
    out = tmp_path / "out"
    p = minutes(source, str(out))
    assert p.returncode == 0, p.stderr
    text = (out / "minutes.md").read_text()
    # A stand-in takes well under a second, whole seconds may tick between.
    assert re.search(r"^\| `\./ampbench run` \| 0m0\ds \| exit 0, \[run\.log\]\(run\.log\) \|$", text, re.M), text
    assert re.search(r"^\| `ci/test\.sh` \| 0m0\ds \| exit 0, \[test\.log\]\(test\.log\) \|$", text, re.M), text
    assert "wall 12.0 s, 34 jobs" in text and "flags: " in text
    # The generation beside the name: "AMD EPYC" is Zen 4 and Zen 5 alike under a hypervisor.
    assert re.search(r"^- CPU: .+ \((\S+ family \d+ model \d+|generation not read)\), \d+ cores;", text, re.M), text
    assert f"CTest of {out}/test.log" in text, "where CTest's time went"
    commit = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    assert f"commit {commit}, a fresh clone, ccache empty (CCACHE_DIR={out}/ccache)" in text
    assert (out / "run.log").read_text() == f"ampbench run with CCACHE_DIR={out}/ccache\n"
    assert (out / "clone" / ".git").is_dir()


def test_a_failing_command_is_reported_and_the_rest_still_measured(source, tmp_path):
    out = tmp_path / "out"
    p = minutes(source, str(out), FAKE_RUN_EXIT="3")
    assert p.returncode == 1
    text = (out / "minutes.md").read_text()
    assert re.search(r"^\| `\./ampbench run` \| 0m0\ds \| exit 3, \[run\.log\]", text, re.M), text
    assert re.search(r"^\| `ci/test\.sh` \| 0m0\ds \| exit 0", text, re.M), text


def test_no_test_stops_after_the_run(source, tmp_path):
    out = tmp_path / "out"
    assert minutes(source, str(out), "--no-test").returncode == 0
    text = (out / "minutes.md").read_text()
    assert "ci/test.sh" not in text and "CTest" not in text and not (out / "test.log").exists()


@pytest.mark.parametrize("args,message", [
    ([], "usage: ci/cpu-minutes.sh OUT"),
    (["--no-test"], "usage: ci/cpu-minutes.sh OUT"),
    (["{out}", "--fast"], "unknown option '--fast'"),
    (["{full}"], "is not empty; give a new folder"),
    (["{file}"], "is not a folder"),
])
def test_bad_usage_exits_2_before_anything_is_cloned(source, tmp_path, args, message):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("a user's file")
    (tmp_path / "file").write_text("")
    names = {"out": tmp_path / "out", "full": tmp_path / "full", "file": tmp_path / "file"}
    p = minutes(source, *[a.format(**names) for a in args])
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()
    assert sorted(os.listdir(tmp_path / "full")) == ["mine.txt"]
