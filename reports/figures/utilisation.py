"""Model FLOP utilisation of one run: one horizontal bar per case.

Horizontal, because the case id is the label and a suite has ~100 of them;
suite order keeps fp32/fp16/bf16 of one configuration next to each other,
and the precision colour tells them apart.
"""

from __future__ import annotations

import numpy as np

from ..ceilings import mfu_cases
from ..runs import precision_key
from .style import light_log_axis, new_figure, precision_color, precision_handles, wants_log_scale

BAR_HEIGHT_IN = 0.28   # inches per case: room for a 7 pt id


def utilisation_figure(run):
    """None when no case carries a model FLOP utilisation (no ceilings measured)."""
    cases = mfu_cases(run)
    if not cases:
        return None
    percent = [100.0 * c.throughput.model_flop_utilization for c in cases]
    fig = new_figure(10.0, max(3.0, 1.4 + BAR_HEIGHT_IN * len(cases)))
    ax = fig.subplots()
    rows = np.arange(len(cases))
    ax.barh(rows, percent, 0.7, color=[precision_color(c.precision) for c in cases])
    for row, value in zip(rows, percent):
        ax.annotate(f"{value:.3g}%", (value, row), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=7)
    ax.set_yticks(rows)
    ax.set_yticklabels([c.id for c in cases], fontsize=7)
    ax.set_ylim(len(cases) - 0.5, -0.5)  # first case on top, as in the tables
    ax.set_xlabel("model FLOP utilisation (% of the measured matmul ceiling of the case's precision)")
    _maybe_log_scale(ax, percent)
    ax.margins(x=0.12)
    ax.grid(axis="x", alpha=0.3)
    precisions = sorted({c.precision for c in cases}, key=precision_key)
    # Legend beside the axes: inside, it would cover the longest bars.
    ax.legend(handles=precision_handles(precisions), loc="upper left", bbox_to_anchor=(1.01, 1),
              fontsize=8)
    ax.set_title(f"Achieved FLOP/s over the matmul ceiling ({run.label})", fontsize=11, loc="left")
    fig.tight_layout()
    return fig


def _maybe_log_scale(ax, percent) -> None:
    # A CPU MLP can reach tens of percent while a small transformer stays
    # well under one; linear bars would hide the latter.
    if wants_log_scale(percent):
        ax.set_xscale("log")
        light_log_axis(ax.xaxis)
        ax.set_xlabel(ax.get_xlabel() + ", log scale")
