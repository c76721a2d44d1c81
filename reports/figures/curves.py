"""Per-step curves of one workload, one panel per model.

Three views of the same cases: the loss itself, its relative deviation from
the fp32 baseline (what the checker judged), and the fp16 loss scale (why a
step may have been skipped).  Colour is the precision; line style is the
rest of the configuration (optimizer, variant, ...), consistent within a
figure so "dashed" means the same case family in every panel.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from reference.python.results_file import Expect

from ..runs import (as_array, config_label, group_by, ordered_unique, precision_key,
                    trajectory, varying_fields, verdict_text)
from .layout import finish, unique_handles
from .style import SKIP_MARKER, grid_figure, light_log_axis, linestyle, precision_color, wants_log_scale

# Log axes cannot show an exact zero (the first step of a deterministic run
# matches fp32 exactly); such points are drawn at this floor instead.
DEVIATION_FLOOR = 1e-9
LOSS_LOG_RATIO = 100.0


def loss_figure(run, workload, cases):
    """fp32/fp16/bf16 loss per step; negative controls are left to the
    deviation figure, where their divergence is the point."""
    shown = [c for c in cases if c.expect is Expect.PASS and trajectory(c, "loss")]
    if not shown:
        return None
    return _per_model(shown, _draw_loss,
                      f"{workload}: training loss per step ({run.label})")


def deviation_figure(run, workload, cases):
    shown = [c for c in cases if c.check and c.check.deviation_per_step]
    if not shown:
        return None
    conform = sum(1 for c in shown if c.conforms)
    return _per_model(shown, _draw_deviation,
                      f"{workload}: |loss − fp32 loss| / |fp32 loss| per step against the measured "
                      f"envelope (shaded), negative controls marked ×, "
                      f"{conform} of {len(shown)} checks conform ({run.label})")


def scale_figure(run, workload, cases):
    shown = [c for c in cases if c.precision == "fp16" and trajectory(c, "scale")]
    if not shown:
        return None
    return _per_model(shown, _draw_scale,
                      f"{workload}: fp16 loss scale per step, ▼ = skipped step ({run.label})")


def _per_model(cases, draw_panel, title):
    models = group_by(cases, "model")
    fields = varying_fields(cases)
    styles = {cfg: linestyle(i) for i, cfg in
              enumerate(ordered_unique(config_label(c, fields) for c in cases))}
    fig, axes = grid_figure(len(models), max_cols=3)
    for ax, (model, model_cases) in zip(axes, models.items()):
        model_cases = sorted(model_cases, key=lambda c: precision_key(c.precision))
        panel_title = draw_panel(ax, model_cases, fields, styles)
        ax.set_title(f"{model}{': ' + panel_title if panel_title else ''}", fontsize=10)
        ax.set_xlabel("optimizer step")
        ax.grid(alpha=0.3)
    # One legend beside the panels: inside, a suite's 10+ curves per panel
    # leave no empty corner for it.
    finish(fig, title, unique_handles(axes))
    return fig


def _line_kwargs(case, fields, styles) -> dict:
    config = config_label(case, fields)
    label = " ".join(filter(None, [case.precision, config]))
    kwargs = {"color": precision_color(case.precision), "linestyle": styles[config],
              "label": label, "linewidth": 1.4}
    if case.precision == "fp32":
        # A wide pale band under the others: a correct fp16/bf16 run lies on
        # top of fp32 and would otherwise hide the baseline completely.
        kwargs.update(linewidth=4.0, alpha=0.45, zorder=1)
    return kwargs


def _draw_loss(ax, cases, fields, styles):
    values = []
    for case in cases:
        loss = as_array(trajectory(case, "loss"))
        ax.plot(np.arange(len(loss)), loss, **_line_kwargs(case, fields, styles))
        values += [v for v in loss if np.isfinite(v)]
    ax.set_ylabel("training loss (dimensionless)")
    # A scaled-down loss (the suite's tiny-gradient cases multiply it by
    # ~1e-6) would flatten every other curve on a linear axis.
    if values and min(values) > 0 and wants_log_scale(values, ratio=LOSS_LOG_RATIO):
        ax.set_yscale("log")
        light_log_axis(ax.yaxis)
        ax.set_ylabel("training loss (dimensionless, log scale)")
    return ""


def _draw_deviation(ax, cases, fields, styles):
    clipped = False
    for case in cases:
        dev = as_array(case.check.deviation_per_step)
        clipped |= bool(np.any(dev < DEVIATION_FLOOR))
        dev = np.where(dev < DEVIATION_FLOOR, DEVIATION_FLOOR, dev)
        kwargs = _line_kwargs(case, fields, styles)
        if case.expect is Expect.FAIL:
            # Marked, not restyled: line styles already tell configurations apart.
            kwargs.update(marker="x", markersize=5)
            kwargs["label"] += f" (control: {verdict_text(case)})"
        ax.plot(np.arange(len(dev)), dev, **kwargs)
        _mark_first_crossing(ax, case, dev, kwargs["color"])
    _draw_bound_bands(ax, [c for c in cases if c.expect is Expect.PASS])
    if not any(_loss_bound(c) is not None for c in cases):
        _draw_tolerances(ax, cases)  # schema 1 files: one constant per precision
    ax.set_yscale("log")
    light_log_axis(ax.yaxis)
    # Two lines: one panel is only 3.6 in tall.
    floor_note = f"; < {DEVIATION_FLOOR:g} drawn at {DEVIATION_FLOOR:g}" if clipped else ""
    ax.set_ylabel(f"relative loss deviation\n(log{floor_note})", fontsize=9)
    counts = Counter(c.status for c in cases)
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


def _mark_first_crossing(ax, case, dev, color) -> None:
    step = case.check.first_crossing_step
    if step is not None and 0 <= step < len(dev):
        ax.plot([step], [dev[step]], marker="o", markersize=7, markerfacecolor="none",
                markeredgecolor=color, markeredgewidth=1.5, linestyle="none")


def _loss_bound(case):
    """The per-step bound the loss was held to (schema 2), else None."""
    return (case.check.bounds.get("loss_rel") or {}).get("bound")


def _draw_bound_bands(ax, cases) -> None:
    """The equivalence envelope as the checker applied it: below max(c x
    envelope, floor) at each step a case conforms.  One band per precision
    and distinct bound: twenty translucent copies of nearly the same band
    stack into an opaque block that hides the curves."""
    drawn = set()
    for case in cases:
        bound = _loss_bound(case)
        if not bound:
            continue
        values = np.array([np.nan if b is None else b for b in bound], dtype=float)
        key = (case.precision, tuple(np.round(np.log10(np.where(values > 0, values, np.nan)), 1)))
        if key in drawn:
            continue
        first = not any(p == case.precision for p, _ in drawn)
        drawn.add(key)
        env = case.check.envelope
        label = (f"{case.precision} bound: max({env['c']:g} × envelope, floor)" if env
                 else f"{case.precision} bound (floor)")
        steps, color = np.arange(len(values)), precision_color(case.precision)
        if first:  # shade once per precision; further bounds are their dotted lines
            ax.fill_between(steps, DEVIATION_FLOOR, values, color=color, alpha=0.07, linewidth=0)
        ax.plot(steps, values, color=color, linewidth=0.8, alpha=0.5, linestyle=":",
                label=label if first else None)


def _draw_tolerances(ax, cases) -> None:
    """One wide translucent line per distinct (precision, tolerance): fp16 and
    bf16 tolerances differ because their unit roundoffs do."""
    pairs = ordered_unique((c.precision, c.check.tolerances["loss_rel"]) for c in cases)
    for precision, tol in pairs:
        if tol is None:  # non-finite tolerance: nothing to draw
            continue
        ax.axhline(tol, color=precision_color(precision), linewidth=3, alpha=0.35,
                   label=f"{precision} tolerance {tol:g}")


def _draw_scale(ax, cases, fields, styles):
    labelled = False
    for case in cases:
        scale = as_array(trajectory(case, "scale"))
        steps = np.arange(len(scale))
        ax.plot(steps, scale, drawstyle="steps-post", **_line_kwargs(case, fields, styles))
        skipped = np.array(trajectory(case, "skipped")[:len(scale)], dtype=bool)
        if skipped.any():
            ax.scatter(steps[:len(skipped)][skipped], scale[:len(skipped)][skipped],
                       label=None if labelled else "skipped step", **SKIP_MARKER)
            labelled = True
    ax.set_yscale("log", base=2)
    light_log_axis(ax.yaxis, base=2)
    ax.set_ylabel("loss scale (log2 axis)")
    total = sum(sum(trajectory(c, "skipped")) for c in cases)
    return f"{total} skipped step{'s' if total != 1 else ''}"
