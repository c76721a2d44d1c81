"""Answer first: the verdict, the controls and their margin, and the
headline per model and precision come before anything else, linked to the
rows that prove them; the environment follows in one line, the rest folded.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from reports.cli import main
from reports.document import build_document
from reports.render_html import render_html
from reports.render_markdown import render_markdown
from reports.runs import load_runs
from reports.tests.sample_results import add_utilisation, make_results, write_results


def read(report: Path, name: str) -> str:
    return (report / name).read_text(encoding="utf-8")


def summary_of(md: str) -> str:
    assert md.index("## Summary") < md.index("## Environment")
    return md[md.index("## Summary"):md.index("## Environment")]


def test_summary_leads_and_names_every_nonconforming_case(single):
    doc, report = single
    md, html = read(report, "report.md"), read(report, "index.html")
    summary = summary_of(md)
    assert md.index("## Summary") < md.index("## Environment") < md.index("### Verdicts (run1)")
    bad = [c["id"] for c in doc["cases"] if c["conforms"] is False]
    assert bad and summary.startswith(f"## Summary\n\n**run1: NOT CONFORMING: {len(bad)} of {len(doc['cases'])}")
    for case_id in bad:
        assert f"[{case_id}](#verdicts-run1)" in summary
        anchor = "run1-" + "".join(ch if ch.isalnum() or ch in "_-" else "-" for ch in case_id)
        assert f'href="#{anchor}"' in html and f'<tr id="{anchor}">' in html


def test_controls_and_margin_come_from_the_checks(single):
    doc, report = single
    summary = summary_of(read(report, "report.md"))
    ratio = lambda c: c["check"]["metrics"]["max_loss_rel_dev"] / c["check"]["tolerances"]["loss_rel"]
    caught = [c for c in doc["cases"] if c["expect"] == "fail" and c["status"] == "fail"]
    closest = min(caught, key=ratio)
    assert f"1 of 2 caught; 1 by a bound, the closest call exceeding it {ratio(closest):.3g}×" in summary
    passing = [c for c in doc["cases"] if c["expect"] == "pass" and c["status"] == "pass" and c["check"]]
    nearest = max(passing, key=ratio)
    assert f"nearest its bound used {100 * ratio(nearest):.3g}% of it ([{nearest['id']}]" in summary
    assert f"teeth margin {ratio(closest) / ratio(nearest):.3g}×" in summary
    assert "MISSED: [accumulation+step_every_microbatch/mlp/fp16/sgd]" in summary


def test_a_control_caught_by_another_rule_is_named_with_that_rule(tmp_path):
    """The scale audit catches a control whose loss stays inside the bound."""
    doc = make_results()
    caught = next(c for c in doc["cases"] if c["expect"] == "fail" and c["status"] == "fail")
    caught["check"]["metrics"]["max_loss_rel_dev"] = 1e-4
    caught["check"]["failures"] = ["loss scale at step 2 is 6.55e+04, GradScaler's update rule gives another value"]
    md = render_markdown(build_document(load_runs([write_results(tmp_path / "r.json", doc)]), []))
    assert (f"1 of 2 caught; 1 by another rule: [{caught['id']}](#verdicts-run1) "
            "(\"loss scale at step 2 is 6.55e+04, GradScaler's update rule gives another value\")") in md
    assert "by a bound" not in md


def test_a_conforming_run_says_so_in_green(tmp_path):
    doc = make_results(negative_controls=False)
    runs = load_runs([write_results(tmp_path / "r.json", doc)])
    blocks = build_document(runs, [])
    assert "**run1: CONFORMING: every case that ran conforms" in render_markdown(blocks)
    assert '<p class="ok">run1: CONFORMING' in render_html(blocks)
    assert "| MFU |" not in render_markdown(blocks)  # no ceilings measured: no MFU column


def verdict_line(md: str) -> str:
    return summary_of(md).splitlines()[2]


def with_reported_only(doc, status):
    """An O3 case beside plain/mlp/fp16: its verdict shown, not required."""
    fp16 = next(c for c in doc["cases"] if c["id"] == "plain/mlp/fp16/sgd")
    doc["cases"].append(dict(fp16, id="plain/mlp/o3/sgd", precision="o3", expect="report", status=status,
                             conforms=True))
    return doc


def test_a_green_verdict_counts_caught_controls_and_reported_cases_as_such(tmp_path):
    """Caught controls and reported-only cases are no failure: the green line
    names each kind and says "fail" nowhere."""
    doc = with_reported_only(make_results(), "pass")
    missed = next(c for c in doc["cases"] if c["expect"] == "fail" and c["status"] == "pass")
    missed.update(status="fail", conforms=True)  # now both controls are caught
    correct = [c for c in doc["cases"] if c["expect"] == "pass" and c["status"] == "pass"]
    skipped = [c for c in doc["cases"] if c["status"] == "skipped"]
    line = verdict_line(render_markdown(build_document(load_runs([write_results(tmp_path / "r.json", doc)]), [])))
    assert line == (f"**run1: CONFORMING: every case that ran conforms to its expectation ({len(correct)} correct "
                    f"cases passed; 2 of 2 negative controls caught; 1 reported only; {len(skipped)} skipped).**")
    assert "fail" not in line.lower()


def test_a_reported_case_that_did_not_pass_is_said_but_keeps_the_run_green(tmp_path):
    doc = with_reported_only(make_results(negative_controls=False), "fail")
    line = verdict_line(render_markdown(build_document(load_runs([write_results(tmp_path / "r.json", doc)]), [])))
    assert line.startswith("**run1: CONFORMING: ")
    assert "; 1 reported only (1 did not pass its check: shown, not required); " in line
    assert "negative control" not in line  # none ran: nothing to count


def test_a_red_verdict_counts_what_failed_by_kind(tmp_path):
    """A failed correct case, a missed control and an error are each named
    with their kind, beside the cases that did what was expected."""
    doc = make_results()
    correct = [c for c in doc["cases"] if c["expect"] == "pass" and c["status"] == "pass"]
    correct[0].update(status="fail", conforms=False)
    correct[1].update(status="error", conforms=False, reason="boom")
    md = render_markdown(build_document(load_runs([write_results(tmp_path / "r.json", doc)]), []))
    line = verdict_line(md)
    assert line.startswith("**run1: NOT CONFORMING: 3 of ")
    skipped = sum(1 for c in doc["cases"] if c["status"] == "skipped")
    assert line.endswith(f"({len(correct) - 2} correct cases passed, 1 FAILED; 1 of 2 negative controls caught, "
                         f"1 MISSED; 1 error; {skipped} skipped)**")
    run_section = md[md.index("### Verdicts (run1)"):]
    assert f"cases: {len(correct) - 2} correct cases passed, 1 FAILED; 1 of 2 negative controls" in run_section


def headline(md: str) -> dict:
    lines = [l for l in summary_of(md).splitlines() if l.startswith("| ")]
    headers = [h.strip() for h in lines[0].strip("| ").split(" | ")]
    return {tuple(r[:2]): dict(zip(headers, r)) for r in
            ([c.strip() for c in l.strip("| ").split(" | ")] for l in lines[2:])}


def test_headline_per_model_and_precision_matches_the_json(tmp_path):
    doc = add_utilisation(make_results())
    md = render_markdown(build_document(load_runs([write_results(tmp_path / "r.json", doc)]), []))
    table = headline(md)
    by_id = {c["id"]: c for c in doc["cases"]}
    models = {c["model"] for c in doc["cases"] if c["throughput"] and not c["ddp"]}
    assert {m for m, _ in table} == models
    for (model, precision), row in table.items():
        lead = by_id[f"plain/{model}/{precision}/sgd"]
        assert row["headline case"] == f"[{lead['id']}](#verdicts-run1)"
        assert float(row["samples/s"]) == pytest.approx(lead["throughput"]["median"], abs=0.05)
        assert row["MFU"] == f"{100 * lead['throughput']['model_flop_utilization']:.3g}%"
        if precision != "fp32":
            base = by_id[lead["baseline_id"]]["throughput"]["median"]
            assert float(row["speedup over fp32"].rstrip("×")) == pytest.approx(
                lead["throughput"]["median"] / base, abs=0.005)
        same = [c for c in doc["cases"] if c["model"] == model and c["precision"] == precision
                and c["expect"] == "pass" and not c["ddp"] and c["status"] != "skipped"]
        assert row["cases conforming"] == f"{sum(c['conforms'] for c in same)} of {len(same)}"
    fp16 = table[("mlp", "fp16")]["speedup, all timed cases (geo-mean, range)"]
    ratios = [c["throughput"]["median"] / by_id[c["baseline_id"]]["throughput"]["median"]
              for c in doc["cases"] if c["model"] == "mlp" and c["precision"] == "fp16"
              and c["throughput"] and c["expect"] == "pass" and not c["ddp"]]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    assert fp16.startswith(f"{geo:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}, {len(ratios)} cases)")


def test_environment_is_one_line_with_long_values_folded(tmp_path):
    doc = make_results()
    settings = {"precision": {}, "legacy": {}, "cublas_reduction": {}, "env_overrides": {}}
    doc["env"]["float32_math"] = {**{f"flag_{k}": "some long setting value" for k in range(20)},
                                  "process_default": settings, "in_cases": settings, "in_cases_ieee": True}
    runs = load_runs([write_results(tmp_path / "r.json", doc)])
    blocks = build_document(runs, [])
    md, html = render_markdown(blocks), render_html(blocks)
    env = md[md.index("## Environment"):]
    assert env.startswith("## Environment\n\n- run1: C++ · NVIDIA A100-SXM4-40GB · libtorch 2.11.0; "
                          "suite smoke, ")
    assert "<details><summary>Every recorded environment value</summary>" in env
    folded = html[html.index("<td>float32_<wbr>math</td>"):].split("</tr>")[0]
    assert "<details><summary>flag_<wbr>0=some long setting value" in folded and "flag_<wbr>19=" in folded


def test_single_file_option_embeds_every_figure(tmp_path, capsys):
    doc = make_results(workloads=("plain",), models=("mlp",), ddp=False, negative_controls=False)
    out = tmp_path / "report"
    assert main([write_results(tmp_path / "r.json", doc), "--out", str(out), "--single-file", "--jobs", "1"]) == 0
    assert [p.name for p in out.iterdir()] == ["index.html"]
    page = read(out, "index.html")
    count = int(capsys.readouterr().out.split(" with ")[1].split()[0])
    assert count >= 3 and page.count('<img src="data:image/png;base64,') == count


def test_the_decision_rule_and_the_cases_fresh_seeds_cleared_are_stated(tmp_path):
    doc = make_results(negative_controls=False)
    doc["verdict_rule"] = {"confirmation_seeds": 2, "grey_limit": 3, "calibrated_exceed_rate": 0.01,
                           "per_case_false_alarm": 1e-6}
    md = render_markdown(build_document(load_runs([write_results(tmp_path / "quiet.json", doc)]), []))
    assert ("Decision rule: a case at most 3× beyond its bound runs again from up to 2 fresh seed(s) and fails "
            "only if each fails too; a correct case fails with probability ≤ 1e-06 (single-seed rate 0.01). "
            "No case was borderline.") in md
    cleared = next(c for c in doc["cases"] if c["id"] == "plain/mlp/fp16/sgd")
    cleared["check"]["confirmations"] = [{"seed": 7920, "max_ratio": 1.4, "passed": False, "failure": "x"},
                                         {"seed": 15839, "max_ratio": 0.5, "passed": True, "failure": None}]
    md = render_markdown(build_document(load_runs([write_results(tmp_path / "cleared.json", doc)]), []))
    assert "1 borderline, 2 fresh-seed run(s); cleared: [plain/mlp/fp16/sgd](#verdicts-run1)." in md
    del doc["verdict_rule"]  # files from before the rule: nothing claimed
    md = render_markdown(build_document(load_runs([write_results(tmp_path / "old.json", doc)]), []))
    assert "Decision rule" not in md
