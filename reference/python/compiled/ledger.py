"""Compilation as a result: how many graphs, which graph breaks and why,
recompilations, frames left to eager, and the seconds spent compiling.

Sources, both documented parts of torch._dynamo: its `counters`
(counters["stats"]["unique_graphs"], counters["graph_break"][reason],
counters["frames"]["total"/"ok"]), and its compile-start/end callbacks
(torch._dynamo.callback.on_compile_start/on_compile_end), which fire around
every Dynamo frame compile and every lazily compiled backward with the
compile id "frame/attempt": a compile id whose second number is above 0 is
a recompilation of a frame.  The callbacks do not nest (Dynamo runs the
start callbacks when the first pending compile begins and the end ones when
the last ends), so the sum of their intervals is wall time spent compiling.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field

import torch
from torch._dynamo import callback as dynamo_callback
from torch._dynamo.utils import counters

from .errors import one_line

_COMPILE_ID = re.compile(r"(\d+)/(\d+)")


@dataclass
class Ledger:
    """What the compile callbacks saw while `recording()` was open."""
    seconds: float = 0.0
    compiles: int = 0          # Dynamo frame compiles (recompilations included)
    recompiles: int = 0        # of a frame compiled before
    lazy_backward: int = 0     # backward graphs compiled at their first backward
    _began: float | None = field(default=None, repr=False)

    def _start(self, args) -> None:
        self._began = time.perf_counter()
        trigger = getattr(args, "callback_trigger", None)
        if trigger == dynamo_callback.CallbackTrigger.LAZY_BACKWARD:
            self.lazy_backward += 1
            return
        self.compiles += 1
        m = _COMPILE_ID.search(str(getattr(args, "compile_id", "")))
        if m and int(m.group(2)) > 0:
            self.recompiles += 1

    def _end(self, args) -> None:
        if self._began is not None:
            self.seconds += time.perf_counter() - self._began
            self._began = None

    @contextlib.contextmanager
    def recording(self):
        handler = dynamo_callback.callback_handler
        handler.register_start_callback(self._start)
        handler.register_end_callback(self._end)
        try:
            yield self
        finally:
            handler.remove_start_callback(self._start)
            handler.remove_end_callback(self._end)


def reset_compiler(in_memory_kernels: bool = False) -> None:
    """Dynamo's process-level state gone (compiled frames, guards, counters):
    the next call compiles afresh (from the FX graph cache when it holds the
    graph).  in_memory_kernels: Inductor's in-memory caches of loaded kernel
    modules too, so that a warm compile reads the FX graph cache on disk."""
    torch._dynamo.reset()
    counters.clear()
    if in_memory_kernels:
        from torch._inductor.utils import clear_caches

        clear_caches()


def break_reasons() -> list[dict]:
    """counters["graph_break"]: one entry per distinct reason, its first line
    as `reason`, the explanation after it as `detail`, and how many times
    Dynamo broke the graph for it."""
    out = []
    for message, count in sorted(counters["graph_break"].items(), key=lambda kv: -kv[1]):
        lines = [ln.strip() for ln in str(message).splitlines() if ln.strip()]
        detail = next((ln for ln in lines[1:] if ln.startswith("Explanation:")), lines[1] if len(lines) > 1 else "")
        out.append({"reason": one_line(lines[0] if lines else message, 300),
                    "detail": one_line(detail.removeprefix("Explanation:").strip(), 300), "count": int(count)})
    return out


def cache_counts() -> dict:
    """FX graph cache hits and misses since the last reset (Inductor's counters)."""
    inductor = counters["inductor"]
    return {"fx_graph_cache_hits": int(inductor.get("fxgraph_cache_hit", 0)),
            "fx_graph_cache_misses": int(inductor.get("fxgraph_cache_miss", 0))}


def summary(ledger: Ledger, models: int) -> dict:
    """The record's compile block (without the fullgraph probe and the warm
    seconds).  Every model compiles the same code (nn.Module._call_impl), so
    a second model (the multi workload) is a new guard set of that frame,
    which Dynamo numbers as a recompilation: those are not counted."""
    breaks = break_reasons()
    frames = counters["frames"]
    failed = max(0, int(frames.get("total", 0)) - int(frames.get("ok", 0)))
    n_breaks = sum(b["count"] for b in breaks)
    return {"graphs": int(counters["stats"].get("unique_graphs", 0)), "graph_break_count": n_breaks,
            "graph_breaks": breaks, "recompiles": max(0, ledger.recompiles - (models - 1)),
            "frames_failed": failed, "ran_eager": n_breaks > 0 or failed > 0,
            "seconds_cold": ledger.seconds, "cache_cold": cache_counts()}
