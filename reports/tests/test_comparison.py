"""Two runs of one suite read as one comparison: per-case ratios with the
gate's statistics, sorted, regressions and improvements called out.

Real pairs come from the stored smoke baselines (reference/baselines: five
runs of one build, back to back): two of them are the same build twice; the
second with every repetition slowed by a factor is a run with an injected
slowdown, as `ampbench run --inject-slowdown F` makes (throughput / (1+F)).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reference.python.results_file import Expect, Status
from reports import build_report
from reports.document import build_document
from reports.figures.ratio import ratio_figure
from reports.render_markdown import render_markdown
from reports.comparison import (IMPROVEMENT, INSUFFICIENT, REGRESSION, UNCHANGED, bh_qvalues,
                                compare_runs, mann_whitney_p, min_attainable_p, ratio_interval)
from reports.runs import load_runs
from reports.tests.sample_results import make_results, write_results

BASELINES = Path(__file__).resolve().parents[2] / "reference" / "baselines"


def stored_runs():
    folders = sorted(p for p in BASELINES.glob("smoke__cpu__*") if len(list(p.glob("run-*.json"))) >= 2)
    assert folders, f"no stored smoke baseline with two runs under {BASELINES}"
    return sorted(folders[0].glob("run-*.json"))


def slowed(path, tmp_path, fraction) -> str:
    doc = json.loads(Path(path).read_text())
    for case in doc["cases"]:
        tp = case["throughput"]
        if tp:
            tp["samples_per_s"] = [s / (1 + fraction) for s in tp["samples_per_s"]]
            for key in ("median", "min", "max", "iqr"):
                tp[key] /= 1 + fraction
    out = tmp_path / f"slowed-{fraction}.json"
    out.write_text(json.dumps(doc))
    return str(out)


def _geo(rows) -> float:
    return math.exp(sum(math.log(r.ratio) for r in rows) / len(rows))


# -- statistics, against values scipy gives ------------------------------------------

def test_mann_whitney_exact_and_normal_approximation():
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)
    assert mann_whitney_p([1, 2, 3, 4, 5], [1.5, 2.5, 3.5, 4.5, 5.5]) == pytest.approx(0.690476, abs=1e-6)
    # ties: normal approximation with tie and continuity correction
    a, b = [1, 2, 2, 3, 4, 5, 6, 7, 8, 9], [3, 4, 5, 5, 6, 7, 8, 9, 10, 11]
    assert mann_whitney_p(a, b) == pytest.approx(0.119684, abs=1e-5)
    assert min_attainable_p(3, 3) == pytest.approx(0.1) and min_attainable_p(4, 4) == pytest.approx(2 / 70)


def test_benjamini_hochberg_matches_fdr_bh():
    assert bh_qvalues([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5])


def test_ratio_interval_covers_the_ratio_and_drops_the_extreme_pairs():
    base = [100.0, 101.0, 99.0, 102.0, 98.0]
    slower = [x * 0.8 for x in base]
    pairwise = sorted(y / x for x in base for y in slower)
    low, high = ratio_interval(base, slower)
    assert low < 0.8 < high and high < 1.0
    # 5 vs 5 at 95%: P(U < 3) = 4/252 <= 0.025, so the 3rd smallest and largest of 25 ratios
    assert (low, high) == (pytest.approx(pairwise[2]), pytest.approx(pairwise[-3]))
    few = ratio_interval(base[:3], slower[:3])  # 3 vs 3 cannot reach 95%: the full range
    assert few == (pytest.approx(min(y / x for x in base[:3] for y in slower[:3])),
                   pytest.approx(max(y / x for x in base[:3] for y in slower[:3])))


# -- real pairs of runs -------------------------------------------------------------------

def test_same_build_twice_shows_no_significant_change():
    first, second = stored_runs()[:2]
    rows = compare_runs(*load_runs([first, second]))
    judged = [r for r in rows if r.p is not None]
    assert len(judged) > 50
    assert {r.verdict for r in rows} <= {UNCHANGED, INSUFFICIENT}, \
        [(r.case_id, r.ratio, r.q) for r in rows if r.verdict not in (UNCHANGED, INSUFFICIENT)]


def test_injected_slowdown_is_called_out_as_regressions(tmp_path):
    first, second = stored_runs()[:2]
    rows = compare_runs(*load_runs([first, slowed(second, tmp_path, 0.3)]))
    measured = [r for r in rows if r.ratio is not None]
    regressions = [r for r in rows if r.verdict == REGRESSION]
    assert not [r for r in rows if r.verdict == IMPROVEMENT]
    assert len(regressions) >= len(measured) // 2, len(regressions)
    same = [r for r in compare_runs(*load_runs([first, second])) if r.ratio is not None]
    # every ratio is the unslowed one over 1.3: the run offset between the two runs stays in
    assert [r.ratio for r in measured] == pytest.approx([r.ratio / 1.3 for r in same])
    assert _geo(measured) < 1 / 1.3 * 1.25
    for row in regressions:  # each called-out slowdown has an interval below 1
        assert row.low <= row.ratio <= row.high < 1 and row.q < 0.05


def test_comparison_report_sorts_and_calls_out(tmp_path):
    """The document only (figures are drawn and checked in test_legibility)."""
    first, second = stored_runs()[:2]
    runs = load_runs([first, slowed(second, tmp_path, 0.3)])
    md = render_markdown(build_document(runs, []))
    summary = md[:md.index("## Environment")]
    assert "run2 against run1:" in summary and "Slower: [" in summary
    assert summary.index("run2 against run1:") < summary.index("run1: CONFORMING")  # the comparison leads
    controls = [c for c in runs[0].cases if c.expect is Expect.FAIL]
    caught = sum(1 for c in controls if c.status is Status.FAIL)
    line = next(l for l in summary.splitlines() if "run1: CONFORMING" in l)  # one line per file
    assert f"; {caught} of {len(controls)} negative controls caught; " in line and "Teeth margin" in line
    assert "FAIL" not in line.upper().replace("NOT CONFORMING", "")  # caught controls are no failure
    assert "| model | precision | run1 samples/s | run2 samples/s | ratio run2/run1 (interval)" in summary
    table = md[md.index("### Per-case change, run2 against run1"):].split("\n\n")[2]
    cells = [line.split(" | ") for line in table.splitlines()[2:]]
    ratios = [float(c[3].rstrip("×")) for c in cells if c[3] != "—"]
    assert ratios == sorted(ratios) and len(ratios) > 50
    assert ratio_figure(runs, 1) is not None


def test_several_runs_each_compared_with_the_first(tmp_path):
    small = {"workloads": ("plain",), "models": ("mlp",), "negative_controls": False, "ddp": False}
    paths = [write_results(tmp_path / f"r{k}.json", make_results(**small, speed=s))
             for k, s in enumerate((1.0, 0.7, 1.5))]
    runs = load_runs(paths)
    verdicts = [{r.verdict for r in compare_runs(runs[0], other)} for other in runs[1:]]
    assert verdicts == [{REGRESSION}, {IMPROVEMENT}]
    timed = sum(1 for c in runs[0].cases if c.throughput)
    out = tmp_path / "report"
    build_report(paths, out, jobs=1)
    md = (out / "report.md").read_text()
    assert md.count("### Per-case change, run") == 2  # each against run1, not run2 against run3
    assert f"run2 against run1: {timed} case(s) slower" in md
    assert f"run3 against run1: 0 case(s) slower, {timed} faster" in md


def test_a_comparison_without_the_power_to_call_a_change_says_so(tmp_path):
    """4 repetitions per side over 70+ rows: BH needs most rows at the
    smallest attainable p; a slowdown that moves only some rows that far is
    reported as intervals below 1 and a note on power, not as "no change"."""
    first, second = stored_runs()[:2]
    doc = json.loads(Path(second).read_text())
    timed = [c for c in doc["cases"] if c["throughput"]]
    for case in timed[: len(timed) // 5]:  # a fifth of the cases slowed
        tp = case["throughput"]
        tp["samples_per_s"] = [s / 1.5 for s in tp["samples_per_s"]]
        for key in ("median", "min", "max", "iqr"):
            tp[key] /= 1.5
    out = tmp_path / "third.json"
    out.write_text(json.dumps(doc))
    runs = load_runs([first, str(out)])
    rows = [r for r in compare_runs(*runs) if r.ratio is not None]
    assert not [r for r in rows if r.verdict == REGRESSION]
    md = render_markdown(build_document(runs, []))
    below = sum(1 for r in rows if r.high < 1)
    assert below >= len(timed) // 5
    assert f"Per-case ~95% intervals: {below} of {len(rows)} lie entirely below 1" in md
    assert "No row survives the correction: with 4 repetitions per side the smallest p is 0.029" in md


def _scaled(doc, cases, factor):
    for case in cases:
        tp = case["throughput"]
        tp["samples_per_s"] = [s * factor for s in tp["samples_per_s"]]
        for key in ("median", "min", "max", "iqr"):
            tp[key] *= factor


def test_the_intervals_line_counts_each_side_by_its_far_end(tmp_path):
    """A fifth of the cases slowed, another fifth sped up: the line counts
    an interval above 1 only when its low end is, below 1 only when its
    high end is. The unchanged cases straddle 1, so reading the other end
    would count them on both sides."""
    first, second = stored_runs()[:2]
    doc = json.loads(Path(second).read_text())
    timed = [c for c in doc["cases"] if c["throughput"]]
    fifth = len(timed) // 5
    slower, faster = timed[:fifth], timed[fifth:2 * fifth]
    _scaled(doc, slower, 1 / 1.5)
    _scaled(doc, faster, 1.5)
    out = tmp_path / "third.json"
    out.write_text(json.dumps(doc))
    runs = load_runs([first, str(out)])
    rows = {r.case_id: r for r in compare_runs(*runs) if r.ratio is not None}
    ids_of = lambda cases: {c["id"] for c in cases}  # noqa: E731
    above = {i for i, r in rows.items() if r.low > 1}
    below = {i for i, r in rows.items() if r.high < 1}
    assert ids_of(faster) <= above and not above & ids_of(slower), "a 1.5x speed-up lies above 1"
    assert ids_of(slower) <= below and not below & ids_of(faster), "a 1.5x slowdown lies below 1"
    straddling = {i for i, r in rows.items() if r.low <= 1 <= r.high}
    assert len(straddling) > fifth, "too few unchanged rows to tell the ends apart"
    md = render_markdown(build_document(runs, []))
    assert (f"Per-case ~95% intervals: {len(below)} of {len(rows)} lie entirely below 1, "
            f"{len(above)} entirely above.") in md

