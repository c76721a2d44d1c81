"""C++ against Python per architecture: paired only on the same machine,
ratios C++ / Python recomputable from the two files."""

from __future__ import annotations


import pytest

from reports.document import build_document
from reports.implementations import implementation_pairs, per_model_ratios
from reports.render_markdown import render_markdown
from reports.runs import load_runs
from reports.tests.sample_results import make_results, write_results

SMALL = {"workloads": ("plain", "clip_norm"), "models": ("mlp", "cnn"), "negative_controls": False,
         "ddp": False}


def _python(doc: dict, speed: float) -> dict:
    """The same suite as a Python bench file: every rate divided by `speed`."""
    doc["env"]["implementation"] = "python"
    for case in doc["cases"]:
        tp = case["throughput"]
        if tp:
            tp["samples_per_s"] = [s / speed for s in tp["samples_per_s"]]
            for key in ("median", "min", "max", "iqr"):
                tp[key] /= speed
    return doc


@pytest.fixture
def cpp_and_python(tmp_path):
    cpp = write_results(tmp_path / "cpp.json", make_results(**SMALL))
    python = write_results(tmp_path / "python.json", _python(make_results(**SMALL), 2.0))
    return load_runs([python, cpp])


def test_cpp_over_python_is_the_ratio_of_the_medians(cpp_and_python):
    python, cpp = cpp_and_python
    assert implementation_pairs(cpp_and_python) == [(cpp, python)]
    per_model = per_model_ratios(cpp, python)
    assert set(per_model) == {"mlp", "cnn"}
    timed = [c for c in cpp.cases if c.throughput]
    assert sum(len(r) for r in per_model.values()) == len(timed)
    for ratios in per_model.values():
        assert ratios == pytest.approx([2.0] * len(ratios))


def test_the_report_has_a_row_per_model_and_precision(cpp_and_python):
    python, cpp = cpp_and_python
    md = render_markdown(build_document(cpp_and_python, []))
    summary = md[:md.index("## Environment")]
    assert "run2 (C++) against run1 (Python eager) on the same machine: C++ / Python 2.00×" in summary
    section = md[md.index("### C++ against Python eager, per architecture: run2 and run1"):]
    table = section.split("\n\n")[2].splitlines()[2:]
    rows = {tuple(cells.split(" | ")[:2]) for cells in table}
    precisions = {c.precision for c in cpp.cases if c.throughput}
    assert rows == {(f"| {m}", p) for m in ("mlp", "cnn") for p in precisions}
    for line in table:
        cells = line.strip("| ").split(" | ")
        assert float(cells[2]) / float(cells[3]) == pytest.approx(2.0, rel=0.01)
        assert cells[4].startswith("2.00× (") and cells[5].startswith("2.00× (")


def test_files_from_different_machines_are_not_paired(tmp_path):
    cpp = write_results(tmp_path / "cpp.json", make_results(**SMALL))
    other = _python(make_results(**SMALL, gpu="NVIDIA H200"), 2.0)
    runs = load_runs([cpp, write_results(tmp_path / "python.json", other)])
    assert implementation_pairs(runs) == []
    assert "per architecture" not in render_markdown(build_document(runs, []))


def test_two_cpp_files_have_no_such_section(tmp_path):
    paths = [write_results(tmp_path / f"r{k}.json", make_results(**SMALL)) for k in range(2)]
    runs = load_runs(paths)
    assert implementation_pairs(runs) == []


def test_a_compiled_runs_fp32_is_its_compiled_twin_not_the_eager_baseline(tmp_path):
    """In a compiled run "plain/mlp/fp32/sgd" is the eager C++ baseline it is
    judged against; the fp32 training torch.compile ran is "...#compiled".
    Pairing the baseline would compare C++ with C++."""
    import copy

    cpp_doc = make_results(**SMALL)
    compiled = _python(make_results(**SMALL), 1.0)
    compiled["env"]["implementation"] = "compiled"
    twins = []
    for case in compiled["cases"]:
        if case["precision"] == "fp32" and case["throughput"]:
            twin = _python({"env": {}, "cases": [copy.deepcopy(case)]}, 4.0)["cases"][0]
            twin["id"] += "#compiled"
            twins.append(twin)
    compiled["cases"] += twins
    runs = load_runs([write_results(tmp_path / "cpp.json", cpp_doc), write_results(tmp_path / "c.json", compiled)])
    per_model = per_model_ratios(runs[0], runs[1])
    fp32 = {c.id for c in runs[0].cases if c.precision == "fp32" and c.throughput}
    assert fp32 and all(runs[1].case(i + "#compiled") for i in fp32)
    ratios = sorted(r for rs in per_model.values() for r in rs)
    assert ratios.count(pytest.approx(4.0)) == len(fp32), "fp32 paired with its compiled twin"
    assert ratios.count(pytest.approx(1.0)) == len(ratios) - len(fp32)
