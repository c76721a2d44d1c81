"""./ampbench upgrade (ci/upgrade.sh) at the shell level, nothing built or
downloaded: the refusals come before any provisioning, and with
AMPBENCH_UPGRADE_OLD_BIN / _NEW_BIN pointing at stand-in binaries (bash
scripts that answer `list`, `run` and `gate` the way ampbench does) the
whole chain runs: rounds, gate, report, exit status."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reference.python.tests.results_samples import case_doc, results_doc

ROOT = Path(__file__).resolve().parents[2]


def upgrade_env(home: Path, **env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith("AMPBENCH_")}
    e.update(AMPBENCH_HOME=str(home), AMPBENCH_PYTHON=sys.executable, **env)
    return e


def upgrade(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["./ampbench", "upgrade", *args], cwd=ROOT, env=upgrade_env(home, **env),
                          capture_output=True, text=True, timeout=300)


# Refusal tests name binaries that do not exist: should a check be missing,
# the command stops there instead of provisioning a torch (gigabytes).
NO_BINARIES = {"AMPBENCH_UPGRADE_OLD_BIN": "/nonexistent/old", "AMPBENCH_UPGRADE_NEW_BIN": "/nonexistent/new"}


@pytest.mark.parametrize("args,reason", [
    (["--from", "2.11.0", "--to", "2.11.0"], "both sides are torch 2.11.0"),
    (["--from", "2.10.0", "--to", "2.15.0"], "torch 2.10.0 is outside the supported window"),
    (["--from", "2.11.0", "--to", "latest"], "'latest' is not a release number"),
    (["--from", "2.11.0"], "usage"),
    (["--from", "2.11.0", "--to", "2.15.0", "--pairs", "5"], "--pairs must be a decimal integer from 6 to 1000"),
    (["--from", "2.11.0", "--to", "2.15.0", "--pairs"], "--pairs needs a value"),
    (["--from", "2.11.0", "--to", "2.15.0", "--filter", "x"], "unknown argument '--filter'"),
    (["--from", "2.11.0", "--to", "2.15.0", "--suite", "smoke", "--", "--suite", "large"], "two suites given"),
])
def test_refused_with_exit_2_before_anything_is_provisioned(tmp_path, args, reason):
    p = upgrade(tmp_path, *args, "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and reason in p.stderr, p.stderr
    assert not (tmp_path / "venv").exists() and not list(tmp_path.glob("torch-*/venv"))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("pairs", ["1001", "99999999999999999999", "18446744073709551622", "0x10", "+12", "1e3",
                                   "12 ", "\u0661\u0662", "000"])
def test_pairs_must_be_decimal_and_at_most_1000(tmp_path, pairs):
    p = upgrade(tmp_path, "--from", "2.11.0", "--to", "2.15.0", "--pairs", pairs, "--out", str(tmp_path / "out"),
                **NO_BINARIES)
    assert p.returncode == 2, p.stderr
    assert p.stderr == (f"upgrade: error: --pairs must be a decimal integer from 6 to 1000 (fewer pairs cannot "
                        f"reach p < 0.05), got '{pairs}'\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flag", ["--from", "--to", "--suite", "--out", "--pairs"])
def test_an_empty_value_is_refused_not_taken_for_the_default(tmp_path, flag):
    args = {"--from": "2.11.0", "--to": "2.15.0", "--out": str(tmp_path / "out")}
    args[flag] = ""
    p = upgrade(tmp_path, *[x for kv in args.items() for x in kv], **NO_BINARIES)
    assert p.returncode == 2 and f"upgrade: error: {flag} needs a value, got ''" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


def test_help_lists_every_flag_and_the_exit_codes(tmp_path):
    p = upgrade(tmp_path, "--help")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    for flag in ("--from", "--to", "--suite", "--pairs", "--out", "--current-args", "--rehearsal", "--help",
                 "AMPBENCH_UPGRADE_OLD_BIN"):
        assert flag in p.stdout, flag
    assert "6 to 1000" in p.stdout
    codes = p.stdout.split("Exit status:")[1]
    for code in ("0 ", "1 ", "2 ", "128+N"):
        assert f"\n  {code}" in codes, code


def test_a_users_folder_is_never_overwritten(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    p = upgrade(tmp_path, "--from", "2.11.0", "--to", "2.15.0", "--out", str(mine))
    assert p.returncode == 2 and "is not an earlier upgrade output; not overwritten" in p.stderr
    assert [x.name for x in mine.iterdir()] == ["notes.txt"] and (mine / "notes.txt").read_text() == "keep me"
    assert not (tmp_path / "venv").exists()


FAKE = r"""#!/usr/bin/env bash
# A stand-in ampbench of torch @VERSION@: list, run and gate, nothing else.
arg() { local want="$1"; shift; while [[ $# -gt 0 ]]; do [[ "$1" == "$want" ]] && { echo "$2"; return; }; shift; done; }
case "$1" in
  list) [[ "$(arg --suite "$@")" == smoke ]] || { echo "ampbench: error: no suite named $(arg --suite "$@")" >&2; exit 2; } ;;
  run) out="$(arg --out "$@")"; mkdir -p "$out"
       # FAKE_RUN_STARTED: say so and run until stopped; FAKE_RUN_FAILS: no results.
       [[ -z "${FAKE_RUN_STARTED:-}" ]] || { touch "$FAKE_RUN_STARTED"; sleep 120; }
       [[ -z "${FAKE_RUN_FAILS:-}" ]] || { echo "ampbench: error: boom" >&2; exit 3; }
       slow="$(arg --inject-slowdown "$@")"; flip="$(arg --inject-bitflip "$@")"
       faults="${slow:+\"injected_slowdown\": $slow, }${flip:+\"injected_bitflip_step\": $flip, }"
       sed -e "s/@SPEED@/$(awk -v s="${slow:-0}" 'BEGIN { printf "%.3f", 100 / (1 + s) }')/g" \
           -e "s/@FAULTS@/$faults/" @TEMPLATE@ >"$out/results.json" ;;
  # As the real gate: a run made with a fault switch only under --rehearsal.
  gate) rehearsal=""; for a in "$@"; do [[ "$a" == --rehearsal ]] && rehearsal=1; done
        for a in "$@"; do
          [[ "$a" != *results.json || -n "$rehearsal" ]] || ! grep -q injected_ "$a" \
            || { echo "ampbench gate: error: $a: was made with a test-only fault switch" >&2; exit 2; }
        done
        echo '<testsuite/>' >"$(arg --junit "$@")"; echo "gate of $*" >"$(arg --markdown "$@")" ;;
  *) echo "fake ampbench: $1 not supported" >&2; exit 1 ;;
esac
"""


def fake_binary(tmp_path: Path, version: str) -> str:
    doc = results_doc([case_doc("plain/mlp/fp16/sgd", throughput={"median": 1.0})])
    doc["env"]["libtorch_version"] = version
    text = json.dumps(doc).replace('"median": 1.0', '"median": @SPEED@').replace(
        '"samples_per_s": [1.0]', '"samples_per_s": [@SPEED@]').replace('"min": 1.0, "max": 1.0',
                                                                         '"min": @SPEED@, "max": @SPEED@').replace(
        '"libtorch_version"', '@FAULTS@"libtorch_version"')
    template = tmp_path / f"template-{version}.json"
    template.write_text(text)
    binary = tmp_path / f"ampbench-{version}"
    binary.write_text(FAKE.replace("@VERSION@", version).replace("@TEMPLATE@", str(template)))
    binary.chmod(0o755)
    return str(binary)


def fakes(tmp_path) -> dict:
    return {"AMPBENCH_UPGRADE_OLD_BIN": fake_binary(tmp_path, "2.11.0"),
            "AMPBENCH_UPGRADE_NEW_BIN": fake_binary(tmp_path, "2.15.0")}


def with_fakes(tmp_path, *args, **env):
    return upgrade(tmp_path, "--from", "2.11.0", "--to", "2.15.0", "--pairs", "6", *args, **{**fakes(tmp_path), **env})


def test_a_suite_one_side_cannot_load_is_refused_before_any_round(tmp_path):
    out = tmp_path / "out"
    p = with_fakes(tmp_path, "--suite", "nosuch", "--out", str(out))
    assert p.returncode == 2 and "torch 2.11.0's ampbench cannot load suite 'nosuch'" in p.stderr, p.stderr
    assert not (out / "runs").exists()


def test_rounds_gate_and_report_end_to_end_with_stand_in_binaries(tmp_path):
    out = tmp_path / "out"
    p = with_fakes(tmp_path, "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("upgrade 2.11.0 -> 2.15.0 (smoke, 6 rounds): PASS")
    assert len(list(out.glob("runs/base-*/results.json"))) == 6 == len(list(out.glob("runs/cur-*/results.json")))
    md = (out / "upgrade.md").read_text()
    assert "policy was not compared" in md and (out / "upgrade.xml").exists() and (out / "html/index.html").exists()
    # The gate read the staged rounds; its report names them where they now are.
    gate = (out / "gate.md").read_text()
    assert f"{out}/runs/base-01/results.json" in gate and ".ampbench-incoming" not in gate
    assert not (out / ".ampbench-incoming").exists() and not (out / ".ampbench-outgoing").exists()

    # Run again into the same folder: an earlier upgrade's output is replaced.
    p = with_fakes(tmp_path, "--out", str(out), "--rehearsal", "--current-args", "--inject-slowdown 0.5",
                   "--", "--device", "cpu")
    assert p.returncode == 1, p.stderr
    assert "FAIL: 1 throughput regression(s): plain/mlp/fp16/sgd -33.3% [-33.3%, -33.3%] over 6 pairs" in p.stdout
    assert sorted(x.name for x in out.iterdir()) == [
        ".ampbench-upgrade", "autocast-2.11.0.log", "autocast-2.15.0.log", "gate.md", "gate.txt", "gate.xml", "html",
        "runs", "suite-check-2.11.0.log", "suite-check-2.15.0.log", "upgrade.md", "upgrade.xml"]


# -- an earlier upgrade's output survives whatever stops the next one -----------------

@pytest.fixture(scope="module")
def previous(tmp_path_factory) -> Path:
    """A folder holding an earlier upgrade's complete output."""
    home = tmp_path_factory.mktemp("previous")
    p = with_fakes(home, "--out", str(home / "out"))
    assert p.returncode == 0, p.stderr
    return home / "out"


def snapshot(folder: Path) -> dict:
    """Every path under `folder` with its bytes, the staging folder aside."""
    return {str(x.relative_to(folder)): x.read_bytes() if x.is_file() else None
            for x in sorted(folder.rglob("*")) if x.relative_to(folder).parts[0] != ".ampbench-incoming"}


def earlier_output(previous: Path, tmp_path: Path) -> tuple:
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    return out, snapshot(out)


@pytest.mark.parametrize("breakage,reason", [
    ("no binary", "/nonexistent/new: not an executable ampbench (torch 2.15.0)"),
    ("suite", "torch 2.11.0's ampbench cannot load suite 'nosuch'"),
    ("rounds", "the rounds gave no usable results"),
    ("report", "ran torch 2.14.1, not 2.15.0"),
    ("fault switch", "--inject-slowdown is a test-only fault switch"),
])
def test_a_refused_or_failed_upgrade_leaves_the_earlier_output_whole(tmp_path, previous, breakage, reason):
    out, before = earlier_output(previous, tmp_path)
    args, env = ["--out", str(out)], {}
    if breakage == "no binary":
        env["AMPBENCH_UPGRADE_NEW_BIN"] = "/nonexistent/new"
    elif breakage == "suite":
        args += ["--suite", "nosuch"]
    elif breakage == "rounds":
        env["FAKE_RUN_FAILS"] = "1"
    elif breakage == "report":
        env["AMPBENCH_UPGRADE_NEW_BIN"] = fake_binary(tmp_path, "2.14.1")  # says it ran another torch
    else:
        args += ["--current-args", "--inject-slowdown 0.2"]
    p = with_fakes(tmp_path, *args, **env)
    assert p.returncode == 2 and reason in p.stderr, p.stderr
    assert snapshot(out) == before


def test_an_earlier_output_left_aside_mid_swap_is_refused_untouched(tmp_path, previous):
    """A machine that died in the swap itself left the earlier output in
    .ampbench-outgoing: its owner decides, not the next upgrade."""
    out, _ = earlier_output(previous, tmp_path)
    (out / ".ampbench-outgoing").mkdir()
    (out / ".ampbench-outgoing/upgrade.md").write_text("the earlier verdict")
    before = snapshot(out)
    p = with_fakes(tmp_path, "--out", str(out))
    assert p.returncode == 2 and f"{out}/.ampbench-outgoing holds the output an earlier upgrade was replacing" in p.stderr
    assert snapshot(out) == before and not (out / ".ampbench-incoming").exists()


def test_a_stopped_upgrade_leaves_the_earlier_output_whole(tmp_path, previous):
    out, before = earlier_output(previous, tmp_path)
    started = tmp_path / "started"
    env = upgrade_env(tmp_path, **fakes(tmp_path), FAKE_RUN_STARTED=str(started))
    proc = subprocess.Popen(["./ampbench", "upgrade", "--from", "2.11.0", "--to", "2.15.0", "--pairs", "6",
                             "--out", str(out)], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "no round started"
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=60) != 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert snapshot(out) == before


# -- runs made with a fault switch ------------------------------------------------------

@pytest.mark.parametrize("args,switch", [
    (["--current-args", "--inject-slowdown 0.2"], "--inject-slowdown"),
    (["--", "--inject-bitflip", "3"], "--inject-bitflip"),
    (["--", "--inject-slowdown=0.2"], "--inject-slowdown"),
])
def test_a_fault_switch_is_refused_before_anything_runs_unless_a_rehearsal(tmp_path, args, switch):
    out = tmp_path / "out"
    p = with_fakes(tmp_path, "--out", str(out), *args)
    assert p.returncode == 2, p.stderr
    assert p.stderr == (f"upgrade: error: {switch} is a test-only fault switch: its runs are no measurement of "
                        f"torch 2.15.0; pass --rehearsal to rehearse the verdict\n")
    assert not out.exists()


def test_a_rehearsal_runs_and_its_verdict_says_it_is_one(tmp_path):
    out = tmp_path / "out"
    p = with_fakes(tmp_path, "--out", str(out), "--rehearsal", "--current-args", "--inject-slowdown 0.5")
    assert p.returncode == 1, p.stderr
    assert p.stdout.startswith("upgrade 2.11.0 -> 2.15.0 (smoke, 6 rounds, a REHEARSAL: not a measurement): FAIL")
    md = (out / "upgrade.md").read_text()
    assert "rehearsal (--rehearsal): this verdict rehearses the upgrade gate and measures nothing; 6 run(s)" in md
    assert "(rehearsal)" in (out / "upgrade.xml").read_text()


# -- --pairs is read as a decimal -------------------------------------------------------

@pytest.mark.parametrize("pairs,rounds", [("010", 10), ("08", 8)])
def test_pairs_with_a_leading_zero_are_decimal(tmp_path, pairs, rounds):
    out = tmp_path / "out"
    p = upgrade(tmp_path, "--from", "2.11.0", "--to", "2.15.0", "--pairs", pairs, "--out", str(out), **fakes(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"upgrade 2.11.0 -> 2.15.0 (smoke, {rounds} rounds): PASS")
    assert len(list(out.glob("runs/base-*/results.json"))) == rounds
