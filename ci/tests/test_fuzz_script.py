"""ci/fuzz.sh refuses what it cannot run with exit 2 and a line naming why,
before it builds or runs anything: a SECONDS that is not a number, a target
that does not exist, a build folder configured without clang (which has no
fuzz targets)."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
FUZZ = ROOT / "ci" / "fuzz.sh"


def run(*args, build=None):
    env = dict(os.environ)
    env.pop("AMPBENCH_TORCH", None)
    if build is not None:
        env["AMPBENCH_BUILD_DIR"] = str(build)
    return subprocess.run([str(FUZZ), *args], capture_output=True, text=True, env=env, timeout=60)


def test_seconds_must_be_a_whole_number():
    p = run("ten")
    assert p.returncode == 2, p.stderr
    assert "SECONDS must be a whole number, got 'ten'" in p.stderr


def test_an_unknown_target_is_named():
    p = run("1", "fuzz_gate")
    assert p.returncode == 2, p.stderr
    assert "unknown target 'fuzz_gate'" in p.stderr


def test_a_gcc_build_has_no_fuzz_targets(tmp_path):
    (tmp_path / "build.ninja").write_text("build ampbench: CXX_EXECUTABLE_LINKER__ampbench\n")
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/g++\n")
    for args in (("1",), ("--no-build", "1", "fuzz_filter")):
        p = run(*args, build=tmp_path)
        assert p.returncode == 2, p.stderr
        assert "has no fuzz targets: they need a clang build" in p.stderr
        assert "/usr/bin/g++" in p.stderr
