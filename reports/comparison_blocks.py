"""What a comparison of runs says, as report blocks: the call-out of
regressions and improvements for the summary, the headline side by side,
and the per-case change table.
"""

from __future__ import annotations

import math

from .blocks import Bullets, Link, Text
from .comparison import ALPHA, IMPROVEMENT, REGRESSION, compare_runs, geo_mean, min_attainable_p
from .summary import headline_rows
from .tables import DASH, fmt_percent, fmt_rate, fmt_ratio, make_table

CALLED_OUT = 5   # cases named per direction in the summary; the table has them all


def change_anchor(other, case_id: str) -> str:
    return f"change-{other.tag}-" + "".join(ch if ch.isalnum() else "-" for ch in case_id)


def comparison_summary(runs) -> list:
    """One paragraph per later run: counts, geo-mean ratio, the cases named."""
    blocks = []
    for other in runs[1:]:
        rows = compare_runs(runs[0], other)
        measured = [r for r in rows if r.ratio is not None]
        slower = sorted((r for r in rows if r.verdict == REGRESSION), key=lambda r: r.ratio)
        faster = sorted((r for r in rows if r.verdict == IMPROVEMENT), key=lambda r: -r.ratio)
        geo = geo_mean([r.ratio for r in measured])
        blocks.append(Text(
            f"{other.tag} against {runs[0].tag}: {len(slower)} case(s) slower, {len(faster)} faster, "
            f"{len(measured) - len(slower) - len(faster)} without a significant change, of {len(measured)} "
            f"measured in both (geo-mean ratio {fmt_ratio(geo)}; Mann-Whitney U on the repetitions, "
            f"Benjamini-Hochberg q < {ALPHA:g}, beyond the minimum effect).",
            tone="bad" if slower else ""))
        items = (_called_out("Slower", other, slower), _called_out("Faster", other, faster),
                 _intervals_line(measured), _power_line(rows, slower + faster))
        items = tuple(i for i in items if i)
        blocks += [Bullets(items)] if items else []
    return blocks


def _intervals_line(measured):
    """Per-case intervals, before the correction: a broad shift shows here
    even when no single row survives it."""
    below = sum(1 for r in measured if r.high < 1)
    above = sum(1 for r in measured if r.low > 1)
    if not measured:
        return None
    return (f"Per-case ~95% intervals: {below} of {len(measured)} lie entirely below 1, "
            f"{above} entirely above.")


def _power_line(rows, flagged):
    """Why nothing was flagged, when the repetitions cannot pay for the
    correction: BH needs enough rows at the smallest attainable p."""
    judged = [r for r in rows if r.p is not None]
    if flagged or not judged:
        return None
    sizes = [(len(r.base.throughput.samples_per_s), len(r.other.throughput.samples_per_s))
             for r in judged]
    floor = max(min_attainable_p(a, b) for a, b in sizes)
    needed = math.floor(len(judged) * floor / ALPHA) + 1
    at_floor = sum(1 for r in judged if r.p <= floor)
    if needed <= at_floor or needed <= 1:
        return None
    return (f"No row survives the correction: with {min(min(s) for s in sizes)} repetitions per side the "
            f"smallest p is {floor:.2g}, and over {len(judged)} rows at least {needed} must reach it "
            f"({at_floor} did). More repetitions, or several runs per side with ampbench gate, give "
            f"the power to call a change.")


def _called_out(word, other, rows):
    if not rows:
        return None
    parts = [f"{word}: "]
    for k, row in enumerate(rows[:CALLED_OUT]):
        parts += [", "] if k else []
        parts += [Link(row.case_id, "#" + change_anchor(other, row.case_id), "#" + _section_anchor(other)),
                  f" {fmt_ratio(row.ratio)}"]
    if len(rows) > CALLED_OUT:
        parts.append(f" and {len(rows) - CALLED_OUT} more")
    return tuple(parts)


def _section_anchor(other) -> str:
    return f"per-case-change-{other.tag}-against-run1"


def change_heading(other) -> str:
    return f"Per-case change, {other.tag} against run1"


def change_table(runs, other):
    rows = sorted(compare_runs(runs[0], other), key=lambda r: (r.ratio is None, r.ratio or 0))
    base = runs[0].tag
    headers = ("case", f"{base} median (samples/s)", f"{other.tag} median (samples/s)",
               f"{other.tag} / {base}", "~95% interval", "p (BH q)", "change")
    data = [(r.case_id, _median(r.base), _median(r.other), fmt_ratio(r.ratio),
             DASH if r.low is None else f"{r.low:.3f}–{r.high:.3f}",
             DASH if r.p is None else f"{r.p:.2g} ({r.q:.2g})", r.verdict) for r in rows]
    return make_table(headers, data, verdict_columns=(6,),
                      row_ids=[change_anchor(other, r.case_id) for r in rows])


def _median(case) -> str:
    return fmt_rate(case.throughput.median) if case and case.throughput else DASH


def headline_side_by_side(runs):
    """The single-run headline, one column group per run, and each later
    run's ratio to run1 for the headline case with its interval."""
    per_run = [headline_rows(r) for r in runs]
    keys = list(dict.fromkeys(k for rows in per_run for k in rows))
    changes = [{r.case_id: r for r in compare_runs(runs[0], other)} for other in runs[1:]]
    headers = ["model", "precision"]
    headers += [f"{r.tag} samples/s" for r in runs]
    headers += [f"ratio {r.tag}/{runs[0].tag} (interval)" for r in runs[1:]]
    headers += [f"{r.tag} speedup over fp32" for r in runs]
    headers += [f"{r.tag} MFU" for r in runs] if _any_mfu(per_run) else []
    data = []
    for key in keys:
        rows = [rows.get(key) for rows in per_run]
        leads = [row and row["lead"] for row in rows]
        cells = [*key, *(fmt_rate(lead.throughput.median) if lead else DASH for lead in leads)]
        lead_id = leads[0].id if leads[0] else None
        cells += [_ratio_cell(change.get(lead_id)) for change in changes]
        cells += [DASH if not row or key[1] == "fp32" else fmt_ratio(row["speedup"]) for row in rows]
        if _any_mfu(per_run):
            cells += [fmt_percent(row["mfu"]) if row else DASH for row in rows]
        data.append(tuple(cells))
    return make_table(headers, data)


def _ratio_cell(change) -> str:
    if change is None or change.ratio is None:
        return DASH
    mark = {REGRESSION: " slower", IMPROVEMENT: " faster"}.get(change.verdict, "")
    return f"{fmt_ratio(change.ratio)} ({change.low:.2f}–{change.high:.2f}){mark}"


def _any_mfu(per_run) -> bool:
    return any(row["mfu"] is not None for rows in per_run for row in rows.values())
