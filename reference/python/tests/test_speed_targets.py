import json

from reference.python.speed_targets import main
from reference.python.tests.results_samples import case_doc, results_doc, write_doc


def case(id_, model="decoder", precision="bf16", status="pass", **throughput):
    return case_doc(id_, status=status, throughput=throughput or None, model=model, precision=precision)


def write(path, cases):
    return write_doc(path, cases)


def rows_of(out):
    return {(r["target"], r["case"]): r["verdict"] for r in json.loads(out.read_text())["rows"]}


def test_decoder_mfu_and_speedup_targets_per_precision(tmp_path):
    large = write(tmp_path / "l.json", [
        case("plain/decoder/fp32/adamw+fused", precision="fp32", median=10.0),
        case("plain/decoder/bf16/adamw+fused", median=30.0, model_flop_utilization=0.46, speedup_vs_fp32=3.0),
        case("plain/decoder/fp16/adamw+fused", precision="fp16", median=20.0, model_flop_utilization=0.41,
             speedup_vs_fp32=2.0),
        case("clip_norm/decoder/bf16/adamw+fused", median=30.0, model_flop_utilization=0.44),
        case("plain/mlp/bf16/adamw+fused", model="mlp", model_flop_utilization=0.1),
        case("accumulation/decoder/fp16/adamw+fused", precision="fp16", status="skipped")])
    out = tmp_path / "t.json"
    assert main(["--large", large, "--out", str(out)]) == 0
    rows = rows_of(out)
    assert rows[("bf16 decoder MFU", "plain/decoder/bf16/adamw+fused")] == "met"
    assert rows[("bf16 decoder MFU", "clip_norm/decoder/bf16/adamw+fused")] == "missed"  # 44% < 45%
    assert rows[("fp16 decoder MFU", "plain/decoder/fp16/adamw+fused")] == "met"  # 41% >= 40%
    assert rows[("fp16 decoder vs fp32", "plain/decoder/fp16/adamw+fused")] == "missed"  # 2.0 < 2.5
    assert rows[("bf16 decoder vs fp32", "plain/decoder/bf16/adamw+fused")] == "met"
    assert rows[("fp16 decoder MFU", "accumulation/decoder/fp16/adamw+fused")] == "not measured"
    assert not any(c.startswith("plain/mlp") or "/fp32/" in c for _, c in rows)


def test_cpp_against_python_with_the_higher_bound_for_small_graph_cases(tmp_path, capsys):
    large = write(tmp_path / "l.json", [])
    tp = write(tmp_path / "c.json", [
        case("plain/mlp/bf16/adamw+fused", model="mlp", median=110.0),
        case("plain/mlp/bf16/adamw+fused+graph", model="mlp", median=120.0),
        case("plain/mlp/fp32/adamw", model="mlp", precision="fp32", median=90.0),
        case("plain/mlp/fp16/adamw+fused+graph", model="mlp", precision="fp16", status="skipped")])
    py = write(tmp_path / "p.json", [case("plain/mlp/bf16/adamw+fused", median=100.0),
                                     case("plain/mlp/fp16/adamw+fused", median=100.0)])
    out = tmp_path / "t.json"
    assert main(["--large", large, "--throughput", tp, "--throughput-python", py, "--out", str(out)]) == 0
    rows = rows_of(out)
    assert rows == {("C++/Python eager >= 1.0", "plain/mlp/bf16/adamw+fused"): "met",
                    ("C++/Python eager >= 1.3", "plain/mlp/bf16/adamw+fused+graph"): "missed"}  # 1.2
    assert "1 met, 1 missed, 0 not measured" in capsys.readouterr().out


def test_unreadable_files_exit_2(tmp_path, capsys):
    assert main(["--large", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "bad.json").write_text(json.dumps(dict(results_doc([]), cases=3)))
    assert main(["--large", str(tmp_path / "bad.json")]) == 2
    assert "bad.json: .cases: 3 is not of type 'array'" in capsys.readouterr().err
    assert main([]) == 2
