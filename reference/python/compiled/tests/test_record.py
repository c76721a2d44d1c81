"""The record's contract, against the dump it came from: keys and lengths,
runner.cpp's flattening order (the --eager control reproduces the dumped
run), compiled fp32 close to eager fp32, and the fault far from both."""

from __future__ import annotations

import pytest

from reference.python.compare import TOLERANCES, compare_runs
from reference.python.replay import load_case

from . import dumps
from .helpers import as_run, dump_params, floats, one_thread, rel_l2, run_module

KEYS = {"schema", "schema_version", "case_id", "mode", "compile_step", "emulate_precision_casts", "fault",
        "torch_version", "device", "threads", "loss", "scale", "skipped", "optimizer_skipped", "initial_params",
        "final_params", "optimizer_state", "compile", "throughput"}
COMPILE_KEYS = {"graphs", "graph_break_count", "graph_breaks", "recompiles", "frames_failed", "ran_eager",
                "fullgraph", "seconds_cold", "seconds_warm", "first_step_seconds_cold", "first_step_seconds_warm",
                "steady_step_seconds", "warm_matches_cold", "cache_cold", "cache_warm", "fault_casts_dropped",
                "cache_emptied"}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    root = tmp_path_factory.mktemp("dumps")
    with one_thread():
        # AdamW: the optimizer state has two tensors per parameter (the order matters).
        fp32 = dumps.make(root, dumps.spec("mlp", "fp32", optimizer="adamw", steps=3))
        bf16 = dumps.make(root, dumps.spec("mlp", "bf16", steps=3))
    return {"fp32": fp32, "bf16": bf16}


@pytest.fixture(scope="module")
def records(cases, tmp_path_factory):
    out = tmp_path_factory.mktemp("records")
    capsys = _NoCapture()
    runs = {"fp32": (cases["fp32"], ()), "fp32-eager": (cases["fp32"], ("--eager", "--throughput-steps", "2")),
            "bf16": (cases["bf16"], ()), "bf16-eager": (cases["bf16"], ("--eager",)),
            "bf16-fault": (cases["bf16"], ("--fault", "drop_autocast_cast"))}
    got = {}
    for name, (case, flags) in runs.items():
        rc, rec, err = run_module(capsys, case, out / f"{name}.json", *flags)
        assert rc == 0, f"{name}: exit {rc}: {err[-2000:]}"
        got[name] = rec
    return got


class _NoCapture:
    def readouterr(self):
        class R:
            err = ""
        return R()


def test_record_has_the_contract_keys_and_lengths(records, cases):
    ids = {p: load_case(cases[p]).spec.id for p in cases}
    for name, rec in records.items():
        assert set(rec) == KEYS, name
        assert rec["schema"] == "ampbench.compiled_record" and rec["schema_version"] == 1
        assert rec["case_id"] == ids[name.split("-")[0]]
        for key in ("loss", "scale", "skipped", "optimizer_skipped"):
            assert len(rec[key]) == 3, (name, key)
        assert all(len(row) == 1 for row in rec["optimizer_skipped"])
        assert len(rec["initial_params"]) == len(rec["final_params"])
        if name.endswith("eager"):
            assert rec["mode"] == "eager" and rec["compile"] is None
        else:
            assert rec["mode"] == "default" and set(rec["compile"]) == COMPILE_KEYS, name
            assert rec["compile"]["fullgraph"] == {"ok": True, "reason": None}
            assert rec["compile"]["graphs"] >= 1 and rec["compile"]["graph_breaks"] == []
            assert rec["compile"]["seconds_cold"] > rec["compile"]["seconds_warm"] >= 0
            assert rec["compile"]["cache_warm"]["fx_graph_cache_hits"] >= 1
    assert records["bf16-fault"]["fault"] == "drop_autocast_cast"
    assert records["bf16-fault"]["compile"]["fault_casts_dropped"] > 0
    tp = records["fp32-eager"]["throughput"]
    assert len(tp["samples_per_s"]) == 3 and min(tp["samples_per_s"]) > 0
    assert records["fp32"]["throughput"] is None


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_eager_control_reproduces_the_dump_in_runner_order(records, cases, precision):
    """--eager is replay's run: its record, read back in runner.cpp's order,
    agrees with the dumped run (bit for bit here: the dump is the Python
    workloads' own)."""
    case = load_case(cases[precision])
    rec = records[f"{precision}-eager"]
    assert (floats(rec["final_params"]) == dump_params(case, case.cpp.final)).all()
    assert (floats(rec["initial_params"]) == dump_params(case, case.cpp.initial)).all()
    report = compare_runs(case.spec.id, precision, as_run(case, rec), case.cpp, TOLERANCES[precision])
    assert report.ok and report.exact, [str(m) for m in report.mismatches]
    assert rec["optimizer_skipped"] == [[s] for s in case.cpp.skipped]


def test_compiled_fp32_stays_within_the_fp32_tolerance(records, cases):
    case = load_case(cases["fp32"])
    compiled, eager = records["fp32"], records["fp32-eager"]
    origin = floats(eager["initial_params"])
    distance = rel_l2(floats(compiled["final_params"]), floats(eager["final_params"]), origin)
    assert distance < 1e-4, distance
    report = compare_runs(case.spec.id, "fp32", as_run(case, compiled), case.cpp, TOLERANCES["fp32"])
    assert report.ok, [str(m) for m in report.mismatches]


def test_the_fault_is_far_from_the_correct_compiled_run(records, cases):
    """bf16 mlp: Inductor computes it with eager's roundings (the same extern
    GEMMs, nothing to fuse between them), so the correct compiled run is
    within a hair of eager; the fault moves every weight by its whole travel."""
    eager = floats(records["bf16-eager"]["final_params"])
    origin = floats(records["bf16-eager"]["initial_params"])
    compiled = rel_l2(floats(records["bf16"]["final_params"]), eager, origin)
    fault = rel_l2(floats(records["bf16-fault"]["final_params"]), eager, origin)
    assert compiled < 1e-2 and fault > 0.5 and fault > 50 * max(compiled, 1e-4), (compiled, fault)
    case = load_case(cases["bf16"])
    report = compare_runs(case.spec.id, "bf16", as_run(case, records["bf16-fault"]), case.cpp, TOLERANCES["bf16"])
    assert not report.ok


def test_a_batchnorm_model_records_the_probe_of_its_trained_weights(tmp_path, capsys):
    """runner/probe.cpp: the trained weights in a fresh float32 model, in
    training mode, on the first batch; recomputed here from the dump's final
    state (--eager: the dump's own run)."""
    import torch

    from reference.python import models as M

    with one_thread():
        folder = dumps.make(tmp_path, dumps.spec("cnn", "fp32", steps=2))
    rc, rec, err = run_module(capsys, folder, tmp_path / "r.json", "--eager")
    assert rc == 0, err
    case = load_case(folder)
    model = M.make_model("cnn", case.spec.sizes)
    model.load_state_dict(case.cpp.final[0])
    model.train()
    with torch.no_grad(), one_thread():
        expected = model(case.inputs[0]).reshape(-1).double()
    assert floats(rec["final_probe"]).shape == expected.shape
    assert torch.allclose(floats(rec["final_probe"]), expected, rtol=1e-6, atol=1e-7)
    assert "final_probe" not in run_module(capsys, dumps.make(tmp_path, dumps.spec("mlp", "fp32", steps=1)),
                                           tmp_path / "m.json", "--eager")[1]
