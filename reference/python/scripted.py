"""Models given by file (harness/models/scripted.h): the very TorchScript
module the C++ harness trains, loaded with torch.jit.load and called the
same way: one packed batch split back into the forward's arguments, and the
graph executor's optimizations off, so that every op runs eagerly through
the dispatcher (autocast included), as in C++."""

from __future__ import annotations

import math

import torch
from torch import nn


def load(torchscript: dict) -> torch.jit.ScriptModule:
    """The dump's "torchscript" object: {"path", "inputs"}."""
    module = torch.jit.load(torchscript["path"], map_location="cpu")
    module.train()
    return module


def is_batchnorm(m: nn.Module) -> bool:
    """A BatchNorm, scripted or not (O2 keeps it in float32): eagerly, any
    subclass of torch.nn's _BatchNorm, as Apex; in a file, which keeps its
    class's name but not its bases, torch.nn's by name and a subclass
    (timm's BatchNormAct2d) by its running statistics, as
    harness/models/scripted.cpp is_batchnorm."""
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        return True
    if not isinstance(m, torch.jit.ScriptModule):
        return False
    name = m._c._type().qualified_name()
    if "torch.nn.modules.batchnorm." in name:
        return True
    buffers = {n for n, _ in m.named_buffers(recurse=False)}
    return "torch.nn.modules.instancenorm." not in name and {"running_mean", "running_var"} <= buffers


def unpack(inputs: list, x: torch.Tensor) -> list:
    """harness/models/scripted.cpp unpack: several float inputs travel as one
    tensor, each sample's inputs flattened and concatenated in order."""
    if len(inputs) == 1:
        return [x]
    out, offset = [], 0
    for spec in inputs:
        n = math.prod(spec["shape"])
        out.append(x.narrow(1, offset, n).reshape([x.shape[0], *spec["shape"]]))
        offset += n
    return out


def call(module: torch.jit.ScriptModule, torchscript: dict, x: torch.Tensor) -> torch.Tensor:
    with torch.jit.optimized_execution(False):
        out = module(*unpack(torchscript["inputs"], x))
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"{torchscript['path']}: forward returned {type(out).__name__}, not one tensor")
    return out


def plain_call(module: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return module(x)


def caller(torchscript: dict | None):
    """How to call a case's model on one packed batch: `call` for a model
    given by file, the module itself otherwise."""
    if not torchscript:
        return plain_call
    return lambda module, x: call(module, torchscript, x)
