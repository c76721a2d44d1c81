"""Engagement: what each workload's mechanism did (schema 2 `engagement`).

A conformance case whose mechanism never engages checks nothing; this table
shows, per workload, how often clip_norm clipped and from which norms,
what fraction of gradient elements clip_value changed, how large the
penalty term was, how many micro-batches each step accumulated, and what
the fp16 scaler and each optimizer did.
"""

from __future__ import annotations

from .blocks import Table
from .runs import group_by

DASH = "–"
HEADERS = ("case", "clipped steps", "grad norm before clip", "after clip / limit", "elements clipped",
           "penalty / loss", "micro-batches", "scale growths / backoffs", "optimizer steps (skips)")


def engagement_tables(run) -> list:
    """(workload, Table) for every workload with recorded engagement."""
    shown = [c for c in run.cases if c.engagement]
    return [(workload, Table(HEADERS, [_row(c) for c in cases]))
            for workload, cases in group_by(shown, "workload").items()]


def _row(case) -> tuple:
    e = case.engagement

    def pct(v):
        return DASH if v is None else f"{100 * v:.1f}%"

    def num(v, digits=3):
        return DASH if v is None else f"{v:.{digits}g}"

    norms = DASH if e.get("min_grad_norm") is None else f"{num(e['min_grad_norm'])}–{num(e['max_grad_norm'])}"
    scale = f"{e['scale_growths']} / {e['scale_backoffs']}" if case.scaler_enabled else DASH
    steps = ", ".join(f"{s} ({k})" for s, k in zip(e.get("optimizer_steps", []), e.get("optimizer_skips", [])))
    return (case.id, pct(e.get("clipped_steps")), norms, num(e.get("worst_clipped_ratio")),
            pct(e.get("mean_clipped_fraction")), num(e.get("mean_penalty_ratio")),
            DASH if e.get("min_micro_batches") is None else str(e["min_micro_batches"]), scale, steps or DASH)
