"""The command line: exit codes, one-line errors, all-or-nothing output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reports import build_report
from reports.cli import main
from reports.tests.sample_results import make_results, write_results

REPO_ROOT = Path(__file__).resolve().parents[2]


def small_results(tmp_path, name="small.json", **kwargs) -> str:
    """One workload only: these tests are about the CLI, not the figures."""
    doc = make_results(workloads=("plain",), models=("mlp",), ddp=False,
                       negative_controls=False, **kwargs)
    return write_results(tmp_path / name, doc)


@pytest.fixture
def no_figures(monkeypatch):
    """For tests about the output folder only: drawing is covered elsewhere
    and is the slow part."""
    monkeypatch.setattr("reports.build.render_figures", lambda runs, out_dir, jobs=None: [])


def leftovers(out: Path) -> list:
    """Staging folders build_report might have left beside DIR."""
    return [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]


def assert_one_error_line(capsys, path) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"reports: error: {path}: "), err
    return lines[0]


def test_python_dash_m_reports(tmp_path):
    out = tmp_path / "report"
    proc = subprocess.run([sys.executable, "-m", "reports", small_results(tmp_path), "--out", str(out)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (out / "index.html").is_file() and (out / "report.md").is_file()
    assert leftovers(out) == []


def test_malformed_file_exits_2_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = tmp_path / "report"
    assert main([str(bad), "--out", str(out)]) == 2
    assert "not valid JSON" in assert_one_error_line(capsys, bad)
    assert not out.exists() and leftovers(out) == []


def test_missing_file_exits_2(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    assert main([str(missing), "--out", str(tmp_path / "report")]) == 2
    assert "no such file" in assert_one_error_line(capsys, missing)


def test_schema_version_mismatch_exits_2(tmp_path, capsys):
    doc = make_results(workloads=("plain",), models=("mlp",))
    doc["schema_version"] = 3
    path = write_results(tmp_path / "v3.json", doc)
    assert main([path, "--out", str(tmp_path / "report")]) == 2
    assert ".schema_version: is 3" in assert_one_error_line(capsys, path)


def test_one_bad_file_among_several_is_named(tmp_path, capsys):
    good = small_results(tmp_path)
    doc = make_results(workloads=("plain",), models=("mlp",))
    del doc["cases"][0]["throughput"]["median"]
    bad = write_results(tmp_path / "bad.json", doc)
    out = tmp_path / "report"
    assert main([good, bad, "--out", str(out)]) == 2
    assert "throughput.median" in assert_one_error_line(capsys, bad)
    assert not out.exists()


def test_bad_input_keeps_previous_report(tmp_path, capsys):
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("previous report")
    bad = tmp_path / "bad.json"
    bad.write_text("")
    assert main([str(bad), "--out", str(out)]) == 2
    assert_one_error_line(capsys, bad)
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert (out / "index.html").read_text() == "previous report"


def test_success_replaces_previous_contents(tmp_path, no_figures):
    out = tmp_path / "report"
    out.mkdir()
    (out / "stale_figure.png").write_text("old")
    assert main([small_results(tmp_path), "--out", str(out)]) == 0
    assert not (out / "stale_figure.png").exists()
    assert (out / "index.html").is_file()
    assert leftovers(out) == []


def test_failure_while_rendering_leaves_dir_untouched(tmp_path, monkeypatch, no_figures):
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("previous report")

    def explode(blocks):
        raise RuntimeError("renderer broke")

    monkeypatch.setattr("reports.build.render_html", explode)
    with pytest.raises(RuntimeError):
        build_report([small_results(tmp_path)], out)
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert leftovers(out) == []


def test_out_is_a_file_exits_1(tmp_path, capsys):
    out = tmp_path / "report"
    out.write_text("not a folder")
    assert main([small_results(tmp_path), "--out", str(out)]) == 1
    assert "not a directory" in capsys.readouterr().err


def test_refuses_to_replace_a_folder_that_is_not_a_report(tmp_path, capsys):
    out = tmp_path / "src"
    out.mkdir()
    (out / "main.cpp").write_text("int main() {}")
    assert main([small_results(tmp_path), "--out", str(out)]) == 1
    assert "refusing to replace it" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["main.cpp"]
    assert leftovers(out) == []


def test_out_is_required(tmp_path):
    with pytest.raises(SystemExit) as info:
        main([small_results(tmp_path)])
    assert info.value.code == 2


def test_an_autocast_ops_table_becomes_a_section(tmp_path):
    import json
    from reports.cli import main
    from reports.tests.sample_results import make_results, write_results
    side = {"op": "softmax", "list": "fp32", "dtype": "float16", "output_dtype": "float32",
            "bitwise_equal_to_manual_cast": None, "error": None}
    table = {"device": "cpu", "libtorch": "2.11.0", "summary": {"agree": 1, "rows": 2},
             "verdicts": [{"op": "softmax", "agrees": True, "expected": side, "got": side, "message": None},
                          {"op": "matmul", "agrees": False, "message": "output dtype float32, Python's float16",
                           "expected": dict(side, op="matmul", list="lower_precision", output_dtype="float16"),
                           "got": dict(side, op="matmul", list="lower_precision")}]}
    (tmp_path / "a.json").write_text(json.dumps(table))
    results = write_results(tmp_path / "r.json", make_results())
    assert main([str(results), "--autocast-ops", str(tmp_path / "a.json"), "--out", str(tmp_path / "rep"),
                 "--jobs", "1"]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Autocast op policy" in md and "1 of 2 rows agree with Python's torch.autocast on cpu" in md
    assert "| matmul | lower_precision | float16 | float16 | float32 | - / - | fail | output dtype float32" in md
    # PyTorch's lists: coverage per list, and rows C++ could not call or that
    # only one side has.
    table["coverage"] = [{"list": "torch_16", "entries": 16, "rows": 32, "ran": 30, "agree": 30, "disagree": 0,
                          "cannot_call": 2, "skipped": 0}]
    table["verdicts"].append({"op": "conv_tbc", "agrees": False, "status": "cannot_call",
                              "message": "cannot be called from C++: no operator aten::conv_tbc in this LibTorch",
                              "expected": dict(side, op="conv_tbc", list="torch_16"),
                              "got": dict(side, op="conv_tbc", list="torch_16", output_dtype=None,
                                          cannot_call="no operator aten::conv_tbc in this LibTorch")})
    table["verdicts"].append({"op": "prelu", "dtype": "bfloat16", "agrees": False, "status": "disagrees",
                              "message": "in Python's table but not in the op list",
                              "expected": dict(side, op="prelu", list="torch_16", dtype="bfloat16"), "got": None})
    (tmp_path / "a2.json").write_text(json.dumps(table))
    assert main([str(results), "--autocast-ops", str(tmp_path / "a2.json"), "--out", str(tmp_path / "rep3"),
                 "--jobs", "1"]) == 0
    md = (tmp_path / "rep3" / "report.md").read_text()
    assert "| torch_16 | 16 | 32 | 30 | 30 | 0 | 2 | 0 |" in md
    assert "| conv_tbc | torch_16 | float16 | float32 | cannot call: no operator aten::conv_tbc in this LibTorch" in md
    assert "| cannot call |" in md
    assert "| prelu | torch_16 | bfloat16 | float32 | - | - / - | fail |" in md
    (tmp_path / "bad.json").write_text(json.dumps({"cases": []}))
    assert main([str(results), "--autocast-ops", str(tmp_path / "bad.json"), "--out", str(tmp_path / "rep2")]) == 2
    assert not (tmp_path / "rep2").exists()
