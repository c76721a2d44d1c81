"""Every figure is legible at the smoke suite's size and at 5x its cases:
no two texts overlap, nothing is cut off, no legend covers data.

The checker itself is shown to have teeth: the same figures drawn without
the layout rules (one panel for a whole workload, a legend dropped onto the
curves) fail it.
"""

from __future__ import annotations

import pytest

from reports.figures.legibility import check_results, problems
from reports.figures.throughput import throughput_figure
from reports.runs import load_runs
from reports.tests.sample_results import SMOKE_SUITE_CASES, make_results, smoke_like, write_results


@pytest.fixture(scope="module")
def suites(tmp_path_factory):
    base = tmp_path_factory.mktemp("legibility")
    smoke = write_results(base / "smoke.json", smoke_like())
    grown = write_results(base / "grown.json", smoke_like(grown=True))
    slower = write_results(base / "slower.json", smoke_like(speed=0.8, gpu="NVIDIA H200"))
    return {"smoke": smoke, "grown": grown, "slower": slower}


@pytest.mark.parametrize("inputs", [("smoke",), ("grown",), ("smoke", "slower")],
                         ids=["smoke-size", "5x-cases", "comparison"])
def test_every_figure_is_legible(suites, inputs):
    # Several files: the per-run figures are the single-file ones again.
    found = check_results([suites[i] for i in inputs], cross_file_only=len(inputs) > 1)
    assert len(found) >= (3 if len(inputs) > 1 else 20), list(found)  # not an empty report
    failures = {name: problems[:5] for name, problems in found.items() if problems}
    assert not failures, failures


def test_grown_suite_really_is_five_times_the_smoke_suite(suites):
    grown = len(load_runs([suites["grown"]])[0].cases)
    assert 4.8 <= grown / SMOKE_SUITE_CASES <= 5.5, grown


def test_crowded_throughput_panel_fails_without_the_split(suites):
    """One panel per workload, as before the rule: 12 models x 2 optimizers x 5 precisions
    side by side; their speedup labels run into each other."""
    run = load_runs([suites["grown"]])[0]
    crowded = problems(throughput_figure(run, bars_per_panel=10 ** 6))
    assert any("overlaps" in p and "×" in p for p in crowded), crowded
    # with the split the same figure passes: test_every_figure_is_legible[5x-cases]


def test_legend_on_the_curves_is_caught(suites):
    """A legend inside a busy panel (matplotlib's "best" finds no empty spot)."""
    run = load_runs([suites["smoke"]])[0]
    from reports.figures.curves import deviation_figure
    cases = [c for c in run.cases if c.workload == "clip_norm"]
    fig = deviation_figure(run, "clip_norm", cases)
    assert problems(fig) == []
    for legend in list(fig.legends):
        legend.remove()
    fig.axes[0].legend(loc="center", fontsize=7)
    assert any("legend" in p and "covers data" in p for p in problems(fig))


def test_cases_told_apart_only_by_their_id_get_their_own_bars(tmp_path):
    """The real smoke suite has plain/mlp/fp16/sgd and plain/mlp/fp16/sgd+fused,
    plain/mlp/fp32/sgd@exact and plain/mlp/fp32+scaler/sgd@exact: no field
    tells them apart, only the id.  Drawn at one x, their bars hid each
    other and their speedup labels overlapped."""
    import copy
    doc = make_results(workloads=("plain",), models=("mlp",), negative_controls=False, ddp=False)
    extra = []
    for case in [c for c in doc["cases"] if c["throughput"] and not c["tag"]]:
        fused = copy.deepcopy(case)
        fused["id"] = case["id"] + "+fused"
        if fused["baseline_id"]:
            fused["baseline_id"] += "+fused"
        extra.append(fused)
    scaled = copy.deepcopy(next(c for c in doc["cases"] if c["id"] == "plain/mlp/fp32/sgd"))
    scaled["id"] = "plain/mlp/fp32+scaler/sgd"
    doc["cases"] += extra + [scaled]
    run = load_runs([write_results(tmp_path / "r.json", doc)])[0]
    fig = throughput_figure(run)
    bars = [round(p.get_x(), 6) for ax in fig.axes for p in ax.patches]
    timed = [c for c in run.cases if c.throughput]
    assert len(bars) == len(timed) and len(set(bars)) == len(bars)
    labels = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
    assert "mlp\n+fused" in labels and "mlp\n+scaler" in labels
    assert problems(fig) == []
