"""Several result files: the same case ids side by side, one bar per file.

This is the hardware-qualification view (two GPUs, two LibTorch versions).
Bars keep the precision colour; the file is told apart by hatching, and each
later file's bar is annotated with its ratio to the first file's.
"""

from __future__ import annotations

from matplotlib.patches import Patch

from ..runs import ordered_unique, precision_key
from .style import light_log_axis, new_figure, precision_color, precision_handles, run_hatch, wants_log_scale


def compare_workloads(runs) -> list:
    """Workloads with throughput in at least one run, in first-seen order."""
    return ordered_unique(c.workload for run in runs for c in run.cases if c.throughput)


def compare_figure(runs, workload):
    ids = ordered_unique(c.id for run in runs for c in run.cases
                         if c.workload == workload and c.throughput)
    if len(runs) < 2 or not ids:
        return None
    bar = 0.8 / len(runs)
    fig = new_figure(12.5, 2.2 + 0.28 * len(ids) * len(runs))
    ax = fig.subplots()
    for row, case_id in enumerate(ids):
        _draw_row(ax, runs, case_id, row, bar)
    ax.set_yticks(range(len(ids)))
    ax.set_yticklabels(ids, fontsize=8)
    ax.invert_yaxis()  # suite order reads top to bottom
    ax.set_xlabel("throughput (samples/s, median; error bars: min–max)")
    medians = [c.throughput.median for run in runs for c in run.cases
               if c.id in ids and c.throughput]
    if wants_log_scale(medians):
        ax.set_xscale("log")
        light_log_axis(ax.xaxis)
        ax.set_xlabel("throughput (samples/s, median, log scale; error bars: min–max)")
    ax.grid(axis="x", alpha=0.3)
    ax.margins(x=0.2)
    # Outside the axes: inside, it would cover the longest bars.
    ax.legend(handles=_legend(runs, ids), fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"{workload}: throughput per case across result files (×: ratio to run1)", fontsize=11)
    fig.tight_layout()
    return fig


def _draw_row(ax, runs, case_id, row, bar) -> None:
    first = runs[0].case(case_id)
    first_tp = first and first.throughput
    for k, run in enumerate(runs):
        case = run.case(case_id)
        tp = case and case.throughput
        y = row - 0.4 + bar * (k + 0.5)
        if not tp:
            # axes-fraction x: valid on linear and log axes alike
            ax.text(0.005, y, "n/a", va="center", fontsize=7, color="dimgray",
                    transform=ax.get_yaxis_transform())
            continue
        spread = [[tp.median - tp.min], [tp.max - tp.median]]
        ax.barh(y, tp.median, bar * 0.95, color=precision_color(case.precision),
                hatch=run_hatch(k), edgecolor="black", linewidth=0.5,
                xerr=spread, capsize=2, error_kw={"lw": 0.7})
        if k > 0 and first_tp and first_tp.median > 0:
            ax.annotate(f"×{tp.median / first_tp.median:.2f}", (tp.max, y),
                        xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)


def _legend(runs, ids) -> list:
    files = [Patch(facecolor="white", edgecolor="black", hatch=run_hatch(k), label=run.label)
             for k, run in enumerate(runs)]
    precisions = sorted({c.precision for run in runs for c in run.cases if c.id in ids},
                        key=precision_key)
    return files + precision_handles(precisions)
