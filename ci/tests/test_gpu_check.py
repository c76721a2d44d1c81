"""ci/gpu-check.sh's time plan: the stages run in order, a slow stage is cut
at its cap or where the later stages' floors begin, and those still run."""
import os
import pathlib
import re
import subprocess

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "gpu-check.sh"
ORDER = ["deps", "configure", "build", "env", "distributed", "ctest", "autocast", "fp8", "qualify", "large", "architectures",
         "compare", "targets", "bench", "archive"]


def gpu_check(tmp_path, *args, **env):
    full = {**os.environ, "AMPBENCH_GPU_WORK": str(tmp_path / "work"), "OUT": str(tmp_path / "out"), **env}
    return subprocess.run(["bash", str(SCRIPT), *args], env=full, capture_output=True, text=True, timeout=120)


def stage_lines(stderr):
    return [line.split()[1:3] for line in stderr.splitlines() if line.startswith("gpu-check: ")][1:]


def test_dry_run_lists_every_stage_in_order_with_its_cap_and_floor(tmp_path):
    r = gpu_check(tmp_path, "--dry-run")
    assert r.returncode == 0, r.stderr
    names = [n for n, _ in stage_lines(r.stderr) if n != "end"]
    assert names == ORDER
    assert "qualify dry-run: cap 220 s, floor 80 s: run_qualify" in r.stderr


def test_floors_over_the_budget_are_refused_before_anything_runs(tmp_path):
    r = gpu_check(tmp_path, "--dry-run", AMPBENCH_GPU_CHECK_BUDGET_S="300")
    assert r.returncode == 2
    assert "floors add up to 453 s, over the 300 s budget" in r.stderr
    assert "dry-run" not in r.stderr


def fake_build(tmp_path):
    """An ampbench whose `run` never ends and whose `env` writes 4 MB (an
    archive of that takes long enough for tar to notice its own growth), and
    micro-benchmarks that write their JSON."""
    build = tmp_path / "build"
    for rel, body in {"ampbench": 'case "$1" in run) sleep 60;; *) head -c 3000000 /dev/urandom | base64;; esac',
                      "harness/amp/amp_bench": 'echo ok',
                      "kernels/kernels_bench": 'echo ok',
                      "suites/micro/harness_overhead_bench": 'echo ok'}.items():
        path = build / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/usr/bin/env bash\n{body}\n")
        path.chmod(0o755)
    return build


def test_a_stage_that_overruns_is_cut_where_the_later_floors_begin(tmp_path):
    # distributed may take 20 s by its cap, but the floors of bench (8 s) and
    # the archive (6 s) leave it 23 - 14 = 9 s; bench then runs in what is left.
    # The script refuses to start a stage with 5 s or less: 9 s leaves a busy
    # machine 3 s to reach the stage (with a 20 s budget, one late second
    # left 5 and the stage was not run at all).
    r = gpu_check(tmp_path, AMPBENCH_GPU_CHECK_DEVICE="cpu", AMPBENCH_GPU_CHECK_BUDGET_S="23",
                  AMPBENCH_GPU_CHECK_STAGES="distributed,bench,archive",
                  AMPBENCH_GPU_CHECK_PLAN="distributed:20:1 bench:10:8 archive:30:6",
                  AMPBENCH_GPU_BUILD_DIR=str(fake_build(tmp_path)))
    assert r.returncode == 1, r.stderr
    status = dict(stage_lines(r.stderr))
    # 9 s when the stage starts in the script's first second, less on a busy
    # machine where it starts later: never its own 20 s cap.
    cut = re.search(r"timed out after (\d+) s", r.stderr)
    assert status["distributed"] == "FAIL" and cut and 6 <= int(cut.group(1)) <= 9, r.stderr
    assert status["bench"] == "ok" and status["archive"] == "ok"
    assert (tmp_path / "out" / "ampbench-gpu-check.tar.gz").exists()


def test_the_archive_is_written_when_out_is_the_work_folder(tmp_path):
    # Without $OUT the archive lands in the folder it packs: it must not pack itself.
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    env.update(AMPBENCH_GPU_WORK=str(tmp_path / "work"), AMPBENCH_GPU_CHECK_DEVICE="cpu",
               AMPBENCH_GPU_CHECK_STAGES="env,archive", AMPBENCH_GPU_BUILD_DIR=str(fake_build(tmp_path)))
    r = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    listing = subprocess.run(["tar", "-tzf", str(tmp_path / "work" / "ampbench-gpu-check.tar.gz")],
                             capture_output=True, text=True, check=True).stdout.split()
    assert "work/env.json" in listing and "work/gpu-check-summary.txt" in listing
    assert not any(name.endswith(".tar.gz") for name in listing)
