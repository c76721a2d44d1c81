"""Parameters without a true gradient: found by measurement,
compared with the AdamW drift bound, reported in the case line; real
disagreements elsewhere (and in the same tensor's other elements) are still
caught."""

from __future__ import annotations

import copy
import io
import math
import shutil

import pytest
import torch

from reference.python import models as M
from reference.python.check import check
from reference.python.compare import TOLERANCES, compare_runs
from reference.python.nograd import (adamw_drift_bound, adamw_step_bound, buffer_sensitivity, envelope,
                                     no_grad_masks, relaxations)
from reference.python.replay import load_case, replay, torch_load
from reference.python.spec import Spec
from reference.python.tests.dumpmaker import folder_name, write_dump
from reference.python.tests.test_compare import make_run

TINY = {"batch": 8, "in_features": 8, "hidden": 8, "classes": 4, "channels": 4, "image": 8, "seq": 4,
        "d_model": 8, "heads": 2, "ffn": 8}
D = TINY["d_model"]
KEY = "block.self_attn.in_proj_bias"


def spec(model="transformer", optimizer="adamw", precision="fp32", steps=4, **kw) -> Spec:
    return Spec(id=f"plain/{model}/{precision}/{optimizer}", workload="plain", model=model, precision=precision,
                optimizer=optimizer, scaler_enabled=precision == "fp16", steps=steps, sizes=dict(TINY),
                lr=0.003 if optimizer == "adamw" else 0.05, **kw)


def probe_batches(model: str, n=3):
    torch.manual_seed(0)
    shape = M.input_shape(model, TINY)
    return [(torch.randn(TINY["batch"], *shape), torch.randint(0, TINY["classes"], (TINY["batch"],)))
            for _ in range(n)]


def test_detects_the_key_bias_and_conv_biases_before_batchnorm():
    torch.manual_seed(1)
    masks = no_grad_masks(M.make_model("transformer", TINY), probe_batches("transformer"))
    assert list(masks) == ["block.self_attn.in_proj_bias"]
    assert masks["block.self_attn.in_proj_bias"].nonzero().reshape(-1).tolist() == list(range(D, 2 * D))
    torch.manual_seed(1)
    cnn = M.make_model("cnn", TINY)
    masks = no_grad_masks(cnn, probe_batches("cnn"))
    assert sorted(masks) == ["conv1.bias", "conv2.bias"] and all(bool(m.all()) for m in masks.values())
    # BatchNorm's running mean follows the conv bias: momentum 0.1 per forward.
    feeds = buffer_sensitivity(cnn, "conv1.bias", masks["conv1.bias"], probe_batches("cnn")[0][0])
    assert list(feeds) == ["bn1.running_mean"] and feeds["bn1.running_mean"][1] == pytest.approx(0.1)
    torch.manual_seed(1)
    assert no_grad_masks(M.make_model("mlp", TINY), probe_batches("mlp")) == {}


def test_adamw_step_bound_holds_for_any_gradients():
    assert adamw_step_bound(1, 0.9, 0.999) == pytest.approx(1.0)
    assert adamw_step_bound(12, 0.9, 0.999) == pytest.approx(1.06, abs=0.01)
    g = torch.Generator().manual_seed(0)
    for _ in range(200):  # noise of wildly varying size, the worst case for Adam's ratio
        grads = torch.randn(12, generator=g) * 10 ** (6 * torch.rand(12, generator=g))
        m = v = 0.0
        for t, x in enumerate(grads.tolist(), 1):
            m, v = 0.9 * m + 0.1 * x, 0.999 * v + 0.001 * x * x
            ratio = abs(m / (1 - 0.9 ** t)) / math.sqrt(v / (1 - 0.999 ** t))
            assert ratio <= adamw_step_bound(t, 0.9, 0.999) * (1 + 1e-12)


def test_drift_bound_counts_every_optimizer_step_and_its_lr():
    model = M.make_model("mlp", TINY)
    base = adamw_drift_bound(spec("mlp", steps=12), model)
    assert base == pytest.approx(2 * adamw_step_bound(12, 0.9, 0.999) * 12 * 0.003)
    assert adamw_drift_bound(spec("mlp", steps=12, cosine_schedule=True), model) < base
    acc = spec("mlp", steps=12)
    acc.workload, acc.variant = "accumulation", "step_every_microbatch"
    assert adamw_drift_bound(acc, model) > 2 * base * 0.99


def test_sgd_leaves_the_bound_to_measure_adamw_derives_it():
    torch.manual_seed(1)
    model = M.make_model("transformer", TINY)
    xs, ys = zip(*probe_batches("transformer"))
    rel = relaxations(spec(optimizer="sgd"), [model], list(xs), list(ys))
    assert sorted(rel) == [f"model0.{KEY}", f"model0.{KEY}:momentum_buffer"]
    assert math.isinf(rel[f"model0.{KEY}:momentum_buffer"].bound) and math.isnan(rel[f"model0.{KEY}"].bound)
    rel = relaxations(spec(), [model], list(xs), list(ys))
    assert sorted(rel) == ["model0.block.self_attn.in_proj_bias", "model0.block.self_attn.in_proj_bias:exp_avg",
                           "model0.block.self_attn.in_proj_bias:exp_avg_sq",
                           "model0.block.self_attn.in_proj_bias:max_exp_avg_sq"]
    assert math.isinf(rel["model0.block.self_attn.in_proj_bias:exp_avg"].bound)


# --- end to end on synthetic dumps -------------------------------------------

@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    root = tmp_path_factory.mktemp("nograd")
    for s in (spec(), spec(optimizer="sgd")):
        write_dump(root, s)
    return root


@pytest.fixture
def dump_copy(dumps, tmp_path):
    dst = tmp_path / "dump"
    shutil.copytree(dumps, dst)
    return dst


def edit_final(root, case_id, name, edit, file="final_model0.pt"):
    path = root / folder_name(case_id) / file
    state = torch_load(path)
    edit(state[name] if isinstance(state, dict) else state)
    torch.save(state, path)


def run_check(root, case_filter=None):
    out = io.StringIO()
    rc = check(root, case_filter=case_filter, out=out, err=out)
    return rc, out.getvalue()


def bound() -> float:
    return adamw_drift_bound(spec(), M.make_model("transformer", TINY))


def test_noise_within_the_bound_passes_and_is_reported(dump_copy):
    # Stands for the C++ run's own walk: the key slice ends elsewhere.
    edit_final(dump_copy, "plain/transformer/fp32/adamw", KEY, lambda t: t[D:2 * D].add_(0.5 * bound()))
    rc, text = run_check(dump_copy)
    assert rc == 0, text
    assert (f"no true gradient: model0.{KEY}[{D}:{2 * D}] {0.5 * bound():.2g} <= {bound():.2g} "
            "(AdamW drift bounds); their optimizer state not compared") in text
    # The SGD case, untouched, replays bit for bit: nothing to excuse, no envelope.
    sgd = next(t for t in text.splitlines() if "plain/transformer/fp32/sgd" in t)
    assert sgd.endswith("bitwise") and "no true gradient" not in sgd, sgd


def test_beyond_the_bound_is_a_mismatch(dump_copy):
    edit_final(dump_copy, "plain/transformer/fp32/adamw", KEY, lambda t: t[D + 3].add_(2 * bound()))
    rc, text = run_check(dump_copy)
    assert rc == 1, text
    assert f"model0.{KEY}: element [{D + 3}]: " in text
    assert f"> {bound():.3g} (no true gradient: the most AdamW can move two runs apart)" in text


@pytest.mark.parametrize("name,index", [("block.linear1.weight", (0, 0)), (KEY, (0,)), (KEY, (2 * D + 1,))])
def test_real_mismatch_in_a_normal_element_is_still_caught(dump_copy, name, index):
    """A normal parameter, the query slice and the value slice of the very
    tensor whose key slice is relaxed: each still compared at fp32 rtol."""
    edit_final(dump_copy, "plain/transformer/fp32/adamw", KEY, lambda t: t[D:2 * D].add_(0.5 * bound()))
    edit_final(dump_copy, "plain/transformer/fp32/adamw", name, lambda t: t[index].mul_(1.001))
    rc, text = run_check(dump_copy)
    assert rc == 1, text
    where = ",".join(str(i) for i in index)
    assert f"plain/transformer/fp32/adamw: step final (after step 3): model0.{name}: max deviation at [{where}]" in text
    assert f"model0.{KEY}[{D}:{2 * D}] {0.5 * bound():.2g} <=" in text  # the slice is still reported


def test_sgd_bounds_the_elements_by_a_redraw_and_skips_their_momentum(dump_copy):
    case = "plain/transformer/fp32/sgd"
    # Momentum buffers, one per parameter: in_proj_bias is the 2nd.
    edit_final(dump_copy, case, None, lambda ts: ts[1][D:2 * D].mul_(-3.0), file="optimizer_state.pt")
    rc, text = run_check(dump_copy)
    assert rc == 0, text
    line = next(t for t in text.splitlines() if case in t)
    measured = float(line.split(f"model0.{KEY}[{D}:{2 * D}] ")[1].split(" <= ")[1].split(" ")[0].rstrip(";,"))
    assert 0 < measured < 1e-4, line  # lr x float32 noise, not a tolerance of the values
    edit_final(dump_copy, case, KEY, lambda t: t[D].add_(2 * measured))
    rc, text = run_check(dump_copy)
    assert rc == 1, text
    assert f"plain/transformer/fp32/sgd: step final (after step 3): model0.{KEY}: element [{D}]: " in text
    assert "(no true gradient: 4 x the most a redraw of their SGD noise moved them)" in text


def test_an_sgd_bound_is_never_left_unmeasured(dumps):
    case = load_case(dumps / folder_name("plain/transformer/fp32/sgd"))
    models = [M.make_model("transformer", TINY)]
    models[0].load_state_dict(case.cpp.initial[0])
    rel = relaxations(case.spec, models, case.inputs, case.labels)
    assert math.isnan(rel[f"model0.{KEY}"].bound)
    with pytest.raises(ValueError, match="never measured"):
        compare_runs(case.spec.id, "fp32", replay(case), case.cpp, relaxed=rel)
    bounded, coupled = envelope(case, replay(case), rel)
    assert 0 < bounded[f"model0.{KEY}"].bound < math.inf and f"model0.{KEY}" in coupled


def test_adamw_state_of_no_gradient_elements_is_skipped_but_not_its_nans(dump_copy):
    case = "plain/transformer/fp32/adamw"
    # Optimizer state: per parameter exp_avg, exp_avg_sq; in_proj_bias is the 2nd parameter.
    edit_final(dump_copy, case, None, lambda ts: ts[2][D:2 * D].mul_(-3.0), file="optimizer_state.pt")
    assert run_check(dump_copy)[0] == 0
    edit_final(dump_copy, case, None, lambda ts: ts[2][D].fill_(math.nan), file="optimizer_state.pt")
    rc, text = run_check(dump_copy)
    assert rc == 1 and f"non-finite values differ at [{D}]" in text, text


def test_coupling_widens_fp32_only_and_is_reported():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.final[0]["fc1.weight"][1, 1] += 1e-3  # far beyond fp32's rtol 1e-5
    assert not compare_runs("c", "fp32", py, cpp).ok
    measured = {"model0.fc1.weight": torch.full((8, 4), 1e-3)}
    rep = compare_runs("c", "fp32", py, cpp, coupled=measured)
    assert rep.ok, rep.mismatches
    assert "passing by the coupling allowance only: model0.fc1.weight (" in rep.summary(TOLERANCES["fp32"])
    py.final[0]["fc1.weight"][1, 1] += 1e-2  # beyond 4x the measured coupling too
    assert not compare_runs("c", "fp32", py, cpp, coupled=measured).ok


def test_coupling_is_measured_for_fp32_only(dumps):
    case = load_case(dumps / folder_name("plain/transformer/fp32/adamw"))
    models = [M.make_model("transformer", TINY)]
    models[0].load_state_dict(case.cpp.initial[0])
    rel = relaxations(case.spec, models, case.inputs, case.labels)
    run = replay(case)
    bounded, measured = envelope(case, run, rel)
    assert set(measured) >= {f"model0.{KEY}", "model0.head.weight"}
    assert bounded[f"model0.{KEY}"].bound == rel[f"model0.{KEY}"].bound  # AdamW's is derived, not measured
    low = copy.copy(case)
    low.spec = copy.copy(case.spec)
    low.spec.precision = "bf16"
    assert envelope(low, run, rel)[1] == {} and envelope(case, run, {}) == ({}, {})


def test_a_buffer_fed_by_no_gradient_elements_gets_their_bound(tmp_path):
    cnn = spec("cnn")
    folder = write_dump(tmp_path, cnn)
    case = load_case(folder)
    model = M.make_model("cnn", TINY)
    model.load_state_dict(case.cpp.initial[0])
    rel = relaxations(cnn, [model], case.inputs, case.labels)["model0.bn1.running_mean"]
    # 4 forwards x momentum 0.1 x the drift bound
    assert rel.bound == pytest.approx(4 * 0.1 * adamw_drift_bound(cnn, model))
    edit_final(tmp_path, cnn.id, "bn1.running_mean", lambda t: t[1].add_(0.5 * rel.bound))
    rc, text = run_check(tmp_path)
    assert rc == 0 and f"model0.bn1.running_mean[0:4] {0.5 * rel.bound:.2g} <= {rel.bound:.2g}" in text, text
    edit_final(tmp_path, cnn.id, "bn1.running_mean", lambda t: t[1].add_(rel.bound))
    rc, text = run_check(tmp_path)
    assert rc == 1 and "model0.bn1.running_mean: element [1]: " in text and "(fed by no-gradient elements" in text
