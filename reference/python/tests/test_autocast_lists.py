"""reference.python.autocast_lists and autocast_list_rows: PyTorch's own
autocast test lists, read from the installed torch, as serialized ATen calls
and Python's rows for them."""

from __future__ import annotations

import json
import math

import pytest
import torch

from reference.python import autocast_list_rows as rows_mod
from reference.python import autocast_lists as al
from reference.python import autocast_values as av

# The lists PyTorch's CPU autocast tests treat explicitly (37 entries in
# torch 2.11), beside the two builtin-promotion lists.
CPU_EXPLICIT = ("torch_16", "nn_16", "torch_fp32", "nn_fp32", "torch_need_autocast_promote")


@pytest.fixture(scope="module")
def cpu():
    return al.list_calls("cpu")


@pytest.fixture(scope="module")
def cpu_rows(cpu):
    meta, items = cpu
    return rows_mod.list_rows(meta, items, "cpu")


@pytest.fixture(scope="module")
def cuda_on_cpu():
    return al.list_calls("cuda", build_on="cpu")


def call(meta, item_id, dtype="bfloat16"):
    (found,) = [c for c in meta["calls"] if c["id"] == item_id and c["dtype"] == dtype]
    return found


def test_every_entry_of_the_cpu_lists_is_a_call_for_both_dtypes(cpu):
    meta, _ = cpu
    assert meta["source"].endswith("AutocastCPUTestLists")
    assert set(CPU_EXPLICIT) | {"torch_expect_builtin_promote", "methods_expect_builtin_promote"} <= set(meta["lists"])
    assert sum(meta["lists"][name] for name in CPU_EXPLICIT) >= 37
    assert len(meta["calls"]) == 2 * sum(meta["lists"].values())
    ids = [(c["id"], c["dtype"]) for c in meta["calls"]]
    assert len(ids) == len(set(ids))
    for c in meta["calls"]:  # nothing skipped or unresolved on the CPU
        assert c["op"] and c["op"].startswith("aten::") and not c["unresolved"] and not c["skipped"], c["id"]


def test_operators_and_overloads_are_the_ones_the_public_calls_reach(cpu):
    meta, _ = cpu
    assert (call(meta, "torch_16/conv_transpose2d")["op"], call(meta, "torch_16/conv_transpose2d")["overload"]) == \
        ("aten::conv_transpose2d", "input")
    assert call(meta, "torch_16/conv1d")["op"] == "aten::conv1d"  # not the _convolution the tracer records
    eq = call(meta, "methods_expect_builtin_promote/__eq__")
    assert (eq["op"], eq["overload"]) == ("aten::eq", "Tensor")


def test_the_promote_lists_give_each_dtype_its_own_arguments(cpu):
    meta, _ = cpu
    for dtype in ("bfloat16", "float16"):
        (tensors,) = call(meta, "torch_need_autocast_promote/cat", dtype)["args"][0:1]
        assert sorted(t["tensor"]["dtype"] for t in tensors) == sorted([dtype, "float32"])


def test_python_runs_the_operator_the_public_call_runs(cpu_rows):
    # Every row: an outcome, and the public call (as PyTorch's test makes it)
    # giving the same output bits as the serialized operator call.
    for r in cpu_rows:
        assert (r["output_dtype"] is None) != (r["error"] is None), r
        assert r["public_call_differs"] is None, r
    by = {(r["op"], r["dtype"]): r for r in cpu_rows}
    assert by[("torch_16/mm", "bfloat16")]["output_dtype"] == "bfloat16"
    assert by[("torch_16/mm", "bfloat16")]["bitwise_equal_to_manual_cast"] is True
    assert by[("nn_fp32/mse_loss", "bfloat16")]["output_dtype"] == "float32"
    assert by[("torch_need_autocast_promote/cat", "float16")]["output_dtype"] == "float32"
    assert by[("torch_expect_builtin_promote/eq", "float16")]["output_dtype"] == "bool"


def test_a_call_resolved_to_the_wrong_arguments_is_caught(cpu):
    # The schema's default reduction (mean) is not what torch._C._nn.mse_loss
    # passes: the public-call check must notice the operator call differs.
    meta, items = cpu
    wrong = dict(call(meta, "nn_fp32/mse_loss"))
    wrong["args"] = wrong["args"][:2] + [1]
    row = rows_mod.run_call(wrong, items["nn_fp32/mse_loss"], "cpu")
    right = rows_mod.run_call(call(meta, "nn_fp32/mse_loss"), items["nn_fp32/mse_loss"], "cpu")
    assert right["public_call_differs"] is None
    assert "differ" in row["public_call_differs"]


def test_cuda_lists_built_on_the_cpu_resolve_except_what_pytorch_skips(cuda_on_cpu):
    meta, _ = cuda_on_cpu
    assert meta["source"].endswith("AutocastTestLists")
    for name in ("torch_fp16", "torch_fp32", "nn_fp16", "nn_fp32", "linalg_fp16", "methods_fp16", "methods_fp32",
                 "torch_need_autocast_promote", "torch_expect_builtin_promote", "methods_expect_builtin_promote",
                 "banned"):
        assert meta["lists"].get(name, 0) > 0, name
    unresolved = [c["id"] for c in meta["calls"] if c["unresolved"]]
    assert unresolved == []
    skipped = {c["id"] for c in meta["calls"] if c["skipped"]}
    assert skipped == {"torch_fp16/einsum"}  # (name, str, tensors): PyTorch's test skips it too
    # Python wrappers are traced to the op they reach, with its arguments.
    assert call(meta, "torch_fp32/norm#2")["op"] == "aten::linalg_vector_norm"
    assert call(meta, "torch_need_autocast_promote/tensordot")["op"] == "aten::tensordot"
    assert call(meta, "methods_fp32/__pow__")["overload"] == "Tensor_Scalar"
    json.dumps(meta)  # serializable as it stands


def test_encode_decode_is_exact():
    x = torch.tensor([-0.0, 1.5, float("nan"), float("inf")], dtype=torch.bfloat16)
    args = (x, (torch.tensor([3, 1]), torch.tensor([True, False])), 2, 0.1, None, "s", math.inf, torch.float16,
            torch.empty(0, 3))
    back = av.decode(json.loads(json.dumps(av.encode(args))))
    assert av.tensor_bytes(back[0]) == av.tensor_bytes(x) and back[0].dtype == torch.bfloat16
    assert back[1][0].tolist() == [3, 1] and back[1][1].dtype == torch.bool
    assert back[2:8] == [2, 0.1, None, "s", math.inf, torch.float16]
    assert back[8].shape == (0, 3)
    with pytest.raises(av.Unserializable, match="device"):
        av.encode(torch.device("cpu"))


def test_entries_are_read_as_pytorchs_tests_read_them():
    a, b = (torch.ones(2),), (torch.zeros(2),)
    per_dtype = al.parse_item("torch_need_autocast_promote", ("cat", a, b), "x")
    assert per_dtype.args["bfloat16"] is a and per_dtype.args["float16"] is b
    assert al.parse_item("nn_16", ("linear", a, {"bias": None}), "x").kwargs == {"bias": None}
    assert al.parse_item("nn_16", ("linear", a), "x").module is torch._C._nn
    assert al.parse_item("methods_fp16", ("__matmul__", a), "x").module is None
    assert al.parse_item("torch_fp16", ("einsum", "ij->j", a), "x").skipped
    assert al.parse_item("torch_fp16", ("cudnn_convolution", a, True), "x").skipped
    assert not al.parse_item("torch_fp16", ("cudnn_convolution", a, False), "x").skipped
    odd = al.parse_item("torch_16", ("mm", a, 3.5), "x")
    assert "float" in odd.problem and al.make_call(odd, "float16")["unresolved"] == odd.problem
