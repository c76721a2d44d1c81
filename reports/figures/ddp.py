"""Distributed cases (DDP / DataParallel): scaling efficiency and per-rank rate."""

from __future__ import annotations

import numpy as np

from .layout import GLYPH_WIDTH, finish
from .style import new_figure, precision_color, precision_handles
from ..runs import precision_key


TEXT_INSIDE_PCT = 45   # % efficiency: the shortest bar that holds its four-line label


def ddp_figure(run):
    """None when no case carries a "ddp" block: single-device suites have none."""
    cases = [c for c in run.cases if c.ddp]
    if not cases:
        return None
    # Upright case ids under the bars take their length in height.
    ids_in = max(len(c.id) for c in cases) * 8 * GLYPH_WIDTH / 72
    fig = new_figure(max(10.0, 1.2 * len(cases) + 6), 3.6 + ids_in)
    left, right = fig.subplots(1, 2)
    labels = [c.id for c in cases]
    ideal = _draw_efficiency(left, cases)
    _draw_per_rank(right, cases)
    for ax in (left, right):
        ax.set_xticks(range(len(cases)))
        # Upright ids: any slant makes neighbouring 35-character ids collide.
        ax.set_xticklabels(labels, rotation=90, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    precisions = sorted({c.precision for c in cases}, key=precision_key)
    finish(fig, f"Distributed scaling ({run.label})", precision_handles(precisions) + [ideal])
    return fig


def _draw_efficiency(ax, cases):
    """Draws the panel; returns the ideal line for the figure's legend."""
    for x, case in enumerate(cases):
        ddp = case.ddp
        pct = 100.0 * ddp.scaling_efficiency
        ax.bar(x, pct, 0.7, color=precision_color(case.precision))
        label = f"{pct:.0f}%\n{ddp.replicas} replicas\n{ddp.aggregate_samples_per_s:.0f}\nsamples/s"
        if pct >= TEXT_INSIDE_PCT:  # inside: above, the text would collide with the ideal line
            # On a pale box: the text is wider than a bar of a long suite.
            ax.text(x, pct / 2, label, ha="center", va="center", fontsize=7,
                    bbox={"facecolor": "white", "alpha": 0.85, "linewidth": 0, "pad": 1})
        else:  # a short bar cannot hold four lines: they go above it
            ax.annotate(label, (x, pct), xytext=(0, 2), textcoords="offset points", ha="center",
                        va="bottom", fontsize=7)
    ideal = ax.axhline(100.0, color="black", linestyle="--", linewidth=1, label="ideal (100%)")
    ax.set_ylabel("scaling efficiency (%)\naggregate / (replicas × single-device)")
    ax.set_title("scaling efficiency")
    ax.set_ylim(0, max(110.0, 1.1 * max(100 * c.ddp.scaling_efficiency for c in cases)))
    return ideal


def _draw_per_rank(ax, cases) -> None:
    for x, case in enumerate(cases):
        rates = case.ddp.per_rank_samples_per_s
        if not rates:
            continue
        width = 0.8 / len(rates)
        offsets = x - 0.4 + width * (np.arange(len(rates)) + 0.5)
        ax.bar(offsets, rates, width * 0.9, color=precision_color(case.precision),
               edgecolor="black", linewidth=0.5)
        for rank, (ox, rate) in enumerate(zip(offsets, rates)):
            ax.annotate(f"r{rank}", (ox, rate), xytext=(0, 1), textcoords="offset points",
                        ha="center", va="bottom", fontsize=6)
    ax.set_ylabel("throughput per rank (samples/s)")
    ax.set_title("per-rank throughput (one bar per rank)")
    ax.margins(y=0.15)
