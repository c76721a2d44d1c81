"""Compiled training: how torch.compile took each case of a compiled run.

A run of `ampbench run --implementation compiled` trains its cases with the
model compiled by torch.compile, judged against the eager fp32 baselines
(docs/compiled.md). Beside the verdicts, a reader asks of each case: did it
compile as one graph or break (and why), what did compiling cost (cold, and
warm from the FX graph cache), and how much faster is the compiled loop
than the eager C++ loop on the same case? A case beyond its bound also
shows its distance with Inductor keeping eager's roundings
(emulate_precision_casts): near 1 or below, the difference was Inductor's
dropped intermediate roundings.
"""

from __future__ import annotations

from .blocks import Heading, Text
from .tables import DASH, fmt_rate, fmt_ratio, make_table


def compiled_cases(run) -> list:
    """(case, its "compiled" block) of every case the compiled implementation ran."""
    out = []
    for case in run.cases:
        block = case.raw.get("compiled")
        if isinstance(block, dict):
            out.append((case, block))
    return out


def _seconds(value) -> str:
    return f"{value:.1f} s" if isinstance(value, (int, float)) else DASH


def _cold(seconds: dict) -> str:
    """The first compile's seconds; on a cache kept from other cases or
    runs (--compile-cache) it was not cold, and the cell says so."""
    text = _seconds(seconds.get("cold"))
    return f"{text} (cache reused)" if seconds.get("cold_cache_reused") is True and text != DASH else text


def _breaks(block: dict) -> str:
    reasons = [b.get("reason", "?") if isinstance(b, dict) else str(b) for b in block.get("graph_breaks") or []]
    if not reasons:
        return "0"
    shown = "; ".join(reasons[:2]) + ("; …" if len(reasons) > 2 else "")
    return f"{len(reasons)}: {shown}"


def _speed(block: dict, case) -> tuple:
    eager = (block.get("eager_throughput") or {}).get("median")
    compiled = case.throughput.median if case.throughput else None
    speedup = block.get("speedup_vs_eager")
    return (fmt_rate(eager) if isinstance(eager, (int, float)) else DASH,
            fmt_rate(compiled) if isinstance(compiled, (int, float)) else DASH,
            fmt_ratio(speedup) if isinstance(speedup, (int, float)) else DASH)


def compiled_table(run):
    rows, ids = [], []
    for case, block in compiled_cases(run):
        full = block.get("fullgraph") or {}
        seconds = block.get("compile_seconds") or {}
        emulated = block.get("emulated_max_ratio")
        rows.append((case.id, str(block.get("graphs", DASH)), _breaks(block),
                     "yes" if full.get("ok") else f"no: {full.get('reason') or '?'}",
                     _cold(seconds), _seconds(seconds.get("warm")), *_speed(block, case),
                     f"{emulated:.3g}" if isinstance(emulated, (int, float)) else DASH))
        ids.append(case.id)
    return make_table(("case", "graphs", "graph breaks", "fullgraph", "compile (cold)", "compile (warm)",
                       "eager C++ samples/s", "compiled samples/s", "compiled / eager",
                       "distance/bound, emulated casts"), rows, row_ids=ids)


def compiled_section(run, level: int) -> list:
    if not compiled_cases(run):
        return []
    compile_env = run.env.get("compile") or {}
    return [Heading(level, "Compiled training"),
            Text(f"torch.compile (mode {compile_env.get('mode', 'default')}"
                 f"{', optimizer step compiled' if compile_env.get('compile_step') else ''}) per case: the graphs "
                 "Dynamo captured and each graph break's reason, whether fullgraph=True compiles, the compile "
                 "time with empty caches and again from the FX graph cache, the steady-state speed against the "
                 "eager C++ loop on the same case, and, for a case beyond its bound, its distance/bound with "
                 "Inductor keeping eager's intermediate roundings (emulate_precision_casts)."),
            compiled_table(run)]
