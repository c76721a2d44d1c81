from reference.python.tests.results_samples import case_doc, write_doc
from reference.python.throughput_ratio import main


def results(path, medians):
    return write_doc(path, [case_doc(i, throughput={"median": m} if m else None) for i, m in medians.items()])


def test_ratios_and_geometric_mean(tmp_path, capsys):
    cpp = results(tmp_path / "c.json", {"a": 200.0, "b": 50.0, "only_cpp": 1.0, "unmeasured": None})
    py = results(tmp_path / "p.json", {"a": 100.0, "b": 100.0, "unmeasured": 3.0})
    assert main([cpp, py]) == 0
    out = capsys.readouterr().out
    assert "  2.00\n" in out and "  0.50\n" in out
    assert "geometric mean C++/Python over 2 cases: 1.00 (min 0.50, max 2.00)" in out
    assert "only_cpp" not in out and "unmeasured" not in out


def test_nothing_in_common_or_unreadable_exits_2(tmp_path, capsys):
    a = results(tmp_path / "a.json", {"x": 1.0})
    b = results(tmp_path / "b.json", {"y": 1.0})
    assert main([a, b]) == 2
    assert main([a, str(tmp_path / "missing.json")]) == 2
    assert main([a]) == 2
    (tmp_path / "bare.json").write_text('{"cases": []}')
    assert main([a, str(tmp_path / "bare.json")]) == 2
    assert "bare.json: .schema: is None, expected 'ampbench.results'" in capsys.readouterr().err


def test_a_cuda_graph_case_is_measured_against_pythons_uncaptured_one(tmp_path, capsys):
    cpp = results(tmp_path / "c.json", {"plain/mlp/bf16/adamw+fused+graph@big": 300.0, "plain/mlp/bf16/adamw+fused": 150.0})
    py = results(tmp_path / "p.json", {"plain/mlp/bf16/adamw+fused@big": 100.0, "plain/mlp/bf16/adamw+fused": 100.0})
    assert main([cpp, py]) == 0
    out = capsys.readouterr().out
    assert "plain/mlp/bf16/adamw+fused+graph@big" in out and "  3.00\n" in out and "  1.50\n" in out
