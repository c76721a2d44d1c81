"""Sections that exist only when a results file carries the data:
hardware ceilings (env.ceilings), utilisation (the timed cases' FLOP/s, and
their MFU when ceilings were measured) and gradient health
(case.grad_health).  A file without them gets a report without those
sections, not an error."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex

from reference.python.results_file import parse_results
from reports import build_report
from reports.figures import fp8_scales, underflow, utilisation
from reports.figures.style import PRECISION_COLORS
from reports.gradients import AT_SCALE_1, mean_fraction
from reports.runs import Run, load_runs
from reports.tables import fmt_measure
from reports.tests.sample_results import (CPU_CEILINGS, add_grad_health, add_utilisation,
                                          make_results, write_results)
from reports.tests.test_report import expected_run_figures, read, table_with

FP32, FP16, BF16 = "plain/mlp/fp32/sgd", "plain/mlp/fp16/sgd", "plain/mlp/bf16/sgd"
# Numbers a reader can check by eye against CPU_CEILINGS (fp32 0.21, fp16
# 0.05, bf16 0.11 TFLOP/s): 21 GFLOP/s of 210 is 10%, 15 of 50 is 30%, ...
UTILISATION = {
    FP32: {"training_flops_per_sample": 1.0e6, "achieved_flops_per_s": 2.1e10,
           "speedup_vs_fp32": None, "model_flop_utilization": 0.1, "ceiling_speedup_vs_fp32": 1.0},
    FP16: {"training_flops_per_sample": 1.0e6, "achieved_flops_per_s": 1.5e10,
           "speedup_vs_fp32": 0.714, "model_flop_utilization": 0.3,
           "ceiling_speedup_vs_fp32": 0.05 / 0.21},
    BF16: {"training_flops_per_sample": 1.0e6, "achieved_flops_per_s": 3.3e10,
           "speedup_vs_fp32": 1.571, "model_flop_utilization": 0.3,
           "ceiling_speedup_vs_fp32": 0.11 / 0.21},
}
GRAD_HEALTH = {
    FP32: {"scale": [1.0, 1.0, 1.0], "underflow_fp16_fraction_at_scale_1": [0.5, 0.5, 0.5],
           "underflow_fp16_fraction_at_scale": [0.5, 0.5, 0.5], "nonfinite": [0, 0, 0]},
    FP16: {"scale": [65536.0, 32768.0, 32768.0],
           "underflow_fp16_fraction_at_scale_1": [0.9, 0.93, 0.96],
           "underflow_fp16_fraction_at_scale": [0.0, 0.0, 0.03], "nonfinite": [0, 2, 0]},
}


def small_doc() -> dict:
    """plain/mlp fp32/fp16/bf16, a tagged fp32/fp16 pair, three skipped cases."""
    return make_results(workloads=("plain",), models=("mlp",), ddp=False, negative_controls=False)


def with_everything(doc) -> dict:
    doc["env"]["ceilings"] = CPU_CEILINGS
    by_id = {c["id"]: c for c in doc["cases"]}
    for case_id, fields in UTILISATION.items():
        by_id[case_id]["throughput"].update(fields)
    for case_id, health in GRAD_HEALTH.items():
        by_id[case_id]["grad_health"] = copy.deepcopy(health)  # tests edit their copy
    # A speedup the writer left null (its baseline not joined): the report joins it itself.
    by_id[FP16 + "@inject"]["throughput"]["speedup_vs_fp32"] = None
    return doc


def build(tmp_path, doc, name="r.json"):
    report = build_report([write_results(tmp_path / name, doc)], tmp_path / "report")
    return report, read(tmp_path / "report", "report.md")


def headings(md: str) -> list:
    return [line.lstrip("#").strip() for line in md.splitlines() if line.startswith("#")]


def rows_of(md: str, header: str) -> dict:
    return {case_id: tuple(row.values()) for case_id, row in table_with(md, header).items()}


def run_of(doc) -> Run:
    return Run(1, Path("r.json"), parse_results(doc))


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    base = tmp_path_factory.mktemp("optional")
    doc = with_everything(small_doc())
    report, md = build(base, doc)
    return doc, report, md


# -- hardware ceilings --------------------------------------------------------------

def test_ceilings_table_shows_measured_values(everything):
    _, _, md = everything
    assert "Hardware ceilings" in headings(md)
    table = rows_of(md, "ceiling")
    assert table == {
        "device": ("device", "cpu"),
        "memory bandwidth (GB/s)": ("memory bandwidth (GB/s)", "12.3"),
        "matmul fp32 (TFLOP/s)": ("matmul fp32 (TFLOP/s)", "0.21"),
        "matmul tf32 (TFLOP/s)": ("matmul tf32 (TFLOP/s)",
                                  "n/a (TF32 is a CUDA tensor-core mode; no CPU equivalent)"),
        "matmul fp16 (TFLOP/s)": ("matmul fp16 (TFLOP/s)", "0.05"),
        "matmul bf16 (TFLOP/s)": ("matmul bf16 (TFLOP/s)", "0.11"),
        "GEMM size n (n×n×n)": ("GEMM size n (n×n×n)", "1024"),
        "copy size": ("copy size", "128.0 MiB"),
        "repetitions (median reported)": ("repetitions (median reported)", "5"),
    }


def test_ceilings_are_not_repeated_as_an_env_one_liner(everything):
    _, _, md = everything
    env_rows = table_with(md, "run1")
    assert "device" in env_rows and "ceilings" not in env_rows


def test_partial_ceilings_show_dashes(tmp_path):
    doc = small_doc()
    doc["env"]["ceilings"] = {"device": "cuda:0", "matmul_tflops": {"fp16": 989.4, "fp8": None}}
    _, md = build(tmp_path, doc)
    table = {k: v[1] for k, v in rows_of(md, "ceiling").items()}
    assert table["memory bandwidth (GB/s)"] == "—"
    assert table["matmul fp16 (TFLOP/s)"] == "989"
    assert table["matmul fp8 (TFLOP/s)"] == "n/a"
    assert table["GEMM size n (n×n×n)"] == "—" and table["copy size"] == "—"
    assert "matmul fp32 (TFLOP/s)" not in table


# -- utilisation ----------------------------------------------------------------------

def test_utilisation_table_has_exact_numbers(everything):
    doc, _, md = everything
    table = rows_of(md, "MFU (% of matmul ceiling)")
    assert table[FP32] == (FP32, "fp32", "21", "10%", "1.00×", "1.00×")
    assert table[FP16] == (FP16, "fp16", "15", "30%", "0.71×", "0.24×")
    assert table[BF16] == (BF16, "bf16", "33", "30%", "1.57×", "0.52×")
    # Rows only for cases that measured throughput: the skipped ones have none.
    measured = {c["id"] for c in doc["cases"] if c["throughput"]}
    assert set(table) == measured and not any(i.startswith("dataparallel") for i in table)


def test_case_without_mfu_gets_dashes_and_computed_speedup(everything):
    doc, _, md = everything
    by_id = {c["id"]: c for c in doc["cases"]}
    fp16, fp32 = by_id[FP16 + "@inject"]["throughput"], by_id[FP32 + "@inject"]["throughput"]
    row = rows_of(md, "MFU (% of matmul ceiling)")[FP16 + "@inject"]
    assert row == (FP16 + "@inject", "fp16", fmt_measure(fp16["achieved_flops_per_s"] / 1e9), "—",
                   f"{fp16['median'] / fp32['median']:.2f}×", "—")


def test_utilisation_figure_is_drawn_and_linked(everything):
    _, report, md = everything
    names = [f.name for f in report.figures]
    assert "run1_utilisation.png" in names
    assert (report.out_dir / "run1_utilisation.png").is_file()
    assert "![Model FLOP utilisation](run1_utilisation.png)" in md


def test_utilisation_figure_bars_are_mfu_in_precision_colours():
    doc = with_everything(small_doc())
    fig = utilisation.utilisation_figure(run_of(doc))
    bars = fig.axes[0].patches
    assert [round(b.get_width(), 6) for b in bars] == [10.0, 30.0, 30.0]
    assert [to_hex(b.get_facecolor()) for b in bars] == [PRECISION_COLORS[p] for p in ("fp32", "fp16", "bf16")]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [FP32, FP16, BF16]


def test_achieved_flops_without_ceilings_gives_table_but_no_figure(tmp_path):
    doc = add_utilisation(small_doc(), ceilings=None)
    report, md = build(tmp_path, doc)
    assert "Utilisation" in headings(md) and "Hardware ceilings" not in headings(md)
    table = table_with(md, "MFU (% of matmul ceiling)")
    assert {row["MFU (% of matmul ceiling)"] for row in table.values()} == {"—"}
    assert table[FP32]["achieved GFLOP/s"] != "—"
    assert "run1_utilisation.png" not in {f.name for f in report.figures}
    assert utilisation.utilisation_figure(run_of(doc)) is None


def test_no_timed_case_leaves_the_section_out(tmp_path):
    doc = small_doc()
    for case in doc["cases"]:
        case["throughput"] = None
    _, md = build(tmp_path, doc)
    assert "Utilisation" not in headings(md)


# -- gradient health ------------------------------------------------------------------

def test_grad_health_table_has_exact_means(everything):
    _, _, md = everything
    table = rows_of(md, "mean underflow fraction at scale 1")
    assert table == {FP32: (FP32, "fp32", "0.5", "0.5", "0"),
                     FP16: (FP16, "fp16", "0.93", "0.01", "1")}


def test_scaler_section_follows_the_loss_scale(everything):
    _, report, md = everything
    titles = headings(md)
    order = ["Throughput", "Hardware ceilings", "Utilisation", "Loss curves",
             "Deviation from the fp32 baseline", "fp16 loss scale", "Why the scaler matters",
             "Distributed scaling"]
    assert [t for t in titles if t in order] == order
    assert "run1_underflow.png" in {f.name for f in report.figures}
    assert "](run1_underflow.png)" in md


def test_underflow_figure_draws_fp16_with_dashed_fp32_baseline():
    doc = with_everything(small_doc())
    fig = underflow.underflow_figure(run_of(doc))
    (ax,) = fig.axes
    assert ax.get_title() == FP16
    lines = {line.get_label(): line for line in ax.get_lines()}
    unscaled, scaled = lines["fp16, at scale 1 (no scaler)"], lines["fp16, at the scaler's scale"]
    base = lines["fp32 baseline, at scale 1"]
    assert to_hex(unscaled.get_color()) == to_hex(scaled.get_color()) == PRECISION_COLORS["fp16"]
    assert to_hex(base.get_color()) == PRECISION_COLORS["fp32"] and base.get_linestyle() == "--"
    np.testing.assert_allclose(unscaled.get_ydata(), [0.9, 0.93, 0.96])
    np.testing.assert_allclose(base.get_ydata(), [0.5, 0.5, 0.5])
    # Exact zeros cannot sit on a log axis: they are drawn at the floor.
    np.testing.assert_allclose(scaled.get_ydata(), [underflow.DEFAULT_FLOOR] * 2 + [0.03])
    assert ax.get_yscale() == "log" and "0 drawn at 1e-07" in fig.get_suptitle()
    # The step with non-finite gradients (index 1) is marked.
    (marks,) = ax.collections
    np.testing.assert_allclose(marks.get_offsets()[:, 0], [1])


def test_underflow_floor_drops_below_tiny_fractions():
    doc = with_everything(small_doc())
    fp16 = next(c for c in doc["cases"] if c["id"] == FP16)
    fp16["grad_health"]["underflow_fp16_fraction_at_scale"] = [0.0, 3e-9, 0.5]
    fig = underflow.underflow_figure(run_of(doc))
    scaled = next(l for l in fig.axes[0].get_lines() if l.get_label() == "fp16, at the scaler's scale")
    y = scaled.get_ydata()
    assert y[0] == pytest.approx(1e-10) and y[1] == pytest.approx(3e-9) and y[2] == pytest.approx(0.5)


def test_underflow_figure_keeps_the_worst_cases_when_there_are_many():
    doc = add_grad_health(make_results(optimizers=("sgd", "adamw")))
    run = run_of(doc)
    fp16 = [c for c in run.cases if c.precision == "fp16" and c.grad_health]
    assert len(fp16) > underflow.MAX_PANELS
    fig = underflow.underflow_figure(run)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    ranked = sorted(fp16, key=lambda c: -mean_fraction(c, AT_SCALE_1))
    assert titles == [c.id for c in ranked[:underflow.MAX_PANELS]]
    assert f"{underflow.MAX_PANELS} of {len(fp16)} fp16 cases" in fig.get_suptitle()


def test_grad_health_on_fp32_only_gives_table_without_figure(tmp_path):
    doc = small_doc()
    next(c for c in doc["cases"] if c["id"] == FP32)["grad_health"] = GRAD_HEALTH[FP32]
    report, md = build(tmp_path, doc)
    assert "Why the scaler matters" in headings(md)
    assert set(table_with(md, "mean underflow fraction at scale 1")) == {FP32}
    assert "run1_underflow.png" not in {f.name for f in report.figures}


def test_null_grad_health_is_no_grad_health(tmp_path):
    doc = small_doc()
    for case in doc["cases"]:
        case["grad_health"] = None
    _, md = build(tmp_path, doc)
    assert "Why the scaler matters" not in headings(md)


# -- older files and a full suite --------------------------------------------------------

def test_a_file_without_ceilings_or_grad_health_has_none_of_their_sections(single):
    doc, report = single
    md = read(report, "report.md")
    for title in ("Hardware ceilings", "Why the scaler matters"):
        assert title not in headings(md)
    # Every timed case has its achieved FLOP/s; without ceilings there is no MFU to draw.
    assert "Utilisation" in headings(md)
    assert not list(report.glob("*_utilisation.png")) and not list(report.glob("*_underflow.png"))
    assert "Throughput" in headings(md)  # the rest of the report is untouched


def test_full_suite_tables_match_the_json(tmp_path):
    doc = add_grad_health(add_utilisation(make_results(workloads=("plain", "clip_norm"), ddp=False)))
    report, md = build(tmp_path, doc)
    assert {f.name for f in report.figures} == expected_run_figures(doc, "run1")
    table = table_with(md, "MFU (% of matmul ceiling)")
    for case in (c for c in doc["cases"] if c["throughput"]):
        row, tp = table[case["id"]], case["throughput"]
        assert float(row["achieved GFLOP/s"]) == pytest.approx(tp["achieved_flops_per_s"] / 1e9, rel=5e-3)
        assert float(row["MFU (% of matmul ceiling)"].rstrip("%")) == pytest.approx(
            100 * tp["model_flop_utilization"], rel=5e-3)
    health = table_with(md, "mean underflow fraction at scale 1")
    assert set(health) == {c["id"] for c in doc["cases"] if c.get("grad_health")}
    for case in (c for c in doc["cases"] if c.get("grad_health")):
        mean = np.mean(case["grad_health"]["underflow_fp16_fraction_at_scale_1"])
        assert float(health[case["id"]]["mean underflow fraction at scale 1"]) == pytest.approx(mean, rel=5e-3)
    html = read(tmp_path / "report", "index.html")
    assert 'src="run1_utilisation.png"' in html and 'src="run1_underflow.png"' in html


def test_loaded_runs_keep_the_new_fields(tmp_path):
    doc = with_everything(small_doc())
    (run,) = load_runs([write_results(tmp_path / "r.json", doc)])
    assert run.env["ceilings"] == CPU_CEILINGS
    assert run.case(FP16).grad_health == GRAD_HEALTH[FP16]


def with_fp8(doc) -> dict:
    """An fp8_delayed case beside the fp32 baseline: two Linear layers, one
    converted with its scales, one left out with its reason."""
    case = copy.deepcopy(next(c for c in doc["cases"] if c["id"] == BF16))
    case.update(id="plain/mlp/fp8_delayed/sgd", precision="fp8_delayed", fp8={
        "scaling": "delayed", "history_len": 16, "margin": 0, "amax_compute": "max",
        "layers": [{"name": "fc1", "in_features": 32, "out_features": 64, "converted": False,
                    "reason": "the first Linear (convert_first off)"},
                   {"name": "fc2", "in_features": 64, "out_features": 64, "converted": True, "reason": None,
                    "range": {"input": {"saturated": 0, "flushed": 3, "elements": 1000},
                              "weight": {"saturated": 0, "flushed": 0, "elements": 400},
                              "grad_output": {"saturated": 25, "flushed": 0, "elements": 1000}},
                    "scales": {"input": [1.0, 120.0, 118.0], "weight": [1.0, 900.0, 905.0],
                               "grad_output": [1.0, None, 3.0e5]}}]})
    doc["cases"].append(case)
    return doc


def test_fp8_scales_figure_draws_each_operand_of_each_converted_layer(tmp_path):
    run = run_of(with_fp8(small_doc()))
    fig = fp8_scales.fp8_scale_figure(run)
    (ax,) = fig.axes
    assert ax.get_title().startswith("plain/mlp/fp8_delayed/sgd") and ax.get_yscale() == "log"
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"input", "weight", "grad output"}  # fc1 is not converted: no lines
    np.testing.assert_allclose(lines["weight"].get_ydata(), [1.0, 900.0, 905.0])
    # A null scale (not finite in the run) is a gap, not a zero.
    assert np.isnan(lines["grad output"].get_ydata()[1])
    report, md = build(tmp_path, with_fp8(small_doc()))
    assert "run1_fp8_scales.png" in {f.name for f in report.figures} and "## FP8 scales" in md.replace("###", "##")
    table = table_with(md, "output gradient: past range / flushed")
    row = table["plain/mlp/fp8_delayed/sgd"]
    assert [row[k] for k in ("layer", "input: past range / flushed", "weight: past range / flushed",
                             "output gradient: past range / flushed")] == ["fc2", "0 / 0.003", "0 / 0", "0.025 / 0"]


def test_a_run_without_fp8_cases_has_no_fp8_figure_or_section(tmp_path):
    assert fp8_scales.fp8_scale_figure(run_of(small_doc())) is None
    report, md = build(tmp_path, small_doc())
    assert "FP8 scales" not in md
