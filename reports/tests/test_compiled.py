"""A compiled run's report: per case, the graphs and breaks with their
reasons, fullgraph, compile seconds, and the compiled loop's speed over the
eager C++ loop's, as results.json states them; an eager run has no such
section."""

from __future__ import annotations

from reports.document import build_document
from reports.render_markdown import render_markdown
from reports.runs import implementation, load_runs
from reports.tests.sample_results import make_results, write_results

SMALL = {"workloads": ("plain",), "models": ("mlp",), "negative_controls": False, "ddp": False}


def _compiled(doc: dict) -> dict:
    doc["env"]["implementation"] = "compiled"
    doc["env"]["compile"] = {"mode": "max-autotune-no-cudagraphs", "compile_step": True}
    for k, case in enumerate(c for c in doc["cases"] if c["precision"] != "fp32"):
        case["implementation"] = "compiled"
        breaks = [{"reason": "Tensor.item() call"}] if k == 0 else []
        case["compiled"] = {
            "mode": "max-autotune-no-cudagraphs", "compile_step": True, "fault": None, "torch_version": "2.15.0",
            "graphs": 1 + len(breaks), "graph_break_count": len(breaks), "graph_breaks": breaks, "recompiles": 0,
            "ran_eager": bool(breaks), "fullgraph": {"ok": not breaks, "reason": "item() in forward" if breaks else None},
            "compile_seconds": {"cold": 14.25, "warm": 0.5},
            "eager_throughput": {"samples_per_s": [100.0, 100.0], "median": 100.0},
            "speedup_vs_eager": 2.5, "emulated_max_ratio": 0.75 if k == 0 else None}
    return doc


def _markdown(tmp_path, doc) -> str:
    runs = load_runs([write_results(tmp_path / "results.json", doc)])
    return render_markdown(build_document(runs, []))


def test_a_compiled_run_shows_breaks_compile_time_and_speedup(tmp_path):
    doc = _compiled(make_results(**SMALL))
    md = _markdown(tmp_path, doc)
    assert "### Compiled training" in md and "mode max-autotune-no-cudagraphs, optimizer step compiled" in md
    table = md[md.index("| case | graphs | graph breaks |"):].split("\n\n")[0]
    compiled = [c for c in doc["cases"] if "compiled" in c]
    assert len(table.splitlines()) == 2 + len(compiled)
    first = next(line for line in table.splitlines() if line.startswith(f"| {compiled[0]['id']} |"))
    assert "| 2 | 1: Tensor.item() call | no: item() in forward | 14.2 s | 0.5 s | 100.0 |" in first
    assert "| 2.50× | 0.75 |" in first


def test_a_cold_compile_on_a_kept_cache_says_so(tmp_path):
    doc = _compiled(make_results(**SMALL))
    compiled = [c for c in doc["cases"] if "compiled" in c]
    compiled[0]["compiled"]["compile_seconds"]["cold_cache_reused"] = True
    compiled[1]["compiled"]["compile_seconds"]["cold_cache_reused"] = False
    md = _markdown(tmp_path, doc)
    lines = md[md.index("| case | graphs | graph breaks |"):].split("\n\n")[0].splitlines()
    row = {c["id"]: next(line for line in lines if line.startswith(f"| {c['id']} |")) for c in compiled[:2]}
    assert "| 14.2 s (cache reused) | 0.5 s |" in row[compiled[0]["id"]]
    assert "| 14.2 s | 0.5 s |" in row[compiled[1]["id"]]


def test_an_eager_run_has_no_compiled_section_and_says_who_ran_it(tmp_path):
    doc = make_results(**SMALL)
    assert "Compiled training" not in _markdown(tmp_path, doc)
    assert implementation(doc["env"]) == "C++"
    assert implementation(_compiled(doc)["env"]) == "torch.compile"
