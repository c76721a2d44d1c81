"""reference.python.autocast_policy: the expected table of `ampbench
autocast-ops`, measured with torch.autocast on the CPU."""

from __future__ import annotations

import json

import pytest
import torch

from reference.python import autocast_policy as ap


@pytest.fixture(scope="module")
def doc():
    return ap.load_ops()


@pytest.fixture(scope="module")
def table(doc):
    return ap.policy_table(doc, "cpu")


def row(table, op, dtype):
    (found,) = [r for r in table["ops"] if r["op"] == op and r["dtype"] == dtype]
    return found


def test_the_table_has_every_op_of_the_list_for_both_dtypes(doc, table):
    names = [spec["op"] for spec in doc["ops"]]
    assert len(names) == len(set(names))
    assert sorted((r["op"], r["dtype"]) for r in table["ops"]) == sorted(
        (name, dtype) for name in names for dtype in ("float16", "bfloat16"))
    for r in table["ops"]:  # each row says what happened: an output dtype or the error
        assert (r["output_dtype"] is None) != (r["error"] is None), r


def test_mm_under_bf16_is_bfloat16_and_bitwise_the_manual_cast(table):
    mm = row(table, "mm", "bfloat16")
    assert mm["output_dtype"] == "bfloat16"
    assert mm["bitwise_equal_to_manual_cast"] is True


def test_fp32_and_promote_ops_show_their_policy_on_cpu(table):
    # mse_loss is on CPU's fp32 list: bfloat16 inputs give a float32 loss.
    assert row(table, "mse_loss", "bfloat16")["output_dtype"] == "float32"
    # softmax is on CUDA's fp32 list only: on CPU bfloat16 stays bfloat16.
    assert row(table, "softmax", "bfloat16")["output_dtype"] == "bfloat16"
    # cat (promote) of float32 and float16 is float32; no bitwise flag.
    cat = row(table, "cat", "float16")
    assert cat["output_dtype"] == "float32" and cat["bitwise_equal_to_manual_cast"] is None
    # dot is promoted on CUDA only: on CPU mixed dtypes raise, recorded.
    assert "same dtype" in row(table, "dot", "bfloat16")["error"]


def test_inputs_follow_the_recipe(doc):
    recipe = doc["input_recipe"]
    spec = {"op": "cat", "inputs": [[4, 8], {"shape": [2, 3], "range": [0.5, 1.5]}, {"shape": [5], "integers_below": 4}],
            "low_inputs": [1]}
    a, b, c = ap.make_inputs(spec, recipe, torch.bfloat16)
    assert torch.equal(a, torch.sin(torch.arange(32, dtype=torch.float32) * recipe["step"] + recipe["phase"]).reshape(4, 8))
    assert b.dtype == torch.bfloat16 and 0.5 <= b.float().min() and b.float().max() <= 1.5
    assert c.tolist() == [1, 0, 3, 2, 1]  # (3k + 1) % 4


def test_fnv1a64_is_the_reference_hash():
    # FNV-1a 64 of the empty input and of b"a" (the published test vectors).
    assert ap.fnv1a64([]) == "cbf29ce484222325"
    assert ap.fnv1a64([torch.tensor([ord("a")], dtype=torch.uint8)]) == "af63dc4c8601ec8c"


def test_an_unknown_op_or_a_wrong_input_count_is_refused(tmp_path, doc):
    bad = dict(doc, ops=doc["ops"] + [{"op": "frobnicate", "list": "fp32", "inputs": [[4]]}])
    (tmp_path / "ops.json").write_text(json.dumps(bad))
    with pytest.raises(ap.OpsFileError, match="op 'frobnicate' has no Python call"):
        ap.load_ops(tmp_path / "ops.json")
    bad = dict(doc, ops=[{"op": "mm", "list": "lower_precision", "inputs": [[4, 4]]}])
    (tmp_path / "ops.json").write_text(json.dumps(bad))
    with pytest.raises(ap.OpsFileError, match="takes 2 tensor inputs"):
        ap.load_ops(tmp_path / "ops.json")


def test_main_writes_the_table(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert ap.main(["--device", "cpu", "--dtype", "bfloat16", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["device"] == "cpu" and written["torch"] == torch.__version__
    assert {r["dtype"] for r in written["ops"]} == {"bfloat16"}
    assert "wrote" in capsys.readouterr().out
