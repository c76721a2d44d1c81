"""The gate against history: the slowed run fails, a normal run passes,
rehearsal runs are never history, and what cannot be judged is exit 2."""

from __future__ import annotations

import json

from history.cli import main
from history.tests.conftest import SLOW_FROM, ingest


def gate(db, current, *flags):
    return main(["gate", "--db", db, "--current", str(current), *flags])


def test_slowed_run_fails_the_gate(loaded, twenty, capsys):
    assert gate(loaded, twenty[-1], "--rehearsal") == 1
    out = capsys.readouterr().out
    assert out.count("regression ") == 2 and "against the median" in out and "of 10 runs" in out
    assert "[REHEARSAL: injected_slowdown=0.2]" in out


def test_slowed_run_without_rehearsal_is_refused(loaded, twenty, capsys):
    assert gate(loaded, twenty[SLOW_FROM - 1]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "test-only fault switch" in err


def test_normal_run_passes(loaded, twenty, real_run, capsys):
    assert gate(loaded, twenty[SLOW_FROM - 2]) == 0
    assert gate(loaded, real_run) == 0
    assert "0 regression(s), 2 ok" in capsys.readouterr().out


def test_newly_failing_case_is_a_regression(loaded, twenty, tmp_path, capsys):
    doc = json.loads(twenty[0].read_text())
    case = doc["cases"][1]
    case.update(status="fail", conforms=False, reason="param_rel_l2 0.31 > 0.02")
    path = tmp_path / "failing.json"
    path.write_text(json.dumps(doc))
    assert gate(loaded, path) == 1
    assert "newly not conforming (status fail: param_rel_l2 0.31 > 0.02)" in capsys.readouterr().out


def test_short_history_is_insufficient_not_a_failure(db, twenty, capsys):
    assert ingest(db, twenty[:3]) == 0
    assert gate(db, twenty[-1], "--rehearsal") == 0
    assert "insufficient history" in capsys.readouterr().out


def test_rehearsals_are_never_history(db, twenty, capsys):
    assert ingest(db, twenty[SLOW_FROM - 1:], "--rehearsal") == 0
    assert gate(db, twenty[0]) == 2
    assert "no comparable run in the history" in capsys.readouterr().err


def test_bad_flags_exit_2(loaded, twenty, capsys):
    for flags in (["--last", "0"], ["--min-effect", "nan"], ["--sigmas", "-1"]):
        try:
            gate(loaded, twenty[0], *flags)
        except SystemExit as exc:
            assert exc.code == 2, flags
        else:
            raise AssertionError(f"{flags} accepted")


def test_reports_carry_the_verdicts(loaded, twenty, tmp_path):
    import xml.etree.ElementTree as ET
    md, xml = tmp_path / "gate.md", tmp_path / "gate.xml"
    assert gate(loaded, twenty[-1], "--rehearsal", "--markdown", str(md), "--junit", str(xml)) == 1
    text = md.read_text()
    assert text.count("**regression**") == 2 and "[REHEARSAL: injected_slowdown=0.2]" in text
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite.get("failures") == "2" and len(suite.findall("testcase")) == 2
    assert all(c.find("failure") is not None for c in suite.findall("testcase"))
    assert gate(loaded, twenty[SLOW_FROM - 2], "--markdown", str(md), "--junit", str(xml)) == 0
    assert "**regression**" not in md.read_text()
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite.get("failures") == "0" and not suite.findall("testcase/failure")


def test_reports_say_why_nothing_was_judged(db, twenty, tmp_path, capsys):
    import xml.etree.ElementTree as ET
    md, xml = tmp_path / "gate.md", tmp_path / "gate.xml"
    assert ingest(db, twenty[SLOW_FROM - 1:], "--rehearsal") == 0
    assert gate(db, twenty[0], "--markdown", str(md), "--junit", str(xml)) == 2
    why = capsys.readouterr().err.strip().removeprefix("ampbench history: error: ")
    assert "no comparable run" in why
    assert f"**Not judged** (exit 2): {why}" in md.read_text()
    error = ET.parse(xml).getroot().find("testsuite/testcase/error")
    assert error is not None and error.get("message") == why


def test_unwritable_report_path_is_refused_before_judging(loaded, twenty, tmp_path, capsys):
    missing = tmp_path / "no-such-folder" / "gate.md"
    assert gate(loaded, twenty[-1], "--rehearsal", "--markdown", str(missing)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    assert gate(loaded, twenty[-1], "--rehearsal", "--junit", str(tmp_path)) == 2
    assert "is a folder" in capsys.readouterr().err
