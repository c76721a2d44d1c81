"""ci/build-times.py: the last ninja invocation of a log, its wall time, the
sum of its jobs and the slowest first."""
import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "build-times.py"
spec = importlib.util.spec_from_file_location("build_times", SCRIPT)
build_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_times)

T0 = 1_800_000_000_000  # an invocation's start, in wall-clock milliseconds


def entry(start, end, output, origin=T0, written_early_ms=0):
    mtime_ns = (origin + end - written_early_ms) * 1_000_000
    return f"{start}\t{end}\t{mtime_ns}\t{output}\tabc"


def write_log(tmp_path, entries):
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v6\n" + "\n".join(entries) + "\n")
    return log


def test_the_last_invocation_even_when_it_ends_later_than_the_one_before(tmp_path):
    log = write_log(tmp_path, [
        entry(0, 1000, "a.o"), entry(0, 1500, "b.o"), entry(1500, 3000, "app"),  # a cold build
        # 13 s later: one file edited, its job ending after the previous build's last end
        entry(30, 11000, "a.o", origin=T0 + 16000), entry(11000, 12800, "app", origin=T0 + 16000),
    ])
    jobs = build_times.read_log(log)
    assert sorted(o for _, _, o in jobs) == ["a.o", "app"]
    text = build_times.summary(jobs, 1)
    assert text.splitlines()[0] == "wall 13 s, sum of jobs 13 s, 2 jobs"
    assert text.splitlines()[2].split() == ["11.0", "a.o"]


def test_an_output_written_seconds_before_its_job_ends_stays_in_its_invocation(tmp_path):
    # ccache stores a precompiled header after the compiler wrote it.
    log = write_log(tmp_path, [entry(0, 4000, "x.o"), entry(0, 41000, "pch.gch", written_early_ms=2900),
                               entry(41000, 50000, "y.o")])
    assert len(build_times.read_log(log)) == 3


def test_a_file_that_is_not_a_ninja_log_is_refused(tmp_path):
    bad = tmp_path / "build"
    bad.mkdir()
    (bad / ".ninja_log").write_text("hello\n")
    assert build_times.main([str(bad)]) == 2


def test_a_top_below_one_exits_2(tmp_path, capsys):
    log = write_log(tmp_path, [entry(0, 1000, "a.o")])
    try:
        build_times.main([str(log.parent), "--top", "0"])
        raise AssertionError("--top 0 was accepted")
    except SystemExit as stop:
        assert stop.code == 2
    assert "--top 0: must be at least 1" in capsys.readouterr().err


def test_a_reader_that_stops_early_is_no_error(tmp_path):
    import subprocess
    import sys
    # More than a pipe holds (64 KiB), so the script is still writing when `head` leaves.
    log = write_log(tmp_path, [entry(0, 10 * i, f"harness/CMakeFiles/layer.dir/{i:06d}.cpp.o") for i in range(1, 5000)])
    p = subprocess.run(f"'{sys.executable}' '{SCRIPT}' '{log.parent}' --top 5000 | head -n 1", shell=True,
                       capture_output=True, text=True)
    assert p.stdout.startswith("wall ") and "error" not in p.stderr, p.stderr
