"""PyTorch's own autocast test lists as calls of ATen operators.

`torch.testing._internal.autocast_test_lists` (it needs the package
expecttest) holds the ops PyTorch's own autocast tests check, with their
arguments: AutocastCPUTestLists for the CPU, AutocastTestLists for CUDA. They
are read from the installed torch on every run, so a new torch's lists are
covered without editing ours. Each entry becomes one call per dtype: the ATen
operator and overload its public call reaches, and its arguments in exact
JSON (autocast_values.py), which the C++ side calls boxed through the
dispatcher (harness/amp/autocast_list_calls.cpp).

How an entry is read follows PyTorch's own tests: the module is torch,
torch._C._nn for nn_* lists, torch._C._linalg for linalg_* lists, a Tensor
method for methods_* lists (or the module an entry names, as `banned` does);
a second argument tuple is float16's (the first being bfloat16's, as the CPU
promote lists give them); a dict is keyword arguments; a torch.dtype is the
output type PyTorch expects; a true bool or arguments that are not a tuple
mean PyTorch's own test skips the entry, and so do we, saying so.
"""

from __future__ import annotations

import types
import warnings
from dataclasses import dataclass, field

import torch

from .autocast_values import Unserializable, encode, tensors_in

LIST_CLASSES = {"cpu": "AutocastCPUTestLists", "cuda": "AutocastTestLists"}
DTYPES = ("float16", "bfloat16")
SEED = 0  # the lists draw their tensors from torch.randn
# Nodes of a traced graph that only carry values to the op.
_PLUMBING = {"prim::Constant", "prim::ListConstruct", "prim::TupleConstruct", "prim::TupleUnpack",
             "prim::ListUnpack", "prim::Return"}


class ListsError(Exception):
    """PyTorch's lists cannot be read at all (e.g. expecttest is missing)."""


class Unresolved(Exception):
    """No ATen operator call could be made of an entry; the reason says why."""


@dataclass
class Item:
    list: str
    id: str  # list/name, list/name#2 for the second entry of that name, ...
    name: str
    args: dict = field(default_factory=dict)  # dtype -> argument tuple
    kwargs: dict = field(default_factory=dict)
    module: object = torch  # None: a Tensor method
    skipped: str | None = None
    problem: str | None = None  # an entry of a form we do not know


def pytorch_lists(device_type: str, build_on=None) -> tuple[str, dict]:
    """(the class's qualified name, {list name: entries}) for `device_type`,
    its tensors made on `build_on` (default: that device), seeded."""
    frozen = torch.backends.flags_frozen()
    try:
        try:
            from torch.testing._internal import autocast_test_lists as atl
        except ImportError as e:
            raise ListsError(f"cannot import torch.testing._internal.autocast_test_lists ({e}); "
                             "it needs the package expecttest (ci/requirements.txt)") from e
        cls = getattr(atl, LIST_CLASSES[device_type])
        torch.manual_seed(SEED)
        lists = cls(torch.device(build_on or device_type))
    finally:
        # PyTorch's test utilities freeze the process's cudnn flags
        # (torch.backends.disable_global_flags): every later
        # `torch.backends.cudnn.x = y` in this process would raise.
        if not frozen:
            torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
    return f"{atl.__name__}.{cls.__name__}", {k: v for k, v in vars(lists).items() if isinstance(v, list)}


def _module_of(list_name: str):
    if list_name.startswith("methods"):
        return None
    if list_name.startswith("nn"):
        return torch._C._nn
    if list_name.startswith("linalg"):
        return torch._C._linalg
    return torch


def parse_item(list_name: str, entry, item_id: str) -> Item:
    """One entry of a PyTorch list, read as PyTorch's tests read it."""
    item = Item(list_name, item_id, str(entry[0]), module=_module_of(list_name))
    rest = tuple(entry[1:])
    arg_tuples = [x for x in rest if isinstance(x, tuple)]
    if not rest or not isinstance(rest[0], tuple):
        item.skipped = "its arguments are not a tuple: PyTorch's own test skips it"
        return item
    for k, x in enumerate(rest[1:], start=2):
        if isinstance(x, dict):
            item.kwargs = x
        elif isinstance(x, bool):
            if x:
                item.skipped = "flagged to be skipped on this platform, as PyTorch's own test does"
        elif isinstance(x, types.ModuleType):
            item.module = x
        elif not isinstance(x, (tuple, torch.dtype)):
            item.problem = f"element {k} of PyTorch's entry is a {type(x).__name__}, of no known meaning"
    item.args = {"bfloat16": arg_tuples[0], "float16": arg_tuples[1 if len(arg_tuples) > 1 else 0]}
    return item


def items(device_type: str, build_on=None) -> tuple[str, dict[str, list[Item]]]:
    source, lists = pytorch_lists(device_type, build_on)
    parsed = {}
    for list_name, entries in lists.items():
        seen: dict[str, int] = {}
        parsed[list_name] = []
        for entry in entries:
            seen[entry[0]] = seen.get(entry[0], 0) + 1
            suffix = "" if seen[entry[0]] == 1 else f"#{seen[entry[0]]}"
            parsed[list_name].append(parse_item(list_name, entry, f"{list_name}/{entry[0]}{suffix}"))
    return source, parsed


def public_callable(item: Item):
    """What PyTorch's test calls: the module's function if it has one, else
    the Tensor method (called on the first argument)."""
    if item.module is not None and hasattr(item.module, item.name):
        return getattr(item.module, item.name), False
    return getattr(torch.Tensor, item.name, None), True


def public_call(item: Item, args, kwargs):
    fn, is_method = public_callable(item)
    if is_method:
        return getattr(args[0], item.name)(*args[1:], **kwargs)
    return fn(*args, **kwargs)


def aten_name(name: str) -> str:
    """torch.mm -> mm, Tensor.__matmul__ -> matmul."""
    return name[2:-2] if name.startswith("__") and name.endswith("__") else name


def _with_tensors(args, kwargs, tensors):
    """args and kwargs with their tensors replaced, in tensors_in's order."""
    it = iter(tensors)

    def swap(v):
        if isinstance(v, torch.Tensor):
            return next(it)
        return type(v)(swap(x) for x in v) if isinstance(v, (list, tuple)) else v

    new_args = swap(tuple(args))
    new_kwargs = {k: swap(kwargs[k]) for k in sorted(kwargs)}
    return new_args, new_kwargs


def traced(item: Item, args, kwargs) -> tuple[str, str, list, dict]:
    """The one ATen op the public call reaches, and the arguments it passes,
    found by tracing it (Python wrappers such as torch.norm call another op
    with other arguments)."""
    if public_callable(item)[0] is None:
        raise Unresolved(f"neither {getattr(item.module, '__name__', 'the module')}.{item.name} "
                         f"nor Tensor.{item.name} exists")
    tensors = tensors_in(args, kwargs)

    def call(*ts):
        a, k = _with_tensors(args, kwargs, ts)
        return public_call(item, a, k)

    graph = None
    # A kernel that lacks the list's dtype outside autocast (multilabel_margin_loss
    # on bfloat16) still traces on meta tensors, which compute nothing; a
    # wrapper refusing mixed dtypes outside autocast (tensordot) on float32 ones.
    meta = tuple(t.to("meta") for t in tensors)
    for inputs in (tuple(tensors), meta, tuple(t.float() if t.is_floating_point() else t for t in meta)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                graph = torch.jit.trace(call, inputs, check_trace=False).graph
            break
        except Exception as e:
            error = e
    if graph is None:
        raise Unresolved(f"tracing the public call failed: {str(error).strip().splitlines()[0]}")
    ops = [n for n in graph.nodes() if n.kind() not in _PLUMBING]
    if len(ops) != 1 or not ops[0].kind().startswith("aten::"):
        raise Unresolved(f"the public call reaches {[n.kind() for n in ops]}, not one ATen op")
    schema = torch._C.parse_schema(ops[0].schema())
    inputs = [v.unique() for v in graph.inputs()]

    def value(v):
        kind = v.node().kind()
        if kind == "prim::Param":
            return tensors[inputs.index(v.unique())]
        if kind == "prim::Constant":
            return v.toIValue()
        if kind == "prim::ListConstruct":
            return [value(x) for x in v.node().inputs()]
        raise Unresolved(f"an argument of {schema.name} is computed by {kind}")

    positional, keywords = [], {}
    for arg, v in zip(schema.arguments, ops[0].inputs()):
        if arg.kwarg_only:
            keywords[arg.name] = value(v)
        else:
            positional.append(value(v))
    return schema.name, schema.overload_name, positional, keywords


def resolve(item: Item, args, kwargs) -> tuple[str, str, list, dict]:
    """(aten::name, overload ("" for the default), args, kwargs) of the
    public call. Traced first: the tracer records the arguments the public
    call really passes, defaults included, and Python's bindings fill some
    defaults unlike the schema (torch._C._nn.mse_loss(a, b) passes
    reduction=0, the schema's default is 1). A builtin the tracer cannot
    follow (torch.equal returns a bool), or sees reach another op, is
    matched against the schemas of the operator of its name, as the
    dispatcher matches them; the oracle's public-call check catches a
    default that differs there."""
    fn, _ = public_callable(item)
    name = "aten::" + aten_name(item.name)
    try:
        found = traced(item, args, kwargs)
        # The tracer records convolutions as aten::_convolution: for a
        # builtin only the operator of its own name will do.
        if isinstance(fn, types.FunctionType) or found[0] == name:
            return found
    except Unresolved:
        if fn is None or isinstance(fn, types.FunctionType):
            raise
    name = "aten::" + aten_name(item.name)
    try:
        overload = torch._C._jit_resolve_packet(name, *args, **kwargs)
    except RuntimeError as e:
        raise Unresolved(f"tracing fails and no schema of {name} takes these arguments") from e
    return name, "" if overload == "default" else overload, list(args), dict(kwargs)


def make_call(item: Item, dtype: str) -> dict:
    """The serialized call of one entry under one dtype; "unresolved" says
    why there is no operator to call, "skipped" why it is not run."""
    call = {"id": item.id, "list": item.list, "name": item.name, "dtype": dtype, "op": None, "overload": None,
            "args": [], "kwargs": {}, "unresolved": item.problem, "skipped": item.skipped}
    if item.skipped or item.problem:
        return call
    args, kwargs = item.args[dtype], item.kwargs
    try:
        call["args"], call["kwargs"] = encode(args), {k: encode(v) for k, v in sorted(kwargs.items())}
        op, overload, op_args, op_kwargs = resolve(item, args, kwargs)
        call["args"], call["kwargs"] = encode(op_args), {k: encode(v) for k, v in sorted(op_kwargs.items())}
        call["op"], call["overload"] = op, overload
    except (Unresolved, Unserializable) as e:
        call["unresolved"] = f"{type(e).__name__.lower()}: {e}"
    return call


def list_calls(device_type: str, dtypes=DTYPES, build_on=None) -> tuple[dict, dict[str, Item]]:
    """({"source", "seed", "lists": {name: entries}, "calls": [...]}, {id: Item})."""
    source, parsed = items(device_type, build_on)
    calls, by_id = [], {}
    for entries in parsed.values():
        for item in entries:
            by_id[item.id] = item
            calls += [make_call(item, dtype) for dtype in dtypes]
    meta = {"source": source, "seed": SEED, "lists": {k: len(v) for k, v in parsed.items()}, "calls": calls}
    return meta, by_id


def main(argv=None) -> int:
    """Enumerates and serializes a device's lists without running them (the
    CUDA lists too, built on the CPU): exit 1 when an entry is unresolved."""
    import argparse
    import json
    import sys

    parser = argparse.ArgumentParser(prog="python -m reference.python.autocast_lists", description=main.__doc__)
    parser.add_argument("--lists", choices=tuple(LIST_CLASSES), default="cpu", help="whose lists: cpu or cuda")
    parser.add_argument("--build-on", default=None, help="device to make their tensors on (default: that device)")
    parser.add_argument("--out", help="write the serialized calls (JSON) here")
    args = parser.parse_args(argv)
    try:
        meta, _ = list_calls(args.lists, build_on=args.build_on)
    except ListsError as e:
        print(f"autocast_lists: error: {e}", file=sys.stderr)
        return 2
    if args.out:
        with open(args.out, "w") as f:
            json.dump(meta, f)
    unresolved = [c for c in meta["calls"] if c["unresolved"]]
    for c in unresolved + [c for c in meta["calls"] if c["skipped"]]:
        print(f"{c['id']} ({c['dtype']}): {c['unresolved'] or 'skipped: ' + c['skipped']}")
    print(f"autocast_lists: {meta['source']}: {sum(meta['lists'].values())} entries in {len(meta['lists'])} lists, "
          f"{len(meta['calls'])} calls, {len(unresolved)} unresolved")
    return 1 if unresolved else 0


if __name__ == "__main__":
    raise SystemExit(main())
