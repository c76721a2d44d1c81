"""C++ against Python, per case: one dot per Python run (eager, torch.compile)
at the ratio C++ median / Python median, on a log axis around 1.  Right of
the line C++ is faster.  Drawn when the files hold a C++ run and at least
one Python run (python -m reference.python.bench [--compile])."""

from __future__ import annotations

import math

from matplotlib.ticker import FuncFormatter, NullFormatter

from ..runs import implementation, ordered_unique
from .layout import finish
from .style import new_figure

MARKERS = {"Python eager": "o", "Python torch.compile": "D"}


def implementation_pairs(runs):
    """(the first C++ run, [Python runs]) or None when the files hold no such pair."""
    cpp = next((r for r in runs if implementation(r.env) == "C++"), None)
    python = [r for r in runs if implementation(r.env) != "C++"]
    return (cpp, python) if cpp and python else None


def ratio(cpp_case, py_case):
    """C++ median over Python median; None unless both measured the same input mode."""
    a, b = cpp_case and cpp_case.throughput, py_case and py_case.throughput
    if not a or not b or a.input != b.input:
        return None
    return a.median / b.median


def implementation_figure(runs):
    pairs = implementation_pairs(runs)
    if not pairs:
        return None
    cpp, python = pairs
    ids = ordered_unique(c.id for c in cpp.cases
                         if c.throughput and any(ratio(c, p.case(c.id)) for p in python))
    if not ids:
        return None
    fig = new_figure(10, 1.6 + 0.22 * len(ids))
    ax = fig.subplots()
    values = []
    for p in python:
        label = implementation(p.env)
        points = [(ratio(cpp.case(i), p.case(i)), row) for row, i in enumerate(ids)]
        points = [(r, row) for r, row in points if r]
        values += [r for r, _ in points]
        ax.scatter([r for r, _ in points], [row for _, row in points], marker=MARKERS.get(label, "s"),
                   s=18, label=f"C++ / {label} (geo-mean {_geo_mean([r for r, _ in points]):.2f}×)")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xscale("log")
    low, high = min(values + [1.0]), max(values + [1.0])
    ax.set_xlim(low / 1.25, high * 1.25)
    _plain_log_labels(ax.xaxis, high / low * 1.5625)
    ax.set_yticks(range(len(ids)))
    ax.set_yticklabels(ids, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("C++ median samples/s over Python's (log scale; > 1: C++ faster)")
    ax.grid(axis="x", alpha=0.3)
    finish(fig, f"{cpp.tag} (C++) against Python, per case", ax.get_legend_handles_labels()[0])
    return fig


def _plain_log_labels(axis, span: float) -> None:
    """Numbers as 0.8 and 2 rather than matplotlib's mathtext 8x10^-1, which
    plain_text() would show as its source; within a decade the minor ticks
    are labelled too, or a ratio axis around 1 would carry the 1 alone."""
    plain = FuncFormatter(lambda value, _pos: f"{value:g}")
    axis.set_major_formatter(plain)
    axis.set_minor_formatter(plain if span < 10 else NullFormatter())


def _geo_mean(values) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")
