"""A built report: figures exist, links resolve, tables say what the JSON says."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from matplotlib.image import imread

from reference.python.results_file import parse_results
from reports import build_report
from reports.figures import curves, throughput
from reports.figures.style import PRECISION_COLORS
from reports.runs import Run, env_fingerprint, load_runs, machine
from reports.tables import negative_control_line, run_warnings
from reports.tests.sample_results import make_results, write_results

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# -- helpers --------------------------------------------------------------------

def expected_run_figures(doc, tag) -> set:
    """Figure names the fixture's structure calls for (see figures/__init__)."""
    cases = doc["cases"]
    # loss curves leave negative controls to the deviation figure
    with_loss = {c["workload"] for c in cases if c["expect"] == "pass" and c["trajectory"]["loss"]}
    checked = {c["workload"] for c in cases if c["check"]}
    fp16 = {c["workload"] for c in cases if c["precision"] == "fp16" and c["trajectory"]["scale"]}
    names = {f"{tag}_throughput.png"}
    names |= {f"{tag}_convergence_{c['workload']}.png" for c in cases
              if (c.get("convergence") or {}).get("runs")}
    names |= {f"{tag}_loss_{w}.png" for w in with_loss}
    names |= {f"{tag}_deviation_{w}.png" for w in checked}
    names |= {f"{tag}_scale_{w}.png" for w in fp16}
    if any(c["ddp"] for c in cases):
        names.add(f"{tag}_ddp.png")
    if any((c["throughput"] or {}).get("model_flop_utilization") is not None for c in cases):
        names.add(f"{tag}_utilisation.png")
    if any(c.get("grad_health") and c["precision"] == "fp16" for c in cases):
        names.add(f"{tag}_underflow.png")
    return names


def markdown_tables(md: str) -> list:
    """[(headers, rows)] for every pipe table in the Markdown."""
    tables, block = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            block.append([c.strip() for c in line.strip().strip("|").split(" | ")])
        elif block:
            tables.append((tuple(block[0]), block[2:]))
            block = []
    return tables


def table_with(md: str, header: str) -> dict:
    """Rows keyed by case id of the first table having `header`."""
    for headers, rows in markdown_tables(md):
        if header in headers:
            return {row[0]: dict(zip(headers, row)) for row in rows}
    raise AssertionError(f"no table with column {header!r}")


def number(cell: str) -> float:
    return float(cell.rstrip("×").split()[0])


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets, self.tags, self.ids, self.fragments = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for key, value in attrs:
            if key == "id":
                self.ids.append(value)
            elif key in ("src", "href"):
                (self.fragments if value.startswith("#") else self.targets).append(value)


def read(report: Path, name: str) -> str:
    return (report / name).read_text(encoding="utf-8")


# -- figures --------------------------------------------------------------------

def test_every_figure_is_produced(single):
    doc, report = single
    pngs = {p.name for p in report.glob("*.png")}
    assert pngs == expected_run_figures(doc, "run1")
    # dataparallel: every case skipped, so no curve figures for it
    assert not any("dataparallel" in name for name in pngs)


def test_comparison_figures_are_produced(pair):
    docs, report = pair
    pngs = {p.name for p in report.glob("*.png")}
    expected = expected_run_figures(docs[0], "run1") | expected_run_figures(docs[1], "run2")
    expected |= {f"compare_{c['workload']}.png" for doc in docs for c in doc["cases"] if c["throughput"]}
    expected |= {"ratio_run2.png"}  # run2 against run1, case by case
    assert pngs == expected


def test_ddp_figure_absent_without_ddp_cases(pair):
    _, report = pair
    assert (report / "run1_ddp.png").exists()
    assert not (report / "run2_ddp.png").exists()
    assert "No distributed (DDP / DataParallel) cases in this run." in read(report, "report.md")


def test_figures_are_readable_pngs(pair):
    _, report = pair
    for png in report.glob("*.png"):
        assert png.read_bytes()[:8] == PNG_MAGIC, png.name
        height, width = imread(png).shape[:2]
        assert height >= 250 and width >= 400, png.name


def test_precision_colours_are_fixed_across_figures(tmp_path):
    run = load_runs([write_results(tmp_path / "r.json", make_results())])[0]
    cases = [c for c in run.cases if c.workload == "clip_norm"]
    figs = [curves.loss_figure(run, "clip_norm", cases),
            curves.deviation_figure(run, "clip_norm", cases),
            curves.scale_figure(run, "clip_norm", cases)]
    for fig in figs:
        for ax in fig.axes:
            for line in ax.get_lines():
                precision = line.get_label().split()[0]
                if precision in PRECISION_COLORS:
                    assert line.get_color() == PRECISION_COLORS[precision], line.get_label()
    bars = [p for ax in throughput.throughput_figure(run).axes for p in ax.patches]
    colours = {tuple(round(v, 3) for v in bar.get_facecolor()[:3]) for bar in bars}
    allowed = {tuple(round(int(c[i:i + 2], 16) / 255, 3) for i in (1, 3, 5))
               for c in PRECISION_COLORS.values()}
    assert colours and colours <= allowed


# -- links ------------------------------------------------------------------------

@pytest.mark.parametrize("fixture", ["single", "pair"])
def test_html_references_only_existing_files(fixture, request):
    _, report = request.getfixturevalue(fixture)
    links = Links()
    links.feed(read(report, "index.html"))
    assert links.targets, "no images referenced"
    for target in links.targets:
        assert "://" not in target and not target.startswith("/"), target
        assert (report / target).is_file(), target
    assert "script" not in links.tags and "link" not in links.tags  # self-contained
    assert {Path(t).name for t in links.targets} == {p.name for p in report.glob("*.png")}
    assert len(links.ids) == len(set(links.ids))
    assert {f.lstrip("#") for f in links.fragments} <= set(links.ids)


def test_markdown_references_existing_files(pair):
    _, report = pair
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", read(report, "report.md"))
    assert set(images) == {p.name for p in report.glob("*.png")}


# -- tables -------------------------------------------------------------------------

def test_throughput_table_matches_json(single):
    doc, report = single
    table = table_with(read(report, "report.md"), "speedup vs fp32")
    by_id = {c["id"]: c for c in doc["cases"]}
    measured = [c for c in doc["cases"] if c["throughput"]]
    assert set(table) == {c["id"] for c in measured}
    for case in measured:
        row, tp = table[case["id"]], case["throughput"]
        assert number(row["median (samples/s)"]) == pytest.approx(tp["median"], abs=0.05)
        low, high = (number(x) for x in row["min – max"].split(" – "))
        assert (low, high) == (pytest.approx(tp["min"], abs=0.05), pytest.approx(tp["max"], abs=0.05))
        assert number(row["IQR"]) == pytest.approx(tp["iqr"], abs=0.05)
        assert int(row["reps"]) == tp["repetitions"]
        base = by_id[case["baseline_id"]] if case["baseline_id"] else case
        assert number(row["speedup vs fp32"]) == pytest.approx(
            tp["median"] / base["throughput"]["median"], abs=0.005)


def test_verdict_table_matches_json(single):
    doc, report = single
    table = table_with(read(report, "report.md"), "first crossing step")
    assert list(table) == [c["id"] for c in doc["cases"]]
    for case in doc["cases"]:
        row = table[case["id"]]
        assert row["status"].split()[0] == case["status"]
        assert row["expect"] == case["expect"]
        if case["status"] == "skipped":
            assert row["reason / failures"] == case["reason"]
        if case["check"]:
            dev, tol = (number(x) for x in row["max loss dev / tol"].split(" / "))
            assert dev == pytest.approx(case["check"]["metrics"]["max_loss_rel_dev"], rel=1e-2)
            assert tol == case["check"]["tolerances"]["loss_rel"]
            crossing = case["check"]["first_crossing_step"]
            assert row["first crossing step"] == ("—" if crossing is None else str(crossing))


def test_kill_count_in_both_outputs(single):
    doc, report = single
    controls = [c for c in doc["cases"] if c["expect"] == "fail"]
    caught = [c for c in controls if c["status"] == "fail"]
    line = f"{len(caught)} of {len(controls)} negative controls caught"
    assert line == "1 of 2 negative controls caught"
    assert line in read(report, "report.md") and line in read(report, "index.html")


def test_comparison_is_labelled_by_fingerprints(pair):
    docs, report = pair
    md = read(report, "report.md")
    assert "run1: C++ · NVIDIA A100-SXM4-40GB · libtorch 2.11.0" in md
    assert "run2: C++ · NVIDIA H200 · libtorch 2.12.0" in md
    table = table_with(md, "run2 / run1")
    second = {c["id"]: c for c in docs[1]["cases"]}
    for case in docs[0]["cases"]:
        if not case["throughput"]:
            continue
        row = table[case["id"]]
        other = second.get(case["id"])
        if other and other["throughput"]:
            ratio = other["throughput"]["median"] / case["throughput"]["median"]
            assert number(row["run2 / run1"]) == pytest.approx(ratio, abs=0.005)
        else:  # DDP cases exist only in run1
            assert row["run2 / run1"] == "—"


# -- small units ----------------------------------------------------------------------

def test_fingerprint_uses_cpu_model_on_cpu_runs():
    env = make_results(gpu=None)["env"]
    assert env_fingerprint(env) == "AMD EPYC 7742 64-Core Processor · libtorch 2.11.0"


def test_one_model_name_of_two_generations_or_kernel_ceilings_is_two_machines():
    zen4 = {"device": "cpu", "gpu_name": "none", "cpu_model": "AMD EPYC", "cpu_id": "AuthenticAMD family 25 model 17",
            "cpu_capability": "AVX512", "onednn_max_cpu_isa": ""}
    zen5 = dict(zen4, cpu_id="AuthenticAMD family 26 model 2")
    held = dict(zen4, cpu_capability="AVX2", onednn_max_cpu_isa="AVX2")
    names = {machine(zen4), machine(zen5), machine(held)}
    assert len(names) == 3 and all(n.startswith("AMD EPYC (") for n in names)
    assert machine(held) == "AMD EPYC (AuthenticAMD family 25 model 17, kernels AVX2, oneDNN AVX2)"
    # A run from before these were recorded keeps its series; a GPU run is its GPU.
    assert machine({"device": "cpu", "cpu_model": "AMD EPYC"}) == "AMD EPYC"
    assert machine(dict(zen4, device="cuda", gpu_name="NVIDIA H200")) == "NVIDIA H200"


def test_runs_on_two_generations_of_one_cpu_name_are_labelled_apart(tmp_path):
    zen4, zen5 = make_results(gpu=None), make_results(gpu=None)
    for doc, family in ((zen4, "25 model 17"), (zen5, "26 model 2")):
        doc["env"].update(cpu_model="AMD EPYC", cpu_id=f"AuthenticAMD family {family}", cpu_capability="AVX512")
    paths = [write_results(tmp_path / n, d) for n, d in (("zen4.json", zen4), ("zen5.json", zen5))]
    labels = [run.label for run in load_runs(paths)]
    assert labels == ["run1: C++ · AMD EPYC (AuthenticAMD family 25 model 17, kernels AVX512) · libtorch 2.11.0",
                      "run2: C++ · AMD EPYC (AuthenticAMD family 26 model 2, kernels AVX512) · libtorch 2.11.0"]


def test_same_machine_runs_are_told_apart_by_file(tmp_path):
    paths = [write_results(tmp_path / n, make_results()) for n in ("monday.json", "tuesday.json")]
    labels = [run.label for run in load_runs(paths)]
    assert labels[0].endswith("(monday.json)") and labels[1].endswith("(tuesday.json)")


def test_cpp_python_eager_and_compiled_runs_are_named_in_their_labels(tmp_path):
    eager, compiled = make_results(), make_results()
    for doc, compile_flag in ((eager, False), (compiled, True)):
        doc["env"].update(implementation="python", python_torch_compile=compile_flag)
    paths = [write_results(tmp_path / n, d) for n, d in (("c.json", make_results()), ("e.json", eager),
                                                          ("p.json", compiled))]
    labels = [run.label for run in load_runs(paths)]
    assert labels[0].startswith("run1: C++ · ") and not labels[0].endswith(")")
    assert labels[1].startswith("run2: Python eager · ")
    assert labels[2].startswith("run3: Python torch.compile · ")


def test_cpp_against_python_gets_a_per_case_ratio_figure(tmp_path):
    from reports.figures.implementations import implementation_figure, ratio
    cpp, eager = make_results(), make_results(speed=0.5)
    eager["env"].update(implementation="python", python_torch_compile=False)
    paths = [write_results(tmp_path / "c.json", cpp), write_results(tmp_path / "e.json", eager)]
    runs = load_runs(paths)
    case = next(c for c in runs[0].cases if c.throughput)
    assert ratio(case, runs[1].case(case.id)) == pytest.approx(
        case.throughput.median / runs[1].case(case.id).throughput.median)
    fig = implementation_figure(runs)
    assert fig is not None and "C++ / Python eager" in fig.legends[0].get_texts()[0].get_text()
    out = tmp_path / "report"
    build_report(paths, out, jobs=1)
    assert (out / "implementations.png").read_bytes().startswith(PNG_MAGIC)
    assert implementation_figure(load_runs(paths[:1] * 2)) is None  # C++ against C++: no such figure


def test_incomplete_run_is_flagged():
    doc = make_results()
    doc["complete"], doc["finished_utc"] = False, None
    assert "incomplete" in run_warnings(run_of(doc))[0]


def run_of(doc) -> Run:
    return Run(1, Path("r.json"), parse_results(doc))


def test_kill_count_mentions_skipped_controls():
    doc = make_results()
    control = next(c for c in doc["cases"] if c["expect"] == "fail" and c["status"] == "pass")
    control.update(status="skipped", conforms=None, reason="not run")
    assert negative_control_line(run_of(doc).cases) == "1 of 2 negative controls caught (1 skipped)"


def test_run_that_just_started_still_reports(tmp_path):
    """The harness writes the file before the first case finishes."""
    doc = make_results()
    doc.update(cases=[], complete=False, finished_utc=None)
    out = tmp_path / "report"
    report = build_report([write_results(tmp_path / "r.json", doc)], out, jobs=1)
    md = read(out, "report.md")
    assert report.figures == () and "is incomplete" in md and "0 cases" in md


def test_fp32_that_is_not_ieee_is_flagged():
    doc = make_results()
    settings = {"precision": {}, "legacy": {}, "cublas_reduction": {}, "env_overrides": {}}
    math = {"process_default": settings, "in_cases": settings, "in_cases_ieee": True}
    doc["env"]["float32_math"] = dict(math, fp32_is_ieee=False,
                                      fp32_not_ieee_reasons=["NVIDIA_TF32_OVERRIDE=1 is set"])
    (warning,) = run_warnings(run_of(doc))
    assert "fp32 is not IEEE float32" in warning and "NVIDIA_TF32_OVERRIDE=1 is set" in warning
    doc["env"]["float32_math"] = dict(math, fp32_is_ieee=True, fp32_not_ieee_reasons=[])
    assert run_warnings(run_of(doc)) == []


def test_a_skipped_tf32_case_is_reported(tmp_path):
    doc = make_results()
    base = next(c for c in doc["cases"] if c["id"] == "plain/mlp/fp32/sgd")
    tf32 = dict(base, id="plain/mlp/tf32/sgd", precision="tf32", status="skipped", conforms=None,
                reason="tf32 is CUDA tensor-core math; on cpu it would be IEEE fp32, identical to the baseline",
                trajectory={"loss": [], "scale": [], "skipped": []}, check=None, throughput=None,
                baseline_id="plain/mlp/fp32/sgd")
    doc["cases"].insert(doc["cases"].index(base) + 3, tf32)
    out = tmp_path / "report"
    build_report([write_results(tmp_path / "r.json", doc)], out, jobs=1)
    md = read(out, "report.md")
    assert "plain/mlp/tf32/sgd" in md and "tf32 is CUDA tensor-core math" in md
    assert PRECISION_COLORS["tf32"] not in {PRECISION_COLORS[p] for p in ("fp32", "fp16", "bf16")}


def test_o2_and_o3_sit_beside_fp16_and_a_reported_verdict_is_not_a_failure(tmp_path):
    doc = make_results()
    fp16 = next(c for c in doc["cases"] if c["id"] == "plain/mlp/fp16/sgd")
    o2 = dict(fp16, id="plain/mlp/o2/sgd", precision="o2")
    o3 = dict(fp16, id="plain/mlp/o3/sgd", precision="o3", expect="report", status="fail", conforms=True,
              reason="first non-finite value at step 0, optimizer step: the parameters of model0.fc1")
    doc["cases"][doc["cases"].index(fp16) + 1:doc["cases"].index(fp16) + 1] = [o2, o3]
    out = tmp_path / "report"
    build_report([write_results(tmp_path / "r.json", doc)], out, jobs=1)
    md = read(out, "report.md")
    table = table_with(md, "fp16 (O1)")
    header = md[md.index("| case | fp32 | fp16 (O1)"):].splitlines()[0]
    assert header.startswith("| case | fp32 | fp16 (O1) | o2 | o3 | bf16")
    row = table["plain/mlp/sgd"]
    assert row["o3"].endswith("fail (reported, not required)")
    assert number(row["o2"].split(" ")[0]) == pytest.approx(o2["throughput"]["median"], abs=0.05)
    assert "1 verdict(s) reported, not required (O3): 0 pass, 1 fail" in md
    assert not [line for line in md.splitlines() if "do not conform" in line and "plain/mlp/o3/sgd" in line]
