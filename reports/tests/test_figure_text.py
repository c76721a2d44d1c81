"""Text in the figures is data, shown as it is: a `$` in a case id, a GPU
name or a file name is not mathtext (matplotlib would fail the whole figure
on `$x^$`), and no axis of ours prints mathtext source instead."""

from __future__ import annotations

from matplotlib.text import Text

from reports import build_report
from reports.figures import comparison_jobs, run_jobs
from reports.figures.style import plain_text
from reports.runs import load_runs
from reports.tests.sample_results import make_results, write_results

SMALL = {"workloads": ("plain",), "models": ("mlp",), "negative_controls": False}


def with_dollars(doc) -> dict:
    """The tagged case and its baseline renamed with `$`, and the GPU too."""
    for case in doc["cases"]:
        for key in ("id", "baseline_id"):
            if case[key]:
                case[key] = case[key].replace("@inject", "@$x^$")
        if case.get("tag") == "inject":
            case["tag"] = "$x^$"
    doc["env"]["gpu_name"] = r"NVIDIA $\undefinedmacro$"
    return doc


def test_dollar_signs_in_ids_and_names_do_not_fail_the_report(tmp_path):
    docs = [with_dollars(make_results(**SMALL)), with_dollars(make_results(**SMALL, speed=2.0))]
    paths = [write_results(tmp_path / f"run$${i}.json", doc) for i, doc in enumerate(docs)]
    report = build_report(paths, tmp_path / "report", jobs=1)
    assert report.figures and all((tmp_path / "report" / f.name).stat().st_size > 0 for f in report.figures)
    assert "@$x^$" in (tmp_path / "report" / "index.html").read_text()


def test_no_figure_shows_mathtext_source(tmp_path):
    """Every figure of a C++ against Python comparison, drawn as the report
    draws it: the log axes label themselves in plain text."""
    docs = [make_results(**SMALL), make_results(**SMALL, speed=2.0)]
    docs[1]["env"]["implementation"] = "python"
    runs = load_runs([write_results(tmp_path / f"run{i}.json", doc) for i, doc in enumerate(docs)])
    jobs = comparison_jobs(runs) + [job for run in runs for job in run_jobs(run)]
    assert any(job.spec.name == "implementations.png" for job in jobs)
    for job in jobs:
        with plain_text():
            fig = job.draw(*job.args)
            if fig is None:
                continue
            fig.canvas.draw()
            shown = [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
        assert not [s for s in shown if "mathdefault" in s or "\\times" in s], job.spec.name
