"""Throughput of one run: grouped bars per workload, one bar per precision.

Past BARS_PER_PANEL bars a workload is cut into several panels: a panel
keeps bars wide enough for its vertical speedup labels, however many models
and configurations a suite grows to.
"""

from __future__ import annotations

from reference.python.results_file import Status

from ..runs import config_label, group_by, precision_key, speedup, varying_fields
from .layout import GLYPH_WIDTH, chunks, finish
from .style import grid_figure, light_log_axis, precision_color, precision_handles, wants_log_scale

BARS_PER_PANEL = 30    # at 6.5 in a panel, ~15 px a bar: a 7 pt label stood on end fits
PANEL = (6.5, 4.2)
TICK_FONT = 8


def throughput_figure(run, bars_per_panel: int = BARS_PER_PANEL):
    """Panels per workload (split past bars_per_panel); None when the run
    measured no throughput."""
    cases = [c for c in run.cases if c.throughput or c.status is Status.SKIPPED]
    if not any(c.throughput for c in cases):
        return None
    panels = _panels(cases, bars_per_panel)
    fig, axes = grid_figure(len(panels), max_cols=2, panel=PANEL)
    for ax, (title, groups, precisions) in zip(axes, panels):
        _draw_panel(ax, run, groups, precisions)
        ax.set_title(title)
    precisions = sorted({c.precision for c in cases}, key=precision_key)
    finish(fig, "Throughput, median of repetitions (error bars: min–max; label: speedup over fp32)\n"
           f"{run.label}", precision_handles(precisions))
    return fig


def _panels(cases, bars_per_panel) -> list:
    """[(title, {group label: cases}, precisions)] in suite order."""
    panels = []
    for workload, wl_cases in group_by(cases, "workload").items():
        if not any(c.throughput for c in wl_cases):
            continue
        fields = [f for f in varying_fields(wl_cases) if f != "device"]
        precisions = sorted({c.precision for c in wl_cases}, key=precision_key)
        groups = list(_groups(wl_cases, fields).items())
        per_panel = max(1, bars_per_panel // len(precisions))
        parts = chunks(groups, per_panel)
        for k, part in enumerate(parts):
            title = workload if len(parts) == 1 else f"{workload} ({k + 1} of {len(parts)})"
            panels.append((title, dict(part), precisions))
    return panels


def _draw_panel(ax, run, groups, precisions) -> None:
    width = 0.8 / len(precisions)
    placed = [(gx - 0.4 + width * (precisions.index(case.precision) + 0.5), case)
              for gx, members in enumerate(groups.values()) for case in members]
    _draw_bars(ax, run, placed, width)
    ax.set_xlim(-0.5, len(groups) - 0.5)  # autoscale ignores "skipped" labels
    ax.set_xticks(range(len(groups)))
    upright = _labels_fit(groups, PANEL[0] * 0.85 / len(groups))
    ax.set_xticklabels(groups.keys(), rotation=0 if upright else 90, fontsize=TICK_FONT)
    ax.set_ylabel("throughput (samples/s)")
    cases = [c for members in groups.values() for c in members]
    _maybe_log_scale(ax, cases)
    ax.margins(y=0.2)  # room above the tallest bar for its speedup label
    ax.grid(axis="y", alpha=0.3)


def _labels_fit(groups, pitch_in: float) -> bool:
    """Whether the longest group label, written horizontally, fits its slot."""
    longest = max((len(line) for label in groups for line in label.split("\n")), default=0)
    return longest * TICK_FONT * GLYPH_WIDTH / 72 < 0.9 * pitch_in


def _groups(cases, fields) -> dict:
    """Bars that share everything but precision stand side by side."""
    groups: dict = {}
    for case in cases:
        label = "\n".join(filter(None, [case.model, config_label(case, fields)]))
        groups.setdefault(label, []).append(case)
    return groups


def _draw_bars(ax, run, placed, width) -> None:
    """All bars of a panel in one call: per-bar calls cost a container and
    two collections each, seconds on a 700-case suite."""
    timed = [(x, c) for x, c in placed if c.throughput]
    for x, case in placed:
        if case.throughput is None:  # a skipped case: say so where its bar would stand
            ax.text(x, 0.01, "skipped", rotation=90, ha="center", va="bottom", fontsize=7,
                    color="dimgray", transform=ax.get_xaxis_transform())
    if not timed:
        return
    tps = [c.throughput for _, c in timed]
    spread = [[tp.median - tp.min for tp in tps], [tp.max - tp.median for tp in tps]]
    ax.bar([x for x, _ in timed], [tp.median for tp in tps], width,
           color=[precision_color(c.precision) for _, c in timed],
           yerr=spread, capsize=2, ecolor="black", error_kw={"lw": 0.8})
    for (x, case), tp in zip(timed, tps):
        ratio = speedup(run, case)
        if ratio is not None and case.precision != "fp32":
            ax.annotate(f"{ratio:.2f}×", (x, tp.max), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7, rotation=90)


def _maybe_log_scale(ax, cases) -> None:
    if wants_log_scale(c.throughput.median for c in cases if c.throughput):
        ax.set_yscale("log")
        light_log_axis(ax.yaxis)
        ax.set_ylabel("throughput (samples/s, log scale)")
