"""python -m reference.python.autocast_policy --device cpu --out FILE.json

The expected table of `ampbench autocast-ops`, measured on this machine: for
every op of harness/amp/autocast_ops.json (shared with the C++ side, so the
two cannot drift) and each of float16 and bfloat16, call the op inside
`torch.autocast(device, dtype)` and record the output dtype; when that dtype
is the lower precision, also whether the result equals, bit for bit, the op
applied to inputs cast to that dtype by hand. An op that raises is recorded
with its error's first line (on CPU some kernels have no float16 or mixed-dtype
form), never skipped. The inputs' and output's bits are fingerprinted
(FNV-1a 64) so the C++ side can show it ran on the very same inputs.

Unless --no-torch-lists, the table also covers every entry of PyTorch's own
autocast test lists for the device, read from the installed torch
(autocast_lists.py): their calls, serialized exactly, under "torch_lists"
(the C++ side runs those), and their rows in "ops" (autocast_list_rows.py).

Exit status: 0 table written; 2 unusable input (ops file, arguments, device, PyTorch's lists
not importable).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from .autocast_bits import DTYPES, first_line, fnv1a64, tensor_bytes
from .autocast_list_rows import list_rows
from .autocast_lists import ListsError, list_calls
from .bounded_json import JsonInputError, read_bounded_json

OPS_FILE = Path(__file__).resolve().parents[2] / "harness" / "amp" / "autocast_ops.json"
LISTS = ("lower_precision", "fp32", "promote")
EXIT_OK, EXIT_UNUSABLE = 0, 2


class OpsFileError(Exception):
    """The ops file is unusable (not an op's own failure): never recorded as "unsupported"."""


def _arg(args: dict, key: str):
    if key not in args:
        raise OpsFileError(f"args.{key} is missing")
    return args[key]


# name -> (number of tensor inputs, call). Each calls the public API that
# reaches the ATen op of the same name, as the C++ table
# (harness/amp/autocast_op_calls.cpp) calls that op directly.
CALLS = {
    # lower_precision
    "matmul": (2, lambda x, a: torch.matmul(x[0], x[1])),
    "mm": (2, lambda x, a: torch.mm(x[0], x[1])),
    "bmm": (2, lambda x, a: torch.bmm(x[0], x[1])),
    "addmm": (3, lambda x, a: torch.addmm(x[0], x[1], x[2])),
    "addbmm": (3, lambda x, a: torch.addbmm(x[0], x[1], x[2])),
    "baddbmm": (3, lambda x, a: torch.baddbmm(x[0], x[1], x[2])),
    "linear": (3, lambda x, a: F.linear(x[0], x[1], x[2])),
    "conv1d": (3, lambda x, a: F.conv1d(x[0], x[1], x[2])),
    "conv2d": (3, lambda x, a: F.conv2d(x[0], x[1], x[2])),
    "conv3d": (3, lambda x, a: F.conv3d(x[0], x[1], x[2])),
    "conv_transpose1d": (3, lambda x, a: F.conv_transpose1d(x[0], x[1], x[2])),
    "conv_transpose2d": (3, lambda x, a: F.conv_transpose2d(x[0], x[1], x[2])),
    "conv_tbc": (3, lambda x, a: torch.conv_tbc(x[0], x[1], x[2], _arg(a, "pad"))),
    "prelu": (2, lambda x, a: F.prelu(x[0], x[1])),
    "scaled_dot_product_attention": (3, lambda x, a: F.scaled_dot_product_attention(x[0], x[1], x[2])),
    "linalg_vecdot": (2, lambda x, a: torch.linalg.vecdot(x[0], x[1])),
    "mv": (2, lambda x, a: torch.mv(x[0], x[1])),
    "addmv": (3, lambda x, a: torch.addmv(x[0], x[1], x[2])),
    "addr": (3, lambda x, a: torch.addr(x[0], x[1], x[2])),
    "einsum": (2, lambda x, a: torch.einsum(_arg(a, "equation"), x[0], x[1])),
    "linalg_multi_dot": (3, lambda x, a: torch.linalg.multi_dot([x[0], x[1], x[2]])),
    "gru_cell": (6, lambda x, a: torch.gru_cell(*x)),
    # fp32
    "softmax": (1, lambda x, a: F.softmax(x[0], dim=_arg(a, "dim"))),
    "log_softmax": (1, lambda x, a: F.log_softmax(x[0], dim=_arg(a, "dim"))),
    "layer_norm": (3, lambda x, a: F.layer_norm(x[0], _arg(a, "normalized_shape"), x[1], x[2], _arg(a, "eps"))),
    "group_norm": (3, lambda x, a: F.group_norm(x[0], _arg(a, "num_groups"), x[1], x[2], _arg(a, "eps"))),
    # torch.norm() reaches aten::linalg_vector_norm in torch 2.x; aten::norm
    # (its own entry on CUDA's list) only through torch.ops.
    "norm": (1, lambda x, a: torch.ops.aten.norm.Scalar(x[0], _arg(a, "p"))),
    "linalg_vector_norm": (1, lambda x, a: torch.linalg.vector_norm(x[0], _arg(a, "ord"))),
    "cumsum": (1, lambda x, a: torch.cumsum(x[0], _arg(a, "dim"))),
    "prod": (1, lambda x, a: torch.prod(x[0])),
    "sum": (1, lambda x, a: torch.sum(x[0])),
    "exp": (1, lambda x, a: torch.exp(x[0])),
    "log": (1, lambda x, a: torch.log(x[0])),
    "pow": (1, lambda x, a: torch.pow(x[0], _arg(a, "exponent"))),
    "rsqrt": (1, lambda x, a: torch.rsqrt(x[0])),
    "acos": (1, lambda x, a: torch.acos(x[0])),
    "softplus": (1, lambda x, a: F.softplus(x[0])),
    "logsumexp": (1, lambda x, a: torch.logsumexp(x[0], _arg(a, "dim"))),
    "mse_loss": (2, lambda x, a: F.mse_loss(x[0], x[1])),
    "l1_loss": (2, lambda x, a: F.l1_loss(x[0], x[1])),
    "smooth_l1_loss": (2, lambda x, a: F.smooth_l1_loss(x[0], x[1], beta=_arg(a, "beta"))),
    "kl_div": (2, lambda x, a: F.kl_div(x[0], x[1], reduction=_arg(a, "reduction"))),
    "cross_entropy_loss": (2, lambda x, a: F.cross_entropy(x[0], x[1])),
    "nll_loss": (2, lambda x, a: F.nll_loss(x[0], x[1])),
    "binary_cross_entropy_with_logits": (2, lambda x, a: F.binary_cross_entropy_with_logits(x[0], x[1])),
    "binary_cross_entropy": (2, lambda x, a: F.binary_cross_entropy(x[0], x[1])),
    "cosine_similarity": (2, lambda x, a: F.cosine_similarity(x[0], x[1], dim=_arg(a, "dim"))),
    "cdist": (2, lambda x, a: torch.cdist(x[0], x[1])),
    "dist": (2, lambda x, a: torch.dist(x[0], x[1])),
    "trace": (1, lambda x, a: torch.trace(x[0])),
    # promote
    "cat": (2, lambda x, a: torch.cat([x[0], x[1]])),
    "stack": (2, lambda x, a: torch.stack([x[0], x[1]])),
    "index_copy": (3, lambda x, a: torch.index_copy(x[0], _arg(a, "dim"), x[1], x[2])),
    "addcdiv": (3, lambda x, a: torch.addcdiv(x[0], x[1], x[2], value=_arg(a, "value"))),
    "addcmul": (3, lambda x, a: torch.addcmul(x[0], x[1], x[2], value=_arg(a, "value"))),
    "atan2": (2, lambda x, a: torch.atan2(x[0], x[1])),
    "bilinear": (4, lambda x, a: F.bilinear(x[0], x[1], x[2], x[3])),
    "cross": (2, lambda x, a: torch.cross(x[0], x[1], dim=_arg(a, "dim"))),
    "dot": (2, lambda x, a: torch.dot(x[0], x[1])),
    "vdot": (2, lambda x, a: torch.vdot(x[0], x[1])),
    "index_put": (3, lambda x, a: torch.index_put(x[0], (x[1],), x[2])),
    "tensordot": (2, lambda x, a: torch.tensordot(x[0], x[1], dims=(_arg(a, "dims_a"), _arg(a, "dims_b")))),
    "scatter_add": (3, lambda x, a: torch.scatter_add(x[0], _arg(a, "dim"), x[1], x[2])),
    "grid_sampler": (2, lambda x, a: F.grid_sample(x[0], x[1], align_corners=False)),
}


def load_ops(path=OPS_FILE) -> dict:
    """The ops file, checked as the C++ side checks it (every op known, with
    as many inputs as its call takes). Raises OpsFileError."""
    try:
        doc = read_bounded_json(path)
    except JsonInputError as e:
        raise OpsFileError(str(e)) from e
    if not isinstance(doc, dict) or not isinstance(doc.get("ops"), list) or not doc["ops"]:
        raise OpsFileError(f"{path}: no \"ops\" list")
    recipe = doc.get("input_recipe")
    if not isinstance(recipe, dict) or not all(isinstance(recipe.get(k), (int, float)) for k in ("step", "phase")):
        raise OpsFileError(f"{path}: \"input_recipe\" needs numbers \"step\" and \"phase\"")
    for i, spec in enumerate(doc["ops"]):
        name = spec.get("op") if isinstance(spec, dict) else None
        if name not in CALLS:
            raise OpsFileError(f"{path}: ops[{i}]: op {name!r} has no Python call (add it to CALLS in {__name__})")
        if spec.get("list") not in LISTS:
            raise OpsFileError(f"{path}: op {name}: \"list\" must be one of {', '.join(LISTS)}")
        if len(spec.get("inputs", [])) != CALLS[name][0]:
            raise OpsFileError(f"{path}: op {name} takes {CALLS[name][0]} tensor inputs, the file gives "
                               f"{len(spec.get('inputs', []))}")
    return doc


def make_input(entry, k: int, recipe: dict) -> torch.Tensor:
    """Input k of an op, on the CPU, bit for bit what the C++ side makes
    (autocast_policy.cpp, make_input): the same ATen ops in the same order."""
    shape = entry["shape"] if isinstance(entry, dict) else entry
    n = 1
    for d in shape:
        n *= d
    if isinstance(entry, dict) and "integers_below" in entry:
        return torch.arange(n, dtype=torch.int64).mul(3).add(1).remainder(entry["integers_below"]).reshape(shape)
    x = torch.arange(n, dtype=torch.float32).mul(recipe["step"]).add(recipe["phase"] * (k + 1)).sin()
    if isinstance(entry, dict) and "range" in entry:
        lo, hi = entry["range"]
        x = x.mul((hi - lo) / 2).add((hi + lo) / 2)
    return x.reshape(shape)


def make_inputs(spec: dict, recipe: dict, dtype: torch.dtype) -> list[torch.Tensor]:
    low = set(spec.get("low_inputs", []))
    xs = [make_input(entry, k, recipe) for k, entry in enumerate(spec["inputs"])]
    return [x.to(dtype) if k in low else x for k, x in enumerate(xs)]


def run_op(spec: dict, recipe: dict, device: str, dtype_name: str) -> dict:
    dtype = DTYPES[dtype_name]
    cpu_inputs = make_inputs(spec, recipe, dtype)
    row = {"op": spec["op"], "list": spec["list"], "dtype": dtype_name, "output_dtype": None,
           "bitwise_equal_to_manual_cast": None, "error": None,
           "inputs_fnv1a64": fnv1a64(cpu_inputs), "output_fnv1a64": None}
    xs = [x.to(device) for x in cpu_inputs]
    call = CALLS[spec["op"]][1]
    args = spec.get("args", {})
    try:
        with torch.autocast(device_type=device, dtype=dtype):
            out = call(xs, args)
    except OpsFileError as e:
        raise OpsFileError(f"op {spec['op']}: {e}") from e
    except Exception as e:  # the op's own failure on this device/dtype: recorded
        row["error"] = first_line(e)
        return row
    row["output_dtype"] = str(out.dtype).removeprefix("torch.")
    row["output_fnv1a64"] = fnv1a64([out])
    if out.dtype == dtype:
        manual = [x.to(dtype) if x.is_floating_point() else x for x in xs]
        try:
            expected = call(manual, args)
        except OpsFileError:
            raise
        except Exception as e:
            row["error"] = "manual cast: " + first_line(e)
            return row
        row["bitwise_equal_to_manual_cast"] = (expected.dtype == out.dtype and expected.shape == out.shape
                                               and tensor_bytes(expected) == tensor_bytes(out))
    return row


def policy_table(doc: dict, device: str, dtypes=tuple(DTYPES)) -> dict:
    rows = [run_op(spec, doc["input_recipe"], device, d) for d in dtypes for spec in doc["ops"]]
    return {"torch": torch.__version__, "device": device, "ops": rows}


def add_torch_lists(table: dict, device: str, dtypes, lists_of: str | None = None) -> None:
    """PyTorch's own autocast test lists for the device (or for `lists_of`,
    made and run on this device), read from the installed torch: their
    serialized calls (which the C++ side runs) under "torch_lists", their
    rows appended to "ops"."""
    meta, items = list_calls(lists_of or device, dtypes, build_on=device)
    table["torch_lists"] = meta
    table["ops"] += list_rows(meta, items, device)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.python.autocast_policy", description=__doc__.split("\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--out", required=True, help="the table (JSON) to write")
    parser.add_argument("--ops", default=str(OPS_FILE), help="the op list (default: harness/amp/autocast_ops.json)")
    parser.add_argument("--dtype", choices=tuple(DTYPES), action="append", help="only this dtype (repeatable)")
    parser.add_argument("--no-torch-lists", action="store_true",
                        help="only the op list, not PyTorch's own autocast test lists")
    parser.add_argument("--lists", choices=("cpu", "cuda"),
                        help="whose test lists, run on --device (default: --device's own; cuda's on the CPU "
                             "checks that each of its entries can be called from C++)")
    args = parser.parse_args(argv)
    prog = "autocast_policy"
    if args.device == "cuda" and not torch.cuda.is_available():
        print(f"{prog}: error: --device cuda: torch.cuda.is_available() is false", file=sys.stderr)
        return EXIT_UNUSABLE
    dtypes = tuple(args.dtype or DTYPES)
    try:
        table = policy_table(load_ops(args.ops), args.device, dtypes)
        if not args.no_torch_lists:
            add_torch_lists(table, args.device, dtypes, args.lists)
    except (OpsFileError, ListsError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_UNUSABLE
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(table, indent=1) + "\n")
    tmp.replace(out)  # atomic: a reader sees the old table or the new one
    lowered = sum(1 for r in table["ops"] if r["output_dtype"] in DTYPES)
    failed = sum(1 for r in table["ops"] if r["error"])
    print(f"{prog}: {len(table['ops'])} rows on {args.device} (torch {torch.__version__}): "
          f"{lowered} lower precision, {failed} raised; wrote {out}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
