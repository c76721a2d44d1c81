"""Python's rows for PyTorch's autocast test lists (autocast_lists.py): each
serialized call run under torch.autocast, in the policy table's row format.

The operator run is the one the C++ side runs, aten::name.overload through
torch.ops, on the arguments decoded from the very JSON the C++ side decodes,
so both run the same kernel on the same bits. The public call PyTorch's test
makes (torch.mm, torch._C._nn.linear, Tensor.__eq__, ...) runs beside it on
the list's own arguments: it must give the same outputs, bit for bit, or the
entry was resolved to the wrong operator ("public_call_differs").
"""

from __future__ import annotations

import torch

from .autocast_lists import Item, public_call
from .autocast_bits import DTYPES, first_line, fnv1a64
from .autocast_values import cast_floating, decode, describe_outputs, same_outputs, tensors_in


def operator(call: dict):
    packet = getattr(torch.ops.aten, call["op"].removeprefix("aten::"))
    return getattr(packet, call["overload"] or "default")


def _outcome(fn):
    """(output, None) or (None, the error's first line)."""
    try:
        return fn(), None
    except Exception as e:  # the op's own failure on this device/dtype: recorded
        return None, first_line(e)


def _public_difference(item: Item, call: dict, device: str, op_out, op_error) -> str | None:
    """Why the public call's outcome is not the operator's, or None."""
    dtype = DTYPES[call["dtype"]]
    args = [a.to(device) if isinstance(a, torch.Tensor) else a for a in item.args[call["dtype"]]]
    with torch.autocast(device_type=device, dtype=dtype):
        out, error = _outcome(lambda: public_call(item, args, item.kwargs))
    where = f"the public call (as PyTorch's test makes it) and {call['op']}.{call['overload'] or 'default'}"
    if (error is None) != (op_error is None):
        return f"{where} differ: one raised '{error or op_error}'"
    if error is None and not same_outputs(out, op_out):
        return f"{where} differ: {describe_outputs(out)[0]} against {describe_outputs(op_out)[0]}, or their bits"
    return None


def run_call(call: dict, item: Item, device: str) -> dict:
    """One row: the output dtype(s) under autocast, the manual-cast flag,
    the error if it raised, the fingerprints of input and output bits."""
    args = decode(call["args"], device)
    kwargs = {k: decode(v, device) for k, v in call["kwargs"].items()}
    row = {"op": call["id"], "list": call["list"], "dtype": call["dtype"], "aten": None, "output_dtype": None,
           "bitwise_equal_to_manual_cast": None, "error": None, "inputs_fnv1a64": fnv1a64(tensors_in(args, kwargs)),
           "output_fnv1a64": None, "skipped": call["skipped"], "public_call_differs": None}
    if call["skipped"]:
        return row
    if call["op"] is None:  # unresolved: what the public call does, for the record
        fn = lambda: public_call(item, item.args[call["dtype"]], item.kwargs)  # noqa: E731
    else:
        row["aten"] = call["op"] + ("." + call["overload"] if call["overload"] else "")
        fn = lambda: operator(call)(*args, **kwargs)  # noqa: E731
    dtype = DTYPES[call["dtype"]]
    with torch.autocast(device_type=device, dtype=dtype):
        out, error = _outcome(fn)
    if call["op"] is not None:
        row["public_call_differs"] = _public_difference(item, call, device, out, error)
    if error is not None:
        row["error"] = error
        return row
    row["output_dtype"], tensors = describe_outputs(out)
    row["output_fnv1a64"] = fnv1a64(tensors)
    if call["op"] is not None and tensors and row["output_dtype"].split(",")[0] == call["dtype"]:
        manual, error = _outcome(lambda: operator(call)(*cast_floating(args, dtype),
                                                        **{k: cast_floating(v, dtype) for k, v in kwargs.items()}))
        if error is not None:
            row["error"] = "manual cast: " + error
        else:
            row["bitwise_equal_to_manual_cast"] = same_outputs(manual, out)
    return row


def list_rows(meta: dict, by_id: dict[str, Item], device: str) -> list[dict]:
    return [run_call(call, by_id[call["id"]], device) for call in meta["calls"]]
