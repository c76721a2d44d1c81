"""Each case of a later run against run1: the throughput ratio with its
confidence interval, one row per case, sorted from the largest slowdown to
the largest speed-up.  Regressions red, improvements green, the rest grey;
the band is the minimum effect a change must exceed to count.
"""

from __future__ import annotations

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..comparison import IMPROVEMENT, INSUFFICIENT, REGRESSION, compare_runs
from .layout import finish
from .style import light_log_axis, new_figure

ROW_IN = 0.19          # inches per case: room for a 7 pt case id
COLORS = {REGRESSION: "#c62828", IMPROVEMENT: "#1a7f37"}
NEUTRAL = "#777777"


def sorted_changes(base_run, other_run) -> list:
    """The comparable rows, largest slowdown first."""
    return sorted((r for r in compare_runs(base_run, other_run) if r.ratio is not None),
                  key=lambda r: r.ratio)


def ratio_figure(runs, index: int):
    """runs[index] against runs[0]; None when no case was measured in both."""
    base, other = runs[0], runs[index]
    rows = sorted_changes(base, other)
    if not rows:
        return None
    fig = new_figure(9.0, 1.4 + ROW_IN * len(rows))
    ax = fig.subplots()
    for y, row in enumerate(rows):
        _draw_row(ax, y, row)
    effect = rows[0].min_effect
    ax.axvspan(1 - effect, 1 + effect, color="#eeeeee", zorder=0)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    light_log_axis(ax.xaxis)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.case_id for r in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.margins(x=0.15)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel(f"median samples/s of {other.tag} over {base.tag} (log; bars: ~95% interval from the "
                  "repetitions)")
    counts = {v: sum(1 for r in rows if r.verdict == v) for v in (REGRESSION, IMPROVEMENT)}
    finish(fig, f"{other.label}\nagainst {base.label}: {counts[REGRESSION]} slower, "
           f"{counts[IMPROVEMENT]} faster, {len(rows) - sum(counts.values())} without a significant "
           f"change beyond ±{100 * effect:.0f}% (grey band)", _legend(effect), title_size=10)
    return fig


def _draw_row(ax, y, row) -> None:
    color = COLORS.get(row.verdict, NEUTRAL)
    ax.plot([row.low, row.high], [y, y], color=color, linewidth=1.6, solid_capstyle="butt")
    hollow = row.verdict == INSUFFICIENT
    ax.plot([row.ratio], [y], marker="o", markersize=4.5, color=color,
            markerfacecolor="white" if hollow else color, linestyle="none")
    if row.verdict in COLORS:
        ax.annotate(f"{100 * (row.ratio - 1):+.0f}%", (row.high, y), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=7, color=color)


def _legend(effect) -> list:
    return [Line2D([], [], color=COLORS[REGRESSION], marker="o", label="regression (q < 0.05, "
                   f"slower by > {100 * effect:.0f}%)"),
            Line2D([], [], color=COLORS[IMPROVEMENT], marker="o", label="improvement"),
            Line2D([], [], color=NEUTRAL, marker="o", label="no significant change"),
            Line2D([], [], color=NEUTRAL, marker="o", markerfacecolor="white", label="too few repetitions"),
            Patch(facecolor="#eeeeee", label="minimum effect")]
