"""reports.fleet against hostile or mistaken input: a user's folder as --out,
an --out it cannot write, trees built to break the walk, an --expect that is
no list, ids made to break the figure or the JUnit, runs that are no
measurement. Each gets one line and a documented exit, never a traceback,
and nothing of the user's is changed (docs/bad-input.md)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import pytest

from reports.fleet import main
from reports.fleet_discovery import FLEET_MARKER, MAX_SEARCH_DEPTH
from reports.tests.sample_fleet import machine_doc, write_fleet


def healthy(n) -> dict:
    return {f"node-{i:03d}": machine_doc(f"node-{i:03d}") for i in range(n)}


def one_line_error(capsys, *pieces) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("reports.fleet: error: ") and "Traceback" not in err, err
    assert all(p in err for p in pieces), err
    return err


def snapshot(folder) -> dict:
    """Every file below folder: its bytes and modification time."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def report_of(out) -> dict:
    def refuse(token):
        raise ValueError(f"fleet.json holds {token}, which is not JSON")
    return json.loads((out / "fleet.json").read_text(), parse_constant=refuse)


# -- --out -----------------------------------------------------------------------

def test_a_users_folder_is_refused_and_left_as_it_was(tmp_path, capsys):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "index.html").write_text("my own page")
    (mine / "fleet.json").write_text('{"mine": true}')
    before = snapshot(mine)
    assert main([fleet, "--out", str(mine)]) == 2
    one_line_error(capsys, str(mine), "holds files ampbench did not write")
    assert snapshot(mine) == before and sorted(os.listdir(mine)) == ["fleet.json", "index.html"]


def test_an_empty_folder_is_taken_and_marked_and_a_marked_one_replaced(tmp_path):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    out = tmp_path / "out"
    out.mkdir()
    assert main([fleet, "--out", str(out)]) == 0
    assert (out / FLEET_MARKER).is_file() and report_of(out)["counts"]["accept"] == 3
    write_fleet(tmp_path / "fleet", {"node-new": machine_doc("node-new")})
    assert main([fleet, "--out", str(out)]) == 0
    assert report_of(out)["counts"]["accept"] == 4
    assert sorted(os.listdir(out)) == sorted([FLEET_MARKER, "fleet.json", "fleet-junit.xml", "index.html",
                                              "fleet-machines-by-cases.png"])


def test_a_rerun_that_fails_leaves_the_previous_report_whole(tmp_path, capsys, monkeypatch):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    out = tmp_path / "out"
    assert main([fleet, "--out", str(out)]) == 0
    before = snapshot(out)
    write_fleet(tmp_path / "fleet", {"node-new": machine_doc("node-new")})

    def disk_full(report, path):
        raise OSError(28, "No space left on device", str(path))
    monkeypatch.setattr("reports.fleet_output.draw", disk_full)
    capsys.readouterr()
    assert main([fleet, "--out", str(out)]) == 2
    one_line_error(capsys, str(out), "No space left on device")
    assert snapshot(out) == before


@pytest.mark.parametrize("make, message", [
    (lambda t: (t / "out").write_text("a file"), "exists and is not a folder"),
    (lambda t: (t / "file").write_text("a file"), "is not a folder"),
], ids=["file", "below-a-file"])
def test_an_out_that_is_a_file_or_below_one_is_refused_before_anything_is_written(tmp_path, capsys, make, message):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    make(tmp_path)
    out = tmp_path / "out" if (tmp_path / "out").exists() else tmp_path / "file" / "out"
    before = snapshot(tmp_path)
    assert main([fleet, "--out", str(out)]) == 2
    one_line_error(capsys, message)
    assert snapshot(tmp_path) == before


def test_an_out_that_cannot_be_created_is_refused(tmp_path, capsys, monkeypatch):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    locked = tmp_path / "locked"
    locked.mkdir()
    # Tests may run as root, whom file modes do not stop: the check is what is held.
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real_access(p, mode))
    assert main([fleet, "--out", str(locked / "a" / "b")]) == 2
    one_line_error(capsys, "cannot create it", "not writable")
    assert os.listdir(locked) == []


def test_missing_parents_of_out_are_created(tmp_path):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    assert main([fleet, "--out", str(tmp_path / "new" / "deeper" / "out")]) == 0
    assert report_of(tmp_path / "new" / "deeper" / "out")["counts"]["accept"] == 3


# -- the walk --------------------------------------------------------------------

def _nest(root, levels: int) -> list:
    """Folders `levels` deep, made one by one: os.makedirs itself recurses."""
    made, path = [], str(root)
    for _ in range(levels):
        path = os.path.join(path, "d")
        os.mkdir(path)
        made.append(path)
    return made


def test_a_machine_folder_nested_thousands_deep_is_named_not_a_crash(tmp_path):
    docs = healthy(3)
    docs["node-deep"] = None
    fleet = write_fleet(tmp_path / "fleet", docs)
    made = _nest(tmp_path / "fleet" / "node-deep", 1500)
    try:
        out = tmp_path / "out"
        assert main([fleet, "--out", str(out)]) == 1
        deep = next(m for m in report_of(out)["machines"] if m["id"] == "node-deep")
        assert deep["verdict"] == "investigate" and f"within {MAX_SEARCH_DEPTH} levels" in deep["reasons"][0]
    finally:
        for path in reversed(made):  # shutil.rmtree recurses as deep as the tree
            os.rmdir(path)


def test_results_within_the_depth_limit_are_found(tmp_path):
    docs = healthy(3)
    fleet = write_fleet(tmp_path / "fleet", docs)
    deep = tmp_path / "fleet" / "node-001" / os.path.join(*["d"] * MAX_SEARCH_DEPTH)
    deep.mkdir(parents=True)
    os.replace(tmp_path / "fleet" / "node-001" / "results.json", deep / "results.json")
    assert main([fleet, "--out", str(tmp_path / "out")]) == 0


def test_a_previous_report_inside_the_fleet_folder_is_skipped_and_said(tmp_path, capsys):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    out = tmp_path / "fleet" / "report"
    assert main([fleet, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main([fleet, "--out", str(out)]) == 0
    report = report_of(out)
    assert len(report["machines"]) == 3 and any(str(out) in s and FLEET_MARKER in s for s in report["skipped"])
    assert f"skipped {out}" in capsys.readouterr().err


def test_a_stray_file_among_the_machines_is_named(tmp_path, capsys):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    (tmp_path / "fleet" / "node-003.log").write_text("a log")
    out = tmp_path / "out"
    assert main([fleet, "--out", str(out)]) == 0
    assert any("node-003.log" in s and "not a folder" in s for s in report_of(out)["skipped"])
    assert "node-003.log" in capsys.readouterr().err and "node-003.log" in (out / "index.html").read_text()


# -- --expect --------------------------------------------------------------------

def _fifo(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    return tmp_path / "fifo"


def _binary(tmp_path):
    (tmp_path / "nodes.bin").write_bytes(b"node-000\n\xff\xfe\x00\x81")
    return tmp_path / "nodes.bin"


def _huge(tmp_path):
    with open(tmp_path / "huge.txt", "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: no disk used
    return tmp_path / "huge.txt"


@pytest.mark.parametrize("make, message", [
    (lambda t: "/dev/zero", "not a regular file"),
    (_fifo, "not a regular file"),
    (lambda t: t, "not a regular file"),
    (_binary, "not UTF-8"),
    (_huge, "too large"),
    (lambda t: t / "absent.txt", "cannot read"),
], ids=["dev-zero", "fifo", "directory", "binary", "huge", "absent"])
def test_an_expect_file_that_is_no_list_is_refused_naming_it(tmp_path, capsys, make, message):
    fleet = write_fleet(tmp_path / "fleet", healthy(3))
    expect = make(tmp_path)
    assert main([fleet, "--out", str(tmp_path / "out"), "--expect", str(expect)]) == 2
    one_line_error(capsys, f"--expect {expect}", message)
    assert not (tmp_path / "out").exists()


# -- ids -------------------------------------------------------------------------

def test_dollar_signs_in_machine_and_case_ids_are_drawn_as_text(tmp_path):
    docs = {"m1": machine_doc("$x^$"), "m2": machine_doc(r"$\undefinedmacro$"), "m3": machine_doc("$$"),
            "m4": machine_doc("plain")}
    for doc in docs.values():
        for case in doc["cases"]:
            for key in ("id", "baseline_id"):
                if case[key] == "plain/mlp/fp32/sgd":
                    case[key] = "plain/mlp/fp32/sgd$^$"
    out = tmp_path / "out"
    assert main([write_fleet(tmp_path / "fleet", docs), "--out", str(out)]) == 0
    assert (out / "index.html").is_file() and (out / "fleet-machines-by-cases.png").stat().st_size > 0
    assert {m["id"] for m in report_of(out)["machines"]} == {"$x^$", r"$\undefinedmacro$", "$$", "plain"}


def test_control_characters_in_a_machine_id_leave_the_junit_valid_xml(tmp_path):
    odd = "node\x01\x1b[31m\x7f\ufffe"
    docs = healthy(3)
    docs["odd"] = machine_doc(odd, gpu="NVIDIA H100 80GB HBM3")  # alone in its group: a failing test
    out = tmp_path / "out"
    assert main([write_fleet(tmp_path / "fleet", docs), "--out", str(out)]) == 1
    cases = ET.parse(out / "fleet-junit.xml").getroot().findall(".//testcase")
    shown = "node\\x01\\x1b[31m\\x7f\\ufffe"
    assert len(cases) == 4 and shown in {c.get("name") for c in cases}
    assert odd in {m["id"] for m in report_of(out)["machines"]}  # fleet.json keeps the id as it is


# -- runs that are no measurement --------------------------------------------------

@pytest.mark.parametrize("stripped, message", [
    (None, "no fingerprint in any of its"),
    ("plain/mlp/fp16/sgd", "no fingerprint in 1 case(s) the others fingerprinted (plain/mlp/fp16/sgd)"),
], ids=["every-case", "one-case"])
def test_a_deterministic_run_without_fingerprints_is_investigated(tmp_path, stripped, message):
    docs = healthy(4)
    for case in docs["node-002"]["cases"]:
        if stripped in (None, case["id"]):
            case.pop("fingerprint", None)
    out = tmp_path / "out"
    assert main([write_fleet(tmp_path / "fleet", docs), "--out", str(out)]) == 1
    named = {m["id"]: m for m in report_of(out)["machines"] if m["verdict"] != "accept"}
    assert list(named) == ["node-002"] and named["node-002"]["verdict"] == "investigate"
    assert message in named["node-002"]["reasons"][0]


def test_a_case_no_machine_fingerprints_is_no_ones_problem(tmp_path):
    docs = healthy(4)
    for doc in docs.values():
        for case in doc["cases"]:
            if case["id"] == "plain/mlp/fp16/sgd":
                case.pop("fingerprint", None)
    assert main([write_fleet(tmp_path / "fleet", docs), "--out", str(tmp_path / "out")]) == 0


@pytest.mark.parametrize("switch, value", [("injected_bitflip_step", 0), ("injected_slowdown", 3.0)])
def test_results_of_a_fault_switch_are_refused_unless_a_rehearsal(tmp_path, capsys, switch, value):
    docs = healthy(4)
    docs["node-002"]["env"][switch] = value
    fleet = write_fleet(tmp_path / "fleet", docs)
    out = tmp_path / "out"
    assert main([fleet, "--out", str(out)]) == 2
    one_line_error(capsys, "node-002", f"{switch}={value}", "--rehearsal")
    assert not out.exists()
    assert main([fleet, "--out", str(out), "--rehearsal"]) == 0
    rehearsal = report_of(out)["rehearsal"]
    assert rehearsal == {"declared": True, "faults": {"node-002": [f"{switch}={value}"]}}
    assert "Rehearsal" in (out / "index.html").read_text() and "a rehearsal" in capsys.readouterr().out
    props = ET.parse(out / "fleet-junit.xml").getroot().findall(".//property[@name='rehearsal']")
    assert [p.get("value") for p in props] == ["true"]


def test_rates_near_the_largest_double_stay_finite_json(tmp_path):
    docs = healthy(4)
    for doc in docs.values():
        for case in doc["cases"]:
            t = case["throughput"]
            if t:
                top = 1.5e308
                t.update(samples_per_s=[top] * len(t["samples_per_s"]), median=top, min=top, max=top, iqr=0.0,
                         stddev=0.0, cv=0.0, achieved_flops_per_s=top,
                         speedup_vs_fp32=None if t["speedup_vs_fp32"] is None else 1.0)
    out = tmp_path / "out"
    assert main([write_fleet(tmp_path / "fleet", docs), "--out", str(out)]) == 0
    speeds = report_of(out)["groups"][0]["throughput"]
    assert speeds and all(s["median_samples_per_s"] == 1.5e308 for s in speeds.values())
