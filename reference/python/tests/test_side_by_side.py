import json
import sys
from pathlib import Path

import pytest

from reference.python import side_by_side
from reference.python.side_by_side import main, summarize

ROOT = Path(__file__).resolve().parents[3]

# A stand-in for either implementation: writes the results file its --out
# names (a folder for ampbench, a file for the bench) with the medians given
# in its argv, after logging which side ran.
FAKE = r'''
import json, sys
from pathlib import Path
sys.path.insert(0, ROOT)
from reference.python.tests.results_samples import case_doc, results_doc
side, log, medians = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
argv = sys.argv[4:]
out = Path(argv[argv.index("--out") + 1])
if side == "cpp":
    out.mkdir(parents=True, exist_ok=True)
    out = out / "results.json"
suite = json.loads(Path(argv[argv.index("--suite") + 1]).read_text())
with open(log, "a") as f:
    f.write(f"{side} {suite['throughput']['measured_steps']}\n")
if medians is None:
    sys.exit(3)
out.write_text(json.dumps(results_doc([case_doc(i, throughput={"median": m}) for i, m in medians.items()])))
'''.replace("ROOT", repr(str(ROOT)))


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    log = tmp_path / "order.log"
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps({"throughput": {"measured_steps": 3, "repetitions": 4}}))

    def install(cpp_medians, py_medians):
        monkeypatch.setattr(side_by_side, "cpp_command",
                            lambda a, s, o: [sys.executable, str(script), "cpp", str(log), json.dumps(cpp_medians),
                                             "--suite", str(s), "--out", str(o)])
        monkeypatch.setattr(side_by_side, "python_command",
                            lambda a, s, o: [sys.executable, str(script), "py", str(log), json.dumps(py_medians),
                                             "--suite", str(s), "--out", str(o)])
    return install, log, suite


def base_args(suite, out):
    return ["--binary", sys.executable, "--suite", str(suite), "--out", str(out)]


def test_the_median_of_per_round_ratios_is_reported_per_case():
    rounds = [({"a": 300.0, "b": 10.0, "c+graph": 40.0}, {"a": 100.0, "b": 10.0, "c": 10.0}),
              ({"a": 100.0, "b": 30.0, "c+graph": 20.0}, {"a": 100.0, "b": 10.0, "c": 10.0}),
              ({"a": 200.0, "c+graph": 30.0}, {"a": 100.0, "b": 10.0, "c": 10.0})]
    rows = {r["id"]: r for r in summarize(rounds)}
    assert set(rows) == {"a", "c+graph"}  # b was not measured in every round
    assert rows["a"]["ratios"] == [3.0, 1.0, 2.0] and rows["a"]["median_ratio"] == 2.0
    assert rows["c+graph"]["median_ratio"] == 3.0  # against Python's uncaptured "c"
    assert rows["a"]["cpp_median"] == 200.0 and rows["a"]["python_median"] == 100.0


def test_rounds_alternate_and_share_the_lengthened_suite(fakes, tmp_path, capsys):
    install, log, suite = fakes
    install({"a": 200.0, "b": 90.0}, {"a": 100.0, "b": 100.0})
    out = tmp_path / "out"
    assert main(base_args(suite, out) + ["--rounds", "3", "--measured-steps", "20"]) == 0
    assert log.read_text().split("\n")[:-1] == ["cpp 20", "py 20", "py 20", "cpp 20", "cpp 20", "py 20"]
    table = capsys.readouterr().out
    assert "2.00  2.00-2.00" in table and "0.90  0.90-0.90" in table
    assert "geometric mean of the median ratios over 2 cases: 1.34" in table
    assert json.loads((out / "side_by_side.json").read_text())["rounds"] == 3
    assert (out / "round-2" / "cpp" / "results.json").exists()


def test_at_least_names_the_cases_below_it(fakes, tmp_path, capsys):
    install, _, suite = fakes
    install({"a": 200.0, "b": 90.0}, {"a": 100.0, "b": 100.0})
    assert main(base_args(suite, tmp_path / "o") + ["--rounds", "1", "--at-least", "1.0"]) == 1
    assert "below 1.0: b" in capsys.readouterr().err
    assert main(base_args(suite, tmp_path / "p") + ["--rounds", "1", "--at-least", "0.9"]) == 0


def test_a_run_that_fails_or_shares_nothing_exits_2(fakes, tmp_path, capsys):
    install, _, suite = fakes
    install(None, {"a": 1.0})
    assert main(base_args(suite, tmp_path / "o") + ["--rounds", "1"]) == 2
    assert "exited 3 (log: " in capsys.readouterr().err
    install({"x": 1.0}, {"y": 1.0})
    assert main(base_args(suite, tmp_path / "p") + ["--rounds", "1"]) == 2
    assert "no case was measured by both sides" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--rounds", "0"], ["--measured-steps", "0"], ["--binary", "/nonexistent/ampbench"]])
def test_bad_usage_exits_2(tmp_path, extra):
    suite = tmp_path / "s.json"
    suite.write_text("{}")
    assert main(base_args(suite, tmp_path / "o") + extra) == 2
