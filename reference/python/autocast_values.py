"""The exact JSON form of an op's arguments, shared with the C++ side
(harness/amp/autocast_ivalues.cpp), and the description of an op's outputs
both sides compare.

A tensor is {"tensor": {"dtype", "shape", "hex"}}: its bytes, contiguous, in
hex, so the C++ side rebuilds it bit for bit (NaNs and -0 included). A float
that JSON cannot carry (inf, nan) is {"float": "inf"}; a torch.dtype is
{"dtype": "float32"}; tuples become lists; None, bools, ints, strings are
themselves. Anything else is refused (Unserializable), never approximated.
"""

from __future__ import annotations

import math

import torch

from .autocast_bits import tensor_bytes

DTYPES = {name: getattr(torch, name) for name in (
    "float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")}


class Unserializable(Exception):
    """An argument has no exact JSON form (e.g. a Device or a Python object)."""


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def encode(value):
    """The JSON form of one argument (recursively for lists and tuples)."""
    if isinstance(value, torch.Tensor):
        if dtype_name(value.dtype) not in DTYPES:
            raise Unserializable(f"a {dtype_name(value.dtype)} tensor")
        t = value.detach().cpu()
        return {"tensor": {"dtype": dtype_name(t.dtype), "shape": list(t.shape), "hex": tensor_bytes(t).hex()}}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, torch.dtype):
        return {"dtype": dtype_name(value)}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    raise Unserializable(f"a {type(value).__name__} ({value!r:.60})")


def decode(value, device="cpu"):
    """The argument `encode` wrote, tensors on `device` (tuples come back as lists)."""
    if isinstance(value, list):
        return [decode(v, device) for v in value]
    if not isinstance(value, dict):
        return value
    if "float" in value:
        return float(value["float"])
    if "dtype" in value:
        return DTYPES[value["dtype"]]
    t = value["tensor"]
    raw = bytes.fromhex(t["hex"])
    flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
    return flat.view(DTYPES[t["dtype"]]).reshape(t["shape"]).clone().to(device)


def tensors_in(args, kwargs) -> list[torch.Tensor]:
    """Every tensor of a call, positional arguments first, then keyword
    arguments by name: the order the C++ side fingerprints them in."""
    found = []

    def walk(v):
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)

    walk(list(args))
    for key in sorted(kwargs):
        walk(kwargs[key])
    return found


def _flatten(out) -> list:
    return [x for v in out for x in _flatten(v)] if isinstance(out, (list, tuple)) else [out]


def describe_outputs(out) -> tuple[str, list[torch.Tensor]]:
    """("bfloat16" or "float32,float32" or "bool:true", the output tensors):
    the output dtype(s) both sides compare, and what their fingerprint covers."""
    parts, tensors = [], []
    for v in _flatten(out):
        if isinstance(v, torch.Tensor):
            parts.append(dtype_name(v.dtype))
            tensors.append(v)
        elif v is None:
            parts.append("none")
        elif isinstance(v, bool):
            parts.append(f"bool:{str(v).lower()}")
        elif isinstance(v, int):
            parts.append(f"int:{v}")
        else:
            parts.append(type(v).__name__)
    return ",".join(parts), tensors


def same_outputs(a, b) -> bool:
    """Same output dtypes and the same bits."""
    (da, ta), (db, tb) = describe_outputs(a), describe_outputs(b)
    return da == db and [(tuple(t.shape), tensor_bytes(t)) for t in ta] == \
        [(tuple(t.shape), tensor_bytes(t)) for t in tb]


def cast_floating(value, dtype: torch.dtype):
    """Every floating tensor (in lists too) cast to dtype: the manual cast."""
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(cast_floating(v, dtype) for v in value)
    return value
