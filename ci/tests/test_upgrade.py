"""./ampbench upgrade (ci/upgrade.sh) at the shell level, nothing built or
downloaded: the refusals come before any provisioning, and with
AMPBENCH_UPGRADE_OLD_BIN / _NEW_BIN pointing at stand-in binaries (bash
scripts that answer `list`, `run` and `gate` the way ampbench does) the
whole chain runs: rounds, gate, report, exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reference.python.tests.results_samples import case_doc, results_doc

ROOT = Path(__file__).resolve().parents[2]


def upgrade(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if not k.startswith("AMPBENCH_")}
    e.update(AMPBENCH_HOME=str(home), AMPBENCH_PYTHON=sys.executable, **env)
    return subprocess.run(["./ampbench", "upgrade", *args], cwd=ROOT, env=e, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("args,reason", [
    (["--from", "2.11.0", "--to", "2.11.0"], "both sides are torch 2.11.0"),
    (["--from", "2.10.0", "--to", "2.15.0"], "torch 2.10.0 is outside the supported window"),
    (["--from", "2.11.0", "--to", "latest"], "'latest' is not a release number"),
    (["--from", "2.11.0"], "usage"),
    (["--from", "2.11.0", "--to", "2.15.0", "--pairs", "5"], "--pairs must be an integer >= 6"),
    (["--from", "2.11.0", "--to", "2.15.0", "--pairs"], "--pairs needs a value"),
    (["--from", "2.11.0", "--to", "2.15.0", "--filter", "x"], "unknown argument '--filter'"),
    (["--from", "2.11.0", "--to", "2.15.0", "--suite", "smoke", "--", "--suite", "large"], "two suites given"),
])
def test_refused_with_exit_2_before_anything_is_provisioned(tmp_path, args, reason):
    p = upgrade(tmp_path, *args, "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and reason in p.stderr, p.stderr
    assert not (tmp_path / "venv").exists() and not list(tmp_path.glob("torch-*/venv"))
    assert not (tmp_path / "out").exists()


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
       slow="$(arg --inject-slowdown "$@")"
       sed -e "s/@SPEED@/$(awk -v s="${slow:-0}" 'BEGIN { printf "%.3f", 100 / (1 + s) }')/g" \
         @TEMPLATE@ >"$out/results.json" ;;
  gate) junit="$(arg --junit "$@")"; echo '<testsuite/>' >"$junit" ;;
  *) echo "fake ampbench: $1 not supported" >&2; exit 1 ;;
esac
"""


def fake_binary(tmp_path: Path, version: str) -> str:
    doc = results_doc([case_doc("plain/mlp/fp16/sgd", throughput={"median": 1.0})])
    doc["env"]["libtorch_version"] = version
    text = json.dumps(doc).replace('"median": 1.0', '"median": @SPEED@').replace(
        '"samples_per_s": [1.0]', '"samples_per_s": [@SPEED@]').replace('"min": 1.0, "max": 1.0',
                                                                         '"min": @SPEED@, "max": @SPEED@')
    template = tmp_path / f"template-{version}.json"
    template.write_text(text)
    binary = tmp_path / f"ampbench-{version}"
    binary.write_text(FAKE.replace("@VERSION@", version).replace("@TEMPLATE@", str(template)))
    binary.chmod(0o755)
    return str(binary)


def with_fakes(tmp_path, *args):
    return upgrade(tmp_path, "--from", "2.11.0", "--to", "2.15.0", "--pairs", "6", *args,
                   AMPBENCH_UPGRADE_OLD_BIN=fake_binary(tmp_path, "2.11.0"),
                   AMPBENCH_UPGRADE_NEW_BIN=fake_binary(tmp_path, "2.15.0"))


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

    # Run again into the same folder: an earlier upgrade's output is replaced.
    p = with_fakes(tmp_path, "--out", str(out), "--current-args", "--inject-slowdown 0.5", "--", "--device", "cpu")
    assert p.returncode == 1, p.stderr
    assert "FAIL: 1 throughput regression(s): plain/mlp/fp16/sgd -33.3% [-33.3%, -33.3%] over 6 pairs" in p.stdout
