"""reports.fleet on synthetic fleets: who is named, for what, and which input
is refused. Each machine is a results.json as `ampbench run --deterministic`
writes it (reports/tests/sample_fleet.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from reports.fleet import main
from reports.fleet_stats import Rule, agreement, benjamini_hochberg, lower_tail_p, speed
from reports.tests.sample_fleet import machine_doc, write_fleet


def fleet(tmp_path, docs: dict) -> str:
    return write_fleet(tmp_path / "fleet", docs)


def run(tmp_path, docs, *extra):
    out = tmp_path / "out"
    code = main([fleet(tmp_path, docs), "--out", str(out), *extra])
    report = json.loads((out / "fleet.json").read_text()) if (out / "fleet.json").exists() else None
    return code, report, out


def verdicts(report) -> dict:
    return {m["id"]: m["verdict"] for m in report["machines"] if m["verdict"] != "accept"}


def healthy(n, **kw):
    return {f"node-{i:03d}": machine_doc(f"node-{i:03d}", **kw) for i in range(n)}


def test_a_healthy_fleet_is_accepted_with_one_passing_test_per_machine(tmp_path):
    code, report, out = run(tmp_path, healthy(8))
    assert code == 0 and report["counts"] == {"accept": 8, "investigate": 0, "reject": 0}
    suite = ET.parse(out / "fleet-junit.xml").getroot().find("testsuite")
    assert len(suite.findall("testcase")) == 8 and suite.get("failures") == "0"
    assert (out / "index.html").read_text().count("fleet-machines-by-cases.png") == 1


def test_a_dissenting_fingerprint_is_rejected_as_corruption_naming_the_case_and_parts(tmp_path):
    docs = healthy(7)
    docs["node-bad"] = machine_doc("node-bad", corrupt={"plain/mlp/fp16/sgd"})
    code, report, out = run(tmp_path, docs)
    assert code == 1 and verdicts(report) == {"node-bad": "reject"}
    reason = next(m for m in report["machines"] if m["id"] == "node-bad")["reasons"][0]
    assert "silent data corruption" in reason and "plain/mlp/fp16/sgd" in reason
    assert "final_params, optimizer_state" in reason and "loss" not in reason.split("differs in")[1]
    failure = ET.parse(out / "fleet-junit.xml").getroot().find(".//testcase[@name='node-bad']/failure")
    assert failure.get("type") == "reject"


def test_a_slow_machine_is_investigated_and_noise_flags_nobody(tmp_path):
    docs = {f"n{i:02d}": machine_doc(f"n{i:02d}", noise=0.03, seed=i) for i in range(16)}
    docs["n99"] = machine_doc("n99", speed=0.6, noise=0.03, seed=99)
    code, report, _ = run(tmp_path, docs)
    assert verdicts(report) == {"n99": "investigate"}
    reason = next(m for m in report["machines"] if m["id"] == "n99")["reasons"][0]
    assert reason.startswith("investigate: throughput outlier")


def test_a_slowdown_below_the_minimum_effect_is_not_flagged(tmp_path):
    docs = healthy(8)
    docs["n-a-bit-slow"] = machine_doc("n-a-bit-slow", speed=0.95)
    assert run(tmp_path, docs)[1]["counts"]["investigate"] == 0
    _, report, _ = run(tmp_path / "again", docs, "--min-effect", "0.03")
    assert verdicts(report) == {"n-a-bit-slow": "investigate"}


@pytest.mark.parametrize("change, message", [
    ({"suite": "conformance"}, "different suites"),
    ({"commit": "def5678"}, "different builds"),
])
def test_mixed_suites_or_builds_are_refused(tmp_path, capsys, change, message):
    docs = healthy(3)
    docs["other"] = machine_doc("other", **change)
    code, report, _ = run(tmp_path, docs)
    assert code == 2 and report is None and message in capsys.readouterr().err


def test_two_folders_claiming_one_machine_are_refused(tmp_path, capsys):
    docs = healthy(3)
    docs["copy"] = machine_doc("node-001")
    assert run(tmp_path, docs)[0] == 2
    assert "'node-001' appears twice" in capsys.readouterr().err


def test_missing_unfinished_and_nondeterministic_machines_are_named(tmp_path):
    docs = healthy(4)
    docs["node-missing"] = None
    docs["node-unfinished"] = machine_doc("node-unfinished", complete=False)
    docs["node-plain"] = machine_doc("node-plain", deterministic=False)
    partial = machine_doc("node-partial")
    partial["cases"] = partial["cases"][1:]
    docs["node-partial"] = partial
    code, report, _ = run(tmp_path, docs)
    reasons = {m["id"]: " ".join(m["reasons"]) for m in report["machines"] if m["verdict"] != "accept"}
    assert code == 1 and set(reasons) == {"node-missing", "node-unfinished", "node-plain", "node-partial"}
    assert "results missing" in reasons["node-missing"]
    assert "complete=false" in reasons["node-unfinished"]
    assert "without --deterministic" in reasons["node-plain"]
    assert "1 of" in reasons["node-partial"] and "cases missing" in reasons["node-partial"]


def test_an_expected_machine_that_wrote_nothing_is_named(tmp_path):
    (tmp_path / "nodes.txt").write_text("node-000\nnode-001\nnode-002\nnode-never\n")
    code, report, _ = run(tmp_path, healthy(3), "--expect", str(tmp_path / "nodes.txt"))
    assert code == 1 and verdicts(report) == {"node-never": "investigate"}


def test_a_group_of_one_is_named_not_merged(tmp_path):
    docs = healthy(4)
    docs["odd"] = machine_doc("odd", gpu="NVIDIA H100 80GB HBM3")
    _, report, _ = run(tmp_path, docs)
    assert verdicts(report) == {"odd": "investigate"}
    assert "only machine of its hardware" in report["machines"][-1]["reasons"][0]
    assert [len(g["machines"]) for g in report["groups"]] == [4, 1]


def test_one_cpu_name_of_another_generation_or_kernel_ceiling_is_another_group(tmp_path):
    docs = healthy(4)
    for doc in docs.values():
        doc["env"].update(cpu_model="AMD EPYC", cpu_id="AuthenticAMD family 25 model 17", cpu_capability="AVX512")
    docs["zen5"] = machine_doc("zen5")
    docs["zen5"]["env"].update(cpu_model="AMD EPYC", cpu_id="AuthenticAMD family 26 model 2", cpu_capability="AVX512")
    docs["held"] = machine_doc("held")
    docs["held"]["env"].update(cpu_model="AMD EPYC", cpu_id="AuthenticAMD family 25 model 17", cpu_capability="AVX2")
    _, report, _ = run(tmp_path, docs)
    assert verdicts(report) == {"held": "investigate", "zen5": "investigate"}
    assert [len(g["machines"]) for g in report["groups"]] == [4, 1, 1]


def test_two_machines_that_disagree_cannot_tell_who_is_right(tmp_path):
    docs = {"a": machine_doc("a"), "b": machine_doc("b", corrupt={"plain/mlp/fp32/sgd"})}
    _, report, _ = run(tmp_path, docs)
    assert verdicts(report) == {"a": "investigate", "b": "investigate"}
    assert all("no majority" in m["reasons"][0] for m in report["machines"])


def test_identity_falls_back_to_host(tmp_path):
    docs = healthy(3)
    del docs["node-000"]["env"]["machine_id"]
    _, report, _ = run(tmp_path, docs)
    assert "node-17" in {m["id"] for m in report["machines"]}


def test_benjamini_hochberg_and_the_tail():
    # Step-up: the largest k with p_(k) <= k q / m rejects every smaller p,
    # 0.03 too although it misses its own threshold (2 x 0.05 / 4 = 0.025).
    assert benjamini_hochberg([0.01, 0.035, 0.03, 0.5], 0.05) == [True, True, True, False]
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert benjamini_hochberg([0.02, 0.5], 0.01) == [False, False]
    assert lower_tail_p(0.0) == pytest.approx(0.5) and lower_tail_p(-3.0) == pytest.approx(0.00135, rel=1e-2)


@pytest.mark.parametrize("bad", ["a-first", "node-002x", "z-last"])
def test_the_majority_decides_wherever_the_dissenter_sorts(tmp_path, bad):
    docs = healthy(4)
    docs[bad] = machine_doc(bad, corrupt={"plain/mlp/fp16/sgd"})
    code, report, _ = run(tmp_path, docs)
    assert code == 1 and verdicts(report) == {bad: "reject"}
    case = report["groups"][0]["cases"]["plain/mlp/fp16/sgd"]
    assert case["agree"] == 4 and case["disagree"] == {bad: ["final_params", "optimizer_state"]}


def test_agreement_does_not_depend_on_which_machine_comes_first():
    good = {"hash": "g", "loss": "l", "final_params": "p", "optimizer_state": "o"}
    bad = dict(good, hash="b", final_params="q")
    for order in (["a", "b", "c"], ["c", "b", "a"], ["b", "a", "c"]):
        prints = {m: (bad if m == "a" else good) for m in order}
        a = agreement(prints)
        assert (a.majority, a.agree, a.disagree) == ("g", ["b", "c"], {"a": ["final_params"]})


def test_sigma_is_1_4826_times_the_median_absolute_deviation():
    # Median 100, absolute deviations 0, 2, 2, 10, 10: MAD 2, above the 1% floor.
    s = speed({"a": 100.0, "b": 102.0, "c": 98.0, "d": 110.0, "e": 90.0}, Rule())
    assert s.median == 100.0 and s.sigma == pytest.approx(1.4826 * 2, rel=1e-12)
    assert s.p_values["e"] == pytest.approx(lower_tail_p(-10 / (1.4826 * 2)), rel=1e-12)
    # An even fleet: MAD 0, and sigma is the floor, 1% of the median.
    assert speed({"a": 100.0, "b": 100.0, "c": 100.0, "d": 99.0}, Rule()).sigma == pytest.approx(1.0, rel=1e-12)


def test_the_reported_sigma_is_the_rule_s(tmp_path):
    rates = {"n0": 1.0, "n1": 1.02, "n2": 0.98, "n3": 1.1, "n4": 0.9}
    docs = {m: machine_doc(m, speed=f) for m, f in rates.items()}
    _, report, _ = run(tmp_path, docs)
    for case, t in report["groups"][0]["throughput"].items():
        median = t["median_samples_per_s"]
        assert t["sigma"] == pytest.approx(1.4826 * 0.02 * median, rel=1e-9), case


def test_unreadable_or_ambiguous_results_are_named_not_guessed(tmp_path):
    docs = healthy(3)
    docs["node-torn"] = docs["node-ambiguous"] = None
    root = fleet(tmp_path, docs)
    (tmp_path / "fleet/node-torn/results.json").write_text('{"schema": "ampbench.results", "cases": [')
    for run_dir in ("run-a", "run-b"):
        write_fleet(tmp_path / "fleet/node-ambiguous", {run_dir: machine_doc("node-ambiguous")})
    out = tmp_path / "out"
    assert main([root, "--out", str(out)]) == 1
    report = json.loads((out / "fleet.json").read_text())
    reasons = {m["id"]: " ".join(m["reasons"]) for m in report["machines"] if m["verdict"] != "accept"}
    assert set(reasons) == {"node-torn", "node-ambiguous"}
    assert "results unreadable" in reasons["node-torn"]
    assert "several results.json" in reasons["node-ambiguous"] and "run-a" in reasons["node-ambiguous"]


@pytest.mark.parametrize("make, message", [
    (lambda root: None, "no such file or folder"),
    (lambda root: (root / "node-a").mkdir(parents=True), "no machine has readable results"),
    (lambda root: root.mkdir(), "neither a results folder nor a folder of machines' folders"),
])
def test_input_that_is_no_fleet_at_all_is_refused(tmp_path, capsys, make, message):
    root = tmp_path / "fleet"
    make(root)
    assert main([str(root), "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "out").exists()
