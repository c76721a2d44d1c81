"""The comparison logic, on hand-made runs: no dump, no binary."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from reference.python.compare import TOLERANCES, UNIT_ROUNDOFF, compare_runs, compare_tensor, loss_rel
from reference.python.replay import Run


def make_run(steps=6, scale=None, skipped=None):
    g = torch.Generator().manual_seed(0)
    initial = [{"fc1.weight": torch.randn(8, 4, generator=g), "fc1.bias": torch.randn(8, generator=g),
                "bn.num_batches_tracked": torch.tensor(0)}]
    final = [{"fc1.weight": initial[0]["fc1.weight"] + 0.1 * torch.randn(8, 4, generator=g),
              "fc1.bias": initial[0]["fc1.bias"] + 0.1 * torch.randn(8, generator=g),
              "bn.num_batches_tracked": torch.tensor(steps)}]
    return Run(loss=[2.0 - 0.1 * i for i in range(steps)],
               scale=scale or [65536.0] * steps,
               skipped=skipped or [False] * steps,
               initial=initial, final=final,
               optimizer_state=[("model0.fc1.weight:momentum_buffer", torch.randn(8, 4, generator=g)),
                                ("model0.fc1.bias:momentum_buffer", torch.randn(8, generator=g))])


def check(py, cpp, precision="fp32"):
    return compare_runs("plain/mlp/%s/sgd" % precision, precision, py, cpp)


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_identical_runs_agree(precision):
    cpp = make_run()
    rep = check(copy.deepcopy(cpp), cpp, precision)
    assert rep.ok, rep.mismatches
    assert rep.max_loss_rel == 0 and rep.max_tensor_dev == 0
    assert rep.tensors == 5


@pytest.mark.parametrize("where", ["loss", "final", "optimizer_state"])
def test_exact_means_no_value_differs_by_even_one_ulp(where):
    """What lets check.py skip the no-gradient envelope: a report is exact
    only when nothing differs at all, even by a difference far inside the
    tolerance."""
    cpp = make_run()
    assert check(copy.deepcopy(cpp), cpp).exact
    py = copy.deepcopy(cpp)
    if where == "loss":
        py.loss[3] = math.nextafter(py.loss[3], 10.0)
    elif where == "final":
        w = py.final[0]["fc1.weight"]
        w[2, 1] = torch.nextafter(w[2, 1], torch.tensor(10.0))
    else:
        b = py.optimizer_state[1][1]
        b[5] = torch.nextafter(b[5], torch.tensor(10.0))
    rep = check(py, cpp)
    assert rep.ok and not rep.exact, (rep.mismatches, rep.max_loss_rel, rep.max_tensor_dev)
    assert not rep.summary(TOLERANCES["fp32"]).endswith("bitwise")


def test_scale_must_match_exactly_and_names_the_step():
    # Growth one step late: 65536 -> 131072 at step 3 in C++, at step 4 in Python.
    cpp = make_run(scale=[65536.0] * 3 + [131072.0] * 3)
    py = copy.deepcopy(cpp)
    py.scale[3] = 65536.0
    rep = check(py, cpp, "fp16")
    assert [(m.step, m.tensor) for m in rep.mismatches] == [("3", "scale")]
    assert "65536 (Python) vs 131072 (C++)" in rep.mismatches[0].detail


def test_skipped_steps_must_match_exactly():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.skipped[2] = True
    rep = check(py, cpp, "bf16")
    assert [(m.step, m.tensor) for m in rep.mismatches] == [("2", "skipped")]


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_loss_tolerance_is_the_precisions(precision):
    tol = TOLERANCES[precision].loss_rel
    cpp = make_run()
    inside, outside = copy.deepcopy(cpp), copy.deepcopy(cpp)
    inside.loss[4] = cpp.loss[4] * (1 + 0.5 * tol)
    outside.loss[4] = cpp.loss[4] * (1 + 2 * tol)
    assert check(inside, cpp, precision).ok
    rep = check(outside, cpp, precision)
    assert [(m.step, m.tensor) for m in rep.mismatches] == [("4", "loss")]


def test_nonfinite_loss_matches_only_nonfinite():
    assert loss_rel(math.nan, math.nan) == 0
    assert loss_rel(math.inf, math.inf) == 0
    assert loss_rel(math.inf, 1.0) == math.inf
    assert loss_rel(1.0, math.nan) == math.inf


def test_fp32_param_perturbation_is_caught_with_its_index():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.final[0]["fc1.weight"][2, 3] += 1e-4
    rep = check(py, cpp, "fp32")
    assert len(rep.mismatches) == 1
    m = rep.mismatches[0]
    assert m.step == "final (after step 5)" and m.tensor == "model0.fc1.weight"
    assert "[2,3]" in m.detail


def test_fp32_rounding_level_difference_passes():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    w = py.final[0]["fc1.weight"]
    py.final[0]["fc1.weight"] = torch.nextafter(w, torch.full_like(w, math.inf))  # one ulp everywhere
    assert check(py, cpp, "fp32").ok


@pytest.mark.parametrize("precision", ["fp16", "bf16"])
def test_low_precision_tensor_tolerance_is_relative_to_distance_travelled(precision):
    cpp = make_run()
    w0, w = cpp.initial[0]["fc1.weight"], cpp.final[0]["fc1.weight"]
    travel = (w - w0).norm()
    u = UNIT_ROUNDOFF[precision]
    direction = torch.ones_like(w) / w.numel() ** 0.5
    inside, outside = copy.deepcopy(cpp), copy.deepcopy(cpp)
    inside.final[0]["fc1.weight"] = w + 0.5 * TOLERANCES[precision].travel_rel * travel * direction
    outside.final[0]["fc1.weight"] = w + 1.5 * TOLERANCES[precision].travel_rel * travel * direction
    assert check(inside, cpp, precision).ok
    rep = check(outside, cpp, precision)
    assert [m.tensor for m in rep.mismatches] == ["model0.fc1.weight"]
    assert TOLERANCES[precision].travel_rel == pytest.approx({"fp16": 128, "bf16": 16}[precision] * u)
    assert TOLERANCES[precision].loss_rel == pytest.approx(4 * u)


def test_integer_buffers_must_match_exactly():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.final[0]["bn.num_batches_tracked"] = torch.tensor(5)
    rep = check(py, cpp, "fp16")
    assert [m.tensor for m in rep.mismatches] == ["model0.bn.num_batches_tracked"]


def test_nonfinite_values_must_sit_in_the_same_places():
    a = torch.tensor([1.0, math.inf, 3.0])
    assert compare_tensor("t", a.clone(), a, None, TOLERANCES["fp32"])[0] is None
    b = torch.tensor([1.0, 2.0, math.inf])
    problem, _ = compare_tensor("t", b, a, None, TOLERANCES["fp32"])
    assert "non-finite values differ at [1]" in problem
    neg = torch.tensor([1.0, -math.inf, 3.0])
    assert "non-finite" in compare_tensor("t", neg, a, None, TOLERANCES["fp16"])[0]


def test_optimizer_state_count_and_values():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.optimizer_state.pop()
    rep = check(py, cpp, "fp32")
    assert [m.tensor for m in rep.mismatches] == ["optimizer_state"]
    py = copy.deepcopy(cpp)
    py.optimizer_state[1][1][0] += 1.0
    rep = check(py, cpp, "fp32")
    assert rep.mismatches[0].tensor == "model0.fc1.bias:momentum_buffer (model0.fc1.bias:momentum_buffer)"


def test_shape_and_missing_tensor():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.final[0]["fc1.bias"] = torch.zeros(9)
    del py.final[0]["bn.num_batches_tracked"]
    rep = check(py, cpp, "fp32")
    details = " | ".join(str(m) for m in rep.mismatches)
    assert "present on one side only: ['bn.num_batches_tracked']" in details
    assert "shape (9,) (Python) vs (8,) (C++)" in details


def test_trajectory_length_mismatch():
    cpp = make_run()
    py = copy.deepcopy(cpp)
    py.loss.pop()
    rep = check(py, cpp, "fp32")
    assert rep.mismatches and rep.mismatches[0].tensor == "loss"
