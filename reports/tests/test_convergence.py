"""Convergence to quality in the report: a converge run's curves over its
seeds, the mean per case against fp32's trimmed band and the target, and the
loss scale of the cases with a GradScaler.  Numbers are worked by hand in
sample_convergence.py; a report without converge cases has no such section."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex

from reference.python.results_file import parse_results
from reports import build_report
from reports.convergence import convergence_cases, over_seeds, uses_scaler
from reports.figures.convergence import convergence_figure
from reports.figures.legibility import problems
from reports.figures.style import PRECISION_COLORS
from reports.runs import Run
from reports.tests import sample_convergence as sc
from reports.tests.sample_results import write_results
from reports.tests.test_report import read

HEADING = "### Convergence to quality"


def run_of(doc) -> Run:
    return Run(1, Path("r.json"), parse_results(doc))


def figure(doc):
    run = run_of(doc)
    return convergence_figure(run, "converge", [c for c in run.cases if c.workload == "converge"])


def lines_by_label(ax) -> dict:
    return {line.get_label(): line for line in ax.get_lines()}


# -- the mean and the band over seeds ------------------------------------------------

def test_fp32_mean_and_trimmed_range_match_the_hand_worked_numbers():
    fp32 = next(c for c in sc.convergence_results()["cases"] if c["id"] == sc.FP32)
    runs = fp32["convergence"]["runs"]
    acc = over_seeds(runs, "accuracy", trim=1)
    np.testing.assert_allclose(acc.steps, sc.STEPS)
    np.testing.assert_allclose(acc.mean, sc.FP32_MEAN_ACCURACY)
    np.testing.assert_allclose((acc.low, acc.high), sc.FP32_BAND_ACCURACY)
    loss = over_seeds(runs, "loss", trim=1)
    np.testing.assert_allclose(loss.mean, sc.FP32_MEAN_LOSS)
    np.testing.assert_allclose((loss.low, loss.high), sc.FP32_BAND_LOSS)
    assert acc.seeds == loss.seeds == 4
    untrimmed = over_seeds(runs, "accuracy")
    np.testing.assert_allclose((untrimmed.low, untrimmed.high), ([0.3, 0.8, 0.95], [0.6, 0.9, 0.97]))


def test_scale_is_averaged_in_log_space():
    fp16 = next(c for c in sc.convergence_results()["cases"] if c["id"] == sc.FP16)
    scale = over_seeds(fp16["convergence"]["runs"], "scale", geometric=True)
    np.testing.assert_allclose(scale.mean, sc.FP16_MEAN_SCALE)
    np.testing.assert_allclose((scale.low, scale.high), ([65536, 32768, 65536], [65536, 65536, 131072]))


def test_null_values_missing_steps_and_too_few_seeds_to_trim():
    runs = [{"step": [100, 200, 300], "loss": [1.0, None, 0.2]},
            {"step": [100, 200], "loss": [3.0, 0.5]},
            {"step": [100, 200, 300], "loss": [2.0, 0.7, 0.4]}]
    spread = over_seeds(runs, "loss", trim=1)
    np.testing.assert_allclose(spread.mean[[0, 2]], [2.0, 0.3])
    # A diverged seed (null) leaves a gap, not a mean of the others.
    assert np.isnan(spread.mean[1]) and np.isnan(spread.low[1])
    # Three seeds at step 100: the trimmed range is the middle one; two at step 300: too few to trim.
    assert (spread.low[0], spread.high[0]) == (2.0, 2.0)
    assert (spread.low[2], spread.high[2]) == (0.2, 0.4)
    assert over_seeds([{"step": [], "loss": []}], "loss") is None


# -- the figure ----------------------------------------------------------------------

def test_accuracy_panel_draws_one_mean_per_case_the_band_and_the_target():
    fig = figure(sc.convergence_results())
    accuracy, loss, scale = fig.axes
    lines = lines_by_label(accuracy)
    target = lines.pop("target accuracy 0.95")
    np.testing.assert_allclose(target.get_ydata(), [sc.TARGET, sc.TARGET])
    assert len(lines) == 5 and len(lines_by_label(loss)) == 5
    np.testing.assert_allclose(lines["fp32"].get_ydata(), sc.FP32_MEAN_ACCURACY)
    np.testing.assert_allclose(lines["fp32"].get_xdata(), sc.STEPS)
    np.testing.assert_allclose(lines_by_label(loss)["fp32"].get_ydata(), sc.FP32_MEAN_LOSS)
    np.testing.assert_allclose(lines["bf16 bf16_weights_no_master (control: fail (expected: caught))"]
                               .get_ydata(), np.array(sc.FP32_MEAN_ACCURACY) - 0.05)
    (band,) = accuracy.collections
    assert band.get_label() == "fp32 trimmed range over 4 seeds"
    corners = {(round(x, 6), round(y, 6)) for x, y in band.get_paths()[0].vertices}
    for step, low, high in zip(sc.STEPS, *sc.FP32_BAND_ACCURACY):
        assert {(step, low), (step, high)} <= corners


def test_controls_are_broken_lines_each_its_own_and_colours_are_precisions():
    fig = figure(sc.convergence_results())
    lines = lines_by_label(fig.axes[0])
    controls = {label: line for label, line in lines.items() if "control" in label}
    correct = {label: line for label, line in lines.items() if label in ("fp32", "fp16", "bf16")}
    assert len(controls) == 2 and len(correct) == 3
    assert {line.get_linestyle() for line in correct.values()} == {"-"}
    styles = [line.get_linestyle() for line in controls.values()]
    assert "-" not in styles and len(set(styles)) == 2
    for label, line in {**correct, **controls}.items():
        assert to_hex(line.get_color()) == PRECISION_COLORS[label.split()[0]]


def test_a_control_stopped_once_caught_says_over_how_many_seeds_its_mean_is():
    doc = sc.convergence_results()
    stopped = next(c for c in doc["cases"] if c["variant"] == "scaler_growth_off")
    stopped["convergence"]["runs"] = stopped["convergence"]["runs"][:2]
    stopped["convergence"]["stopped_when_caught"] = True
    fig = figure(doc)
    labels = [label for label in lines_by_label(fig.axes[0]) if "control" in label]
    seeds = len(stopped["convergence"]["rule"]["seeds"])
    assert [label for label in labels if label.endswith(f", 2 of {seeds} seeds)")] == [
        next(label for label in labels if "scaler_growth_off" in label)], labels
    assert "a control stopped once caught: over the seeds it ran" in fig.texts[0].get_text()
    assert "stopped once caught" not in figure(sc.convergence_results()).texts[0].get_text()
    assert problems(fig) == []


def test_scale_panel_has_only_the_scaler_cases_on_a_log_axis():
    fig = figure(sc.convergence_results())
    scale = fig.axes[2]
    lines = lines_by_label(scale)
    assert set(lines) == {"fp16", "fp16 scaler_growth_off @scale1e-6 (control: fail (expected: caught))"}
    np.testing.assert_allclose(lines["fp16"].get_ydata(), sc.FP16_MEAN_SCALE)
    assert scale.get_yscale() == "log"
    assert "1 skipped step over" in scale.get_title()
    # One step axis for all three rows.
    assert fig.axes[0].get_shared_x_axes().joined(fig.axes[0], scale)


def test_without_a_scaler_there_is_no_scale_row():
    doc = sc.convergence_results()
    doc["cases"] = [c for c in doc["cases"] if not c["scaler_enabled"]]
    fig = figure(doc)
    assert len(fig.axes) == 2 and "loss scale" not in fig.get_suptitle()
    assert fig.axes[1].get_xlabel() == "optimizer step"


def test_one_column_per_model_and_legible():
    doc = sc.convergence_results()
    for case in copy.deepcopy(doc["cases"]):
        case["model"] = "mlp_wide"
        case["id"] = case["id"].replace("/mlp/", "/mlp_wide/")
        case["baseline_id"] = case["baseline_id"] and case["baseline_id"].replace("/mlp/", "/mlp_wide/")
        doc["cases"].append(case)
    fig = figure(doc)
    assert len(fig.axes) == 6
    assert [ax.get_title() for ax in fig.axes[:2]] == ["mlp: 5 cases", "mlp_wide: 5 cases"]
    assert problems(fig) == []
    assert problems(figure(sc.convergence_results())) == []


def test_a_case_with_a_reference_of_its_own_gets_its_own_column():
    """A control at another lr is judged against fp32 at that lr: its column
    is that reference's, titled with the tag, not squeezed onto the suite's."""
    doc = sc.convergence_results()
    moved = [case for case in copy.deepcopy(doc["cases"]) if case["precision"] in ("fp32", "fp16")]
    for case in moved:
        case["id"] += "@lr0.001"
        case["tag"] = "lr0.001"
        case["baseline_id"] = case["baseline_id"] and case["baseline_id"] + "@lr0.001"
        doc["cases"].append(case)
    fig = figure(doc)
    assert [ax.get_title() for ax in fig.axes[:2]] == ["mlp: 5 cases", f"mlp@lr0.001: {len(moved)} cases"]
    assert problems(fig) == []


def test_cases_without_runs_are_left_out():
    doc = sc.convergence_results()
    for case in doc["cases"]:
        case["convergence"]["runs"] = []
    run = run_of(doc)
    assert convergence_cases(run.cases) == []
    assert convergence_figure(run, "converge", run.cases) is None


def test_scaler_known_from_the_scale_when_the_writer_did_not_say():
    doc = sc.convergence_results()
    for case in doc["cases"]:
        del case["scaler_enabled"]
    run = run_of(doc)
    assert [c.id for c in run.cases if uses_scaler(c)] == list(sc.SCALER_CASES)


# -- the report ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def converge_report(tmp_path_factory):
    base = tmp_path_factory.mktemp("convergence")
    report = build_report([write_results(base / "r.json", sc.convergence_results())], base / "report", jobs=1)
    return report, read(base / "report", "report.md"), read(base / "report", "index.html")


def test_report_has_the_section_and_its_captioned_figure(converge_report):
    report, md, html = converge_report
    names = [f.name for f in report.figures]
    assert names == ["run1_convergence_converge.png"]
    assert (report.out_dir / names[0]).stat().st_size > 0
    section = md.split(HEADING, 1)[1].split("\n### ", 1)[0]
    assert "](run1_convergence_converge.png)" in section
    assert "shaded: fp32's range over its seeds, the highest and lowest dropped" in section
    assert 'src="run1_convergence_converge.png" alt="Convergence to quality: converge.' in html
    # Before the per-step figures, which a converge run leaves empty.
    assert md.index(HEADING) < md.index("### Loss curves")


def test_report_without_converge_cases_has_no_such_section(single):
    _, report = single
    assert HEADING not in read(report, "report.md")
    assert not list(report.glob("*_convergence_*.png"))
