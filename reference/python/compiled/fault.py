"""The test-only fault: a wrong compiled graph that the checker must fail.

`drop_autocast_cast` removes, from every compiled backward graph, the
autocast casts that carry a low-precision gradient back to its float32
parameter (prims.convert_element_type from bfloat16/float16 to float32 whose
result leaves the graph as a gradient), and what they carried with them: the
graph returns the gradient times zero there (zeros; a non-finite gradient
stays non-finite, so a scaler still sees an overflow).  It is the backward of a forward whose autocast
cast was cut out of autograd (the float16/bfloat16 copy of a weight used as
if it were a constant), so the parameters that autocast casts (every matmul
and convolution weight and bias) stop learning while the rest (LayerNorm,
embeddings) go on: a compiled run of a bf16/fp16 case that no precision
envelope admits.  fp32 cases have no such cast: the fault then changes
nothing, and the run says so (CaseError).

Why not the forward's down-cast itself: without it the consumer computes in
float32, which is closer to the fp32 baseline, not farther.  Measured on the
smoke mlp (bf16, SGD, 12 steps): distance of the final parameters from the
fp32 run, as a fraction of their travel (the checker's param_rel_l2): eager
0.026; every weight rounded to float8_e5m2 instead of bfloat16 0.16; this
fault 1.0.  The smoke suite's bf16 floor for that distance is 96 x 2^-8 =
0.375, so only this one fails.
"""

from __future__ import annotations

import torch
from torch._inductor.custom_graph_pass import CustomGraphPass

_LOW = (torch.bfloat16, torch.float16)


def _is_backward(graph: torch.fx.Graph) -> bool:
    return any(n.op == "placeholder" and n.name.startswith("tangents") for n in graph.nodes)


def _gradient_upcasts(graph: torch.fx.Graph) -> list:
    convert = torch.ops.prims.convert_element_type.default
    output = next(n for n in graph.nodes if n.op == "output")
    returned = set(_flat_nodes(output.args))
    out = []
    for n in graph.nodes:
        if n.op != "call_function" or n.target is not convert or n not in returned:
            continue
        src = n.args[0]
        val = getattr(src, "meta", {}).get("val")
        if n.args[1] == torch.float32 and getattr(val, "dtype", None) in _LOW:
            out.append(n)
    return out


def _flat_nodes(args) -> list:
    found = []
    torch.fx.node.map_arg(args, found.append)
    return found


class DropAutocastCast(CustomGraphPass):
    """An Inductor post-grad pass (torch._inductor.config.post_grad_custom_pre_pass).
    `dropped` counts the casts it removed; uuid() puts the fault in the FX
    graph cache's key, so a faulty graph is never served to a correct run."""

    def __init__(self):
        self.dropped = 0

    def __call__(self, graph: torch.fx.Graph) -> None:
        if not _is_backward(graph):
            return
        for cast in _gradient_upcasts(graph):
            with graph.inserting_after(cast):
                zero = graph.call_function(torch.ops.aten.mul.Tensor, (cast, 0.0))
            cast.replace_all_uses_with(zero, delete_user_cb=lambda user: user is not zero)
            self.dropped += 1
        graph.lint()

    def uuid(self) -> str:
        return "ampbench-fault-drop_autocast_cast-v1"


def make(fault: str | None):
    return DropAutocastCast() if fault == "drop_autocast_cast" else None
