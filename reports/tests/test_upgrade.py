"""The upgrade verdict (reports/upgrade*.py) on small synthetic rounds: two
sides of a few cases each, written as real results files and read through
the shared loader, so nothing needs a build."""

from __future__ import annotations

import copy
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reference.python.bounded_json import MAX_BYTES

from reference.python.tests.results_samples import case_doc, results_doc, valid_doc
from reports import upgrade as up
from reports.upgrade_cli import main
from reports.upgrade_policy import policy_diff, policy_lines
from reports.upgrade_report import analyse, report_blocks, verdict
from reports.render_markdown import render_markdown
from reports.upgrade_stats import log_ratio_interval, wilcoxon_p

ROOT = Path(__file__).resolve().parents[2]
OLD, NEW = "2.11.0", "2.15.0"
ROUND_NOISE = (1.00, 1.03, 0.98, 1.05, 0.97, 1.01)   # the machine's speed per round, shared by a pair


def checked(case_id, max_ratio, status="pass", speed=None):
    c = case_doc(case_id, status, throughput=None if speed is None else {"median": speed,
                                                                         "samples_per_s": [speed]})
    check = copy.deepcopy(valid_doc()["cases"][0]["check"])
    check["max_ratio"] = max_ratio
    c.update(check=check, baseline_id="plain/mlp/fp32/sgd")
    if status == "fail":
        check["failures"] = ["param_rel_l2 over its bound"]
    return c


def write_rounds(tmp_path, version, cases_per_round, env=None):
    """cases_per_round(round index, noise) -> [case]; one results file per round."""
    paths = []
    for k, noise in enumerate(ROUND_NOISE):
        doc = results_doc(cases_per_round(k, noise))
        doc["env"]["libtorch_version"] = version
        doc["env"].update(env or {})
        path = tmp_path / f"{version}-{k:02d}.json"
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    return paths


def side(speed=100.0, ratio=0.3, status="pass", slow=0.0):
    return lambda k, noise: [checked("plain/mlp/fp16/sgd", ratio, status, speed * noise / (1 + slow)),
                             checked("plain/cnn/bf16/adamw", 0.1, "pass", 50.0 * noise)]


# -- statistics: the values the gate's C++ tests pin (scipy's) -------------------------

def test_wilcoxon_matches_the_gates_values():
    darwin = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]
    assert wilcoxon_p(darwin) == pytest.approx(0.041259765625)
    assert wilcoxon_p([1, 1, -1, 2, 2, 3, 4]) == pytest.approx(0.04068490878074478, abs=1e-12)
    assert wilcoxon_p([0, 0, 1, 2, 3, 4, 5, 6]) == pytest.approx(0.03125)  # zeros dropped
    assert wilcoxon_p([0, 0, 0]) == 1.0


def test_interval_of_six_pairs_is_the_range_and_of_ten_drops_the_extremes():
    six = [math.log(r) for r in (0.80, 0.82, 0.78, 0.81, 0.79, 0.83)]
    low, high = log_ratio_interval(six)
    assert (low, high) == (pytest.approx(min(six)), pytest.approx(max(six)))
    ten = six + [math.log(r) for r in (0.5, 0.805, 0.815, 0.795)]
    low, high = log_ratio_interval(ten)
    assert low > math.log(0.5) and high < math.log(0.83) and low < math.log(0.81) < high


# -- the verdict ------------------------------------------------------------------

def test_the_same_speed_and_conformance_passes(tmp_path):
    u = analyse(write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side()), OLD, NEW)
    passed, line = verdict(u)
    assert passed and line.startswith(f"upgrade {OLD} -> {NEW} (smoke, 6 rounds): PASS")
    assert {s.verdict for s in u.speeds} == {up.NO_CHANGE}


def test_a_slowdown_is_a_regression_with_its_interval(tmp_path):
    u = analyse(write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side(slow=0.25)), OLD, NEW)
    passed, line = verdict(u)
    slow = next(s for s in u.speeds if s.case_id == "plain/mlp/fp16/sgd")
    assert slow.verdict == up.REGRESSION and slow.ratio == pytest.approx(0.8)
    assert slow.low <= 0.8 <= slow.high and slow.high < 1
    assert not passed and "1 throughput regression(s): plain/mlp/fp16/sgd -20.0% [-20.0%, -20.0%] over 6 pairs" in line
    assert next(s for s in u.speeds if s.case_id == "plain/cnn/bf16/adamw").verdict == up.NO_CHANGE


def compiled_side(breaks_in_round=lambda k: 0):
    """A compiled case whose graph breaks per round the function gives."""
    def cases(k, noise):
        c = checked("plain/mlp/bf16/sgd", 0.2, "pass", 80.0 * noise)
        n = breaks_in_round(k)
        c["compiled"] = {"graphs": n + 1, "graph_break_count": n,
                         "graph_breaks": [{"reason": "print() in forward"}] * n}
        return [c]
    return cases


def test_a_compiled_case_that_gains_a_graph_break_fails_the_upgrade(tmp_path):
    old = write_rounds(tmp_path, OLD, compiled_side())
    new = write_rounds(tmp_path, NEW, compiled_side(lambda k: 1 if k == 4 else 0))  # one round is enough
    u = analyse(old, new, OLD, NEW)
    passed, line = verdict(u)
    assert not passed and "1 compiled case(s) gained graph breaks: plain/mlp/bf16/sgd 0 -> 1 graph breaks " \
                          "(print() in forward)" in line
    text = render_markdown(report_blocks(u))
    assert "## Graph breaks (compiled)" in text and "| plain/mlp/bf16/sgd | 0 | 1 | print() in forward | worse |" in text
    # Fewer breaks with the new torch are shown, not judged.
    u = analyse(new, old, NEW, OLD)
    assert verdict(u)[0] and not any(b.worse for b in u.breaks)
    # An eager run has no compiled cases: no such section.
    assert "Graph breaks" not in render_markdown(report_blocks(analyse(write_rounds(tmp_path, OLD, side()),
                                                                       write_rounds(tmp_path, NEW, side()), OLD, NEW)))


def test_a_pass_says_when_a_large_move_was_not_significant(tmp_path):
    def many(k, noise, slow=0.0):
        return [checked(f"plain/m{i}/fp16/sgd", 0.3, "pass", 100.0 * (noise if i else ROUND_NOISE[-k - 1])
                        / (1 + (slow if i == 0 else 0.0))) for i in range(40)]
    u = analyse(write_rounds(tmp_path, OLD, many), write_rounds(tmp_path, NEW, lambda k, n: many(k, n, 0.25)),
                OLD, NEW)
    passed, line = verdict(u)
    assert passed and line.endswith("; 1 row(s) moved beyond their minimum effect without reaching q < 0.05 "
                                    "(more pairs would tell)")


def test_five_pairs_are_too_few_to_judge(tmp_path):
    old = write_rounds(tmp_path, OLD, side())[:5]
    new = write_rounds(tmp_path, NEW, side(slow=0.5))[:5]
    u = analyse(old, new, OLD, NEW)
    assert {s.verdict for s in u.speeds} == {up.TOO_FEW} and verdict(u)[0]


def test_a_case_failing_in_one_round_of_the_new_side_fails_the_upgrade(tmp_path):
    def flaky(k, noise):
        return side(status="fail" if k == 3 else "pass")(k, noise)
    u = analyse(write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, flaky), OLD, NEW)
    row = next(c for c in u.conformance if c.changed)
    assert (row.case_id, row.old, row.new, row.new_detail) == ("plain/mlp/fp16/sgd", "ok", "FAIL", "in 1 of 6 rounds")
    passed, line = verdict(u)
    assert not passed and "plain/mlp/fp16/sgd ok -> FAIL" in line


@pytest.mark.parametrize("old,new,worse", [
    ("ok", "FAIL", True), ("ok", "ERROR", True), ("missing", "FAIL", True), ("skipped", "FAIL", True),
    ("ok", "skipped", True), ("FAIL", "missing", True), ("ok", "missing", True),
    ("FAIL", "ok", False), ("FAIL", "ERROR", False), ("missing", "ok", False), ("skipped", "ok", False),
    ("ok", "ok", False), ("skipped", "skipped", False)])
def test_which_changes_are_worse(old, new, worse):
    assert up.Conformance("x", old, new, "", "").worse is worse


def test_a_fixed_case_and_a_new_case_pass(tmp_path):
    def new_side(k, noise):
        return side()(k, noise) + [checked("plain/vit/fp16/sgd", 0.2)]
    u = analyse(write_rounds(tmp_path, OLD, side(status="fail")), write_rounds(tmp_path, NEW, new_side), OLD, NEW)
    assert sorted((c.case_id, c.old, c.new) for c in u.conformance if c.changed) == [
        ("plain/mlp/fp16/sgd", "FAIL", "ok"), ("plain/vit/fp16/sgd", "missing", "ok")]
    assert verdict(u)[0]


# -- max_ratio moves -------------------------------------------------------------------

@pytest.mark.parametrize("old,new,news", [(0.3, 0.9, True), (0.9, 0.3, True), (0.3, 0.5, False),
                                          (0.3, 0.54, False), (0.3, 0.56, True)])
def test_news_is_a_quarter_of_the_bound(tmp_path, old, new, news):
    u = analyse(write_rounds(tmp_path, OLD, side(ratio=old)), write_rounds(tmp_path, NEW, side(ratio=new)), OLD, NEW)
    row = next(b for b in u.bounds if b.case_id == "plain/mlp/fp16/sgd")
    assert row.old == pytest.approx(old) and row.new == pytest.approx(new) and row.news is news


def test_a_case_that_wanders_between_rounds_is_not_news(tmp_path):
    wander = lambda k, noise: side(ratio=(0.2, 1.0)[k % 2])(k, noise)
    u = analyse(write_rounds(tmp_path, OLD, side(ratio=0.3)), write_rounds(tmp_path, NEW, wander), OLD, NEW)
    row = next(b for b in u.bounds if b.case_id == "plain/mlp/fp16/sgd")
    assert row.delta == pytest.approx(0.3)   # far enough, but the new side's range covers the old
    assert not row.news and row.new_range == (pytest.approx(0.2), pytest.approx(1.0))


# -- environment and autocast policy ----------------------------------------------------

def test_the_torch_stack_may_differ_anything_else_is_a_confounder(tmp_path):
    old = write_rounds(tmp_path, OLD, side(), {"cudnn": "91000", "cpu_cores": 2})
    new = write_rounds(tmp_path, NEW, side(), {"cudnn": "91200", "cpu_cores": 4})
    u = analyse(old, new, OLD, NEW)
    kinds = {e.field: e.torch_stack for e in u.env}
    assert kinds == {"libtorch_version": True, "cudnn": True, "cpu_cores": False}
    md = render_markdown(report_blocks(u))
    assert "CONFOUNDER: cpu_cores: 2 -> 4" in md and "the sides differ in more than torch: cpu_cores" in md


def test_a_field_varying_between_rounds_of_one_side_is_a_confounder(tmp_path):
    old = write_rounds(tmp_path, OLD, side())
    doc = json.loads(open(old[2]).read())
    doc["env"]["host"] = "other-vm"
    open(old[2], "w").write(json.dumps(doc))
    u = analyse(old, write_rounds(tmp_path, NEW, side()), OLD, NEW)
    assert [(e.field, e.torch_stack) for e in u.env if "varies" in str(e.old)] == [("host", False)]


def test_a_field_varying_between_rounds_of_the_new_side_is_a_confounder(tmp_path):
    new = write_rounds(tmp_path, NEW, side())
    doc = json.loads(open(new[4]).read())
    doc["env"]["cpu_model"] = "another cpu"
    open(new[4], "w").write(json.dumps(doc))
    u = analyse(write_rounds(tmp_path, OLD, side()), new, OLD, NEW)
    varies = [e for e in u.env if "varies" in str(e.old)]
    assert [(e.field, e.old, e.torch_stack) for e in varies] == [
        ("cpu_model", f"varies between rounds of {NEW}", False)]
    assert "'another cpu'" in varies[0].new and "'x'" in varies[0].new
    assert "the sides differ in more than torch: cpu_model" in render_markdown(report_blocks(u))


def policy(rows):
    ops = [dict(op=op, dtype=dt, list=lst, inputs_fnv1a64="0", **out) for op, dt, lst, out in rows]
    return {"verdicts": [], "summary": {}, "got": {"ops": ops}, "expected": {"ops": copy.deepcopy(ops)}}


def test_autocast_policy_added_removed_and_cast_differently():
    old = policy([("mm", "bfloat16", "lower", {"output_dtype": "bfloat16"}),
                  ("addmm", "bfloat16", "lower", {"output_dtype": "bfloat16"}),
                  ("cumsum", "bfloat16", "fp32", {"error": "boom in 2.11"})])
    new = policy([("mm", "bfloat16", "lower", {"output_dtype": "float32"}),
                  ("cumsum", "bfloat16", "fp32", {"error": "reworded in 2.15"}),
                  ("baddbmm", "bfloat16", "lower", {"output_dtype": "bfloat16"})])
    got = policy_diff(old, new)[0]
    assert got.added == (("baddbmm", "bfloat16", "lower", "bfloat16"),)
    assert got.removed == (("addmm", "bfloat16", "lower", "bfloat16"),)
    assert got.changed == (("mm", "bfloat16", "lower: bfloat16", "lower: float32"),)  # cumsum's message is not a change
    same = policy_diff(old, copy.deepcopy(old))
    assert [d.equal for d in same] == [True, True]
    assert policy_lines(same, OLD, NEW)[0].startswith("LibTorch (C++ autocast): compared, equal (3 op/dtype rows")


# -- the command line ------------------------------------------------------------------

def cli(tmp_path, old, new, *extra):
    return main(["--from", OLD, "--to", NEW, "--old", *old, "--new", *new, "--out", str(tmp_path / "out"),
                 "--no-html", *extra])


def test_cli_writes_markdown_and_junit_and_exits_1_on_a_regression(tmp_path, capsys):
    rc = cli(tmp_path, write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side(slow=0.25)))
    assert rc == 1 and capsys.readouterr().out.startswith(f"upgrade {OLD} -> {NEW} (smoke, 6 rounds): FAIL")
    md = (tmp_path / "out/upgrade.md").read_text().splitlines()
    assert md[0] == f"# ampbench upgrade {OLD} -> {NEW}" and md[2].startswith(f"**upgrade {OLD} -> {NEW}")
    xml = (tmp_path / "out/upgrade.xml").read_text()
    assert 'failures="1"' in xml and 'classname="plain/mlp/fp16/sgd" name="throughput"' in xml


def test_cli_fails_what_the_gate_failed_even_when_this_reading_did_not(tmp_path):
    gate = tmp_path / "gate.xml"
    gate.write_text('<testsuite><testcase classname="plain/cnn/bf16/adamw" name="throughput">'
                    '<failure message="x"/></testcase></testsuite>')
    rc = cli(tmp_path, write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side()),
             "--gate-junit", str(gate))
    assert rc == 1 and "gate --paired also failed plain/cnn/bf16/adamw [throughput]" in \
        (tmp_path / "out/upgrade.md").read_text()


@pytest.mark.parametrize("breakage,message", [
    ("rounds", "must match"), ("version", "ran torch 2.11.0, not 2.15.0"), ("suite", "different suites")])
def test_cli_refuses_unusable_rounds_with_exit_2(tmp_path, capsys, breakage, message):
    old, new = write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side())
    if breakage == "rounds":
        new = new[:5]
    elif breakage == "version":
        new = old
    else:
        doc = json.loads(open(new[0]).read())
        doc["suite"] = "conformance"
        open(new[0], "w").write(json.dumps(doc))
    assert cli(tmp_path, old, new) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_cli_html_has_the_version_pair_in_its_headline(tmp_path):
    rc = main(["--from", OLD, "--to", NEW, "--old", *write_rounds(tmp_path, OLD, side()),
               "--new", *write_rounds(tmp_path, NEW, side()), "--out", str(tmp_path / "out")])
    html = (tmp_path / "out/html/index.html").read_text()
    assert rc == 0 and f">ampbench upgrade {OLD} -&gt; {NEW}</h1>" in html
    assert html.index("PASS") < html.index('<h2 id="summary"')   # the upgrade verdict leads


def test_reports_title_option_sets_the_headline(tmp_path):
    from reports.cli import main as reports_main
    path = write_rounds(tmp_path, OLD, side())[0]
    assert reports_main([path, "--out", str(tmp_path / "r"), "--jobs", "1", "--title", "torch 2.11.0 vs 2.15.0"]) == 0
    assert "# torch 2.11.0 vs 2.15.0\n" in (tmp_path / "r/report.md").read_text()
    assert reports_main([path, "--out", str(tmp_path / "d"), "--jobs", "1"]) == 0
    assert (tmp_path / "d/report.md").read_text().startswith("# ampbench report\n")


# -- runs made with a test-only fault switch ---------------------------------------------

@pytest.mark.parametrize("which", ["old", "new"])
@pytest.mark.parametrize("fault,switch", [({"injected_slowdown": 0.2}, "--inject-slowdown 0.2"),
                                          ({"injected_bitflip_step": 3}, "--inject-bitflip 3"),
                                          ({"injected_compile_fault": "drop_autocast_cast"},
                                           '--inject-compile-fault "drop_autocast_cast"')])
def test_a_run_made_with_a_fault_switch_is_refused_as_a_measurement(tmp_path, capsys, which, fault, switch):
    old = write_rounds(tmp_path, OLD, side(), fault if which == "old" else None)
    new = write_rounds(tmp_path, NEW, side(), fault if which == "new" else None)
    assert cli(tmp_path, old, new) == 2
    path, version = (old, OLD) if which == "old" else (new, NEW)
    assert capsys.readouterr().err == (
        f"upgrade: error: {path[0]} ({which} side, torch {version}): was made with {switch}, a test-only fault "
        f"switch: it is not a measurement; pass --rehearsal to rehearse the verdict\n")
    assert not (tmp_path / "out").exists()


def test_a_rehearsal_is_judged_and_says_so_everywhere(tmp_path, capsys):
    new = write_rounds(tmp_path, NEW, side(slow=0.25), {"injected_slowdown": 0.25})
    assert cli(tmp_path, write_rounds(tmp_path, OLD, side()), new, "--rehearsal") == 1
    line = capsys.readouterr().out
    assert line.startswith(f"upgrade {OLD} -> {NEW} (smoke, 6 rounds, a REHEARSAL: not a measurement): FAIL: "
                           f"1 throughput regression(s)")
    md = (tmp_path / "out/upgrade.md").read_text()
    assert (f"rehearsal (--rehearsal): this verdict rehearses the upgrade gate and measures nothing; 6 run(s) were "
            f"made with a test-only fault switch ({new[0]}: --inject-slowdown 0.25, ...)") in md
    xml = (tmp_path / "out/upgrade.xml").read_text()
    assert f'<testsuite name="ampbench upgrade {OLD} -&gt; {NEW} (rehearsal)"' in xml


# -- hostile input: one line and exit 2, never a traceback -------------------------------

def extreme(k, noise, speed):
    return [checked("plain/mlp/fp16/sgd", 0.3, "pass", speed)]


def test_medians_at_the_ends_of_the_float_range_are_judged_without_a_traceback(tmp_path, capsys):
    old = write_rounds(tmp_path, OLD, lambda k, n: extreme(k, n, 1e308))
    new = write_rounds(tmp_path, NEW, lambda k, n: extreme(k, n, 5e-324))
    assert cli(tmp_path, old, new) == 1  # log(5e-324 / 1e308) was log(0): a ValueError
    assert "plain/mlp/fp16/sgd -100.0%" in capsys.readouterr().out


def test_an_html_report_that_cannot_be_drawn_is_one_line_and_exit_2(tmp_path, capsys):
    old = write_rounds(tmp_path, OLD, lambda k, n: extreme(k, n, 5e-324))
    new = write_rounds(tmp_path, NEW, lambda k, n: extreme(k, n, 1e308))
    assert main(["--from", OLD, "--to", NEW, "--old", *old, "--new", *new, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"upgrade: error: {old[0]} and {new[0]}: the HTML comparison cannot be drawn") and \
        err.count("\n") == 1
    assert (tmp_path / "out/upgrade.md").is_file()  # the verdict computed is kept


@pytest.mark.parametrize("where", ["suite", "case"])
def test_a_nan_minimum_effect_is_refused_not_a_pass(tmp_path, capsys, where):
    new = write_rounds(tmp_path, NEW, side(slow=0.5))
    doc = json.loads(open(new[-1]).read())
    if where == "suite":
        doc["gate"] = {"min_effect": float("nan")}
    else:
        doc["cases"][0]["gate"] = {"min_effect": float("nan")}
    open(new[-1], "w").write(json.dumps(doc))
    assert cli(tmp_path, write_rounds(tmp_path, OLD, side()), new) == 2
    what = "the suite" if where == "suite" else "case plain/mlp/fp16/sgd"
    assert capsys.readouterr().err == f"upgrade: error: {new[-1]}: gate.min_effect of {what} must be in (0, 1), got nan\n"


@pytest.mark.parametrize("table", [[1], {"ops": 5}, "text"])
def test_an_autocast_table_of_the_wrong_shape_is_refused(tmp_path, capsys, table):
    bad = tmp_path / "autocast-ops.json"
    bad.write_text(json.dumps({"verdicts": [], "summary": {}, "got": table}))
    rc = cli(tmp_path, write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side()),
             "--old-autocast", str(bad), "--new-autocast", str(bad))
    assert rc == 2 and capsys.readouterr().err == f'upgrade: error: {bad}: "got" must be an object with an "ops" list\n'


@pytest.mark.parametrize("where", ["results", "autocast"])
def test_a_lone_surrogate_is_refused_not_a_unicode_traceback(tmp_path, capsys, where):
    old, new = write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side())
    extra, bad = [], old[0]
    if where == "results":
        text = Path(old[0]).read_text().replace('"host": "h"', '"host": "\\ud800"')
        Path(old[0]).write_text(text)
    else:
        bad = str(tmp_path / "autocast-ops.json")
        open(bad, "w").write(json.dumps(policy([("mm", "bfloat16", "lower", {"output_dtype": "x"})]))
                             .replace('"mm"', '"\\udc00"'))
        extra = ["--old-autocast", bad, "--new-autocast", bad]
    assert cli(tmp_path, old, new, *extra) == 2
    assert capsys.readouterr().err == (f"upgrade: error: {bad}: a string holds a lone UTF-16 surrogate (an unpaired "
                                       f"\\ud800-\\udfff escape): not valid Unicode\n")


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "huge"])
def test_a_gate_junit_that_is_no_regular_file_is_refused_without_hanging(tmp_path, kind):
    path = {"fifo": tmp_path / "gate.xml", "device": Path("/dev/zero"), "folder": tmp_path,
            "huge": tmp_path / "huge.xml"}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    if kind == "huge":
        with open(path, "wb") as f:
            f.truncate(MAX_BYTES + 1)
    old, new = write_rounds(tmp_path, OLD, side()), write_rounds(tmp_path, NEW, side())
    # A subprocess: the old reader read a FIFO forever.
    p = subprocess.run([sys.executable, "-m", "reports.upgrade_cli", "--from", OLD, "--to", NEW, "--old", *old,
                        "--new", *new, "--gate-junit", str(path), "--out", str(tmp_path / "out"), "--no-html"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    reason = "too large" if kind == "huge" else "not a regular file"
    assert p.returncode == 2 and p.stderr.startswith(f"upgrade: error: {path}: {reason}"), p.stderr
    assert p.stderr.count("\n") == 1


def test_more_rounds_than_the_pairs_bound_are_refused(tmp_path, capsys):
    one = write_rounds(tmp_path, OLD, side())[0]
    assert cli(tmp_path, [one] * (up.MAX_ROUNDS + 1), [one] * (up.MAX_ROUNDS + 1)) == 2
    assert capsys.readouterr().err == f"upgrade: error: {up.MAX_ROUNDS + 1} rounds: at most {up.MAX_ROUNDS} are read\n"


def test_the_rounds_bound_is_the_commands_pairs_bound():
    script = (ROOT / "ci/upgrade.sh").read_text()
    assert re.search(r"\bMAX_PAIRS=([0-9]+)", script).group(1) == str(up.MAX_ROUNDS)


def test_a_stopped_report_exits_130_without_a_traceback(tmp_path, capsys, monkeypatch):
    def stopped(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr("reports.upgrade_cli.analyse", stopped)
    try:
        rc = cli(tmp_path, ["a.json"], ["b.json"])
    except KeyboardInterrupt:
        pytest.fail("the KeyboardInterrupt reached the user as a traceback")
    assert rc == 130 and capsys.readouterr().err == "upgrade: stopped\n"
