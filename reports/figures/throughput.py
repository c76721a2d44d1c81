"""Throughput of one run: grouped bars per workload, one bar per precision."""

from __future__ import annotations

from ..runs import config_label, group_by, precision_key, speedup, varying_fields
from .style import grid_figure, light_log_axis, precision_color, precision_handles, wants_log_scale


def throughput_figure(run):
    """One panel per workload; None when the run measured no throughput."""
    cases = [c for c in run.cases if c["throughput"] or c["status"] == "skipped"]
    if not any(c["throughput"] for c in cases):
        return None
    workloads = {w: cs for w, cs in group_by(cases, "workload").items()
                 if any(c["throughput"] for c in cs)}
    fig, axes = grid_figure(len(workloads), max_cols=2, panel=(6.5, 4.0))
    for ax, (workload, wl_cases) in zip(axes, workloads.items()):
        _draw_workload(ax, run, workload, wl_cases)
    precisions = sorted({c["precision"] for c in cases}, key=precision_key)
    fig.legend(handles=precision_handles(precisions), loc="upper right", ncol=len(precisions))
    fig.suptitle(f"Throughput, median of repetitions (error bars: min–max; label: speedup over fp32)\n{run.label}",
                 fontsize=11, x=0.02, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig


def _draw_workload(ax, run, workload, cases) -> None:
    fields = [f for f in varying_fields(cases) if f != "device"]
    groups = _groups(cases, fields)
    precisions = sorted({c["precision"] for c in cases}, key=precision_key)
    width = 0.8 / len(precisions)
    for gx, members in enumerate(groups.values()):
        for case in members:
            x = gx - 0.4 + width * (precisions.index(case["precision"]) + 0.5)
            _draw_bar(ax, run, case, x, width)
    ax.set_xlim(-0.5, len(groups) - 0.5)  # autoscale ignores "skipped" labels
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups.keys(), rotation=30 if len(groups) > 5 else 0, fontsize=8,
                       ha="right" if len(groups) > 5 else "center")
    ax.set_title(workload)
    ax.set_ylabel("throughput (samples/s)")
    _maybe_log_scale(ax, cases)
    ax.margins(y=0.15)
    ax.grid(axis="y", alpha=0.3)


def _groups(cases, fields) -> dict:
    """Bars that share everything but precision stand side by side."""
    groups: dict = {}
    for case in cases:
        label = "\n".join(filter(None, [case["model"], config_label(case, fields)]))
        groups.setdefault(label, []).append(case)
    return groups


def _draw_bar(ax, run, case, x, width) -> None:
    tp = case["throughput"]
    if tp is None:  # a skipped case: say so where its bar would stand
        ax.text(x, 0, "skipped", rotation=90, ha="center", va="bottom", fontsize=7,
                color="dimgray", transform=ax.get_xaxis_transform())
        return
    spread = [[tp["median"] - tp["min"]], [tp["max"] - tp["median"]]]
    ax.bar(x, tp["median"], width, color=precision_color(case["precision"]),
           yerr=spread, capsize=3, ecolor="black", error_kw={"lw": 0.8})
    ratio = speedup(run, case)
    if ratio is not None and case["precision"] != "fp32":
        ax.annotate(f"{ratio:.2f}×", (x, tp["max"]), xytext=(0, 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize=7)


def _maybe_log_scale(ax, cases) -> None:
    if wants_log_scale(c["throughput"]["median"] for c in cases if c["throughput"]):
        ax.set_yscale("log")
        light_log_axis(ax.yaxis)
        ax.set_ylabel("throughput (samples/s, log scale)")

