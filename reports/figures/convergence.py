"""Convergence to quality: a converge workload's curves over its seeds.

One column per fp32 reference and three rows on one step axis: validation accuracy
with the target, validation loss, and the loss scale of the cases that ran a
GradScaler.  Stacked so a control's stall lines up with its scale's collapse
(scale_never_recovers: the overflow at step 300 is where its accuracy stops).
Each case is one line, the mean over its seeds; fp32's spread over its
seeds is shaded, trimmed as the rule trims, so "inside the band" means
"as close to fp32 as fp32 is to itself".  Colour is the precision; a
negative control is a broken line, and each control its own kind of break.
"""

from __future__ import annotations

from reference.python.results_file import Expect

from ..convergence import (convergence_block, convergence_cases, over_seeds, rule, seed_runs, skipped_steps,
                           uses_scaler)
from ..runs import config_label, ordered_unique, precision_key, varying_fields, verdict_text
from .layout import finish, unique_handles
from .style import light_log_axis, new_figure, precision_color

PANEL = (7.0, 2.9)   # inches; three rows must fit one screen and a half
# Correct configurations are solid (told apart by markers when several share
# a precision); controls cycle through the broken styles.
CONTROL_STYLES = ("--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
CORRECT_MARKERS = (None, "o", "s", "^", "D")
ROWS = (("accuracy", "validation accuracy"),
        ("loss", "validation loss\n(cross-entropy)"),
        ("scale", "loss scale\n(log2 axis)"))


def convergence_figure(run, workload, cases):
    """None when no case of the workload recorded its seeds' runs."""
    shown = sorted(convergence_cases(cases), key=lambda c: precision_key(c.precision))
    if not shown:
        return None
    rows = ROWS if any(uses_scaler(c) for c in shown) else ROWS[:2]
    columns = by_reference(shown)
    fig = new_figure(PANEL[0] * len(columns), PANEL[1] * len(rows) + 0.9)
    grid = fig.subplots(len(rows), len(columns), sharex="col", squeeze=False)
    styles = line_styles(shown)
    for col, (title, column_cases) in enumerate(columns.items()):
        panels = dict(zip((key for key, _ in rows), grid[:, col]))
        _draw_model(panels, title, column_cases, styles)
    for ax, (_, label) in zip(grid[:, 0], rows):
        ax.set_ylabel(label, fontsize=9)
    seeds = max(len(seed_runs(c)) for c in shown)
    stopped = " (a control stopped once caught: over the seeds it ran)" if any(stopped_text(c) for c in shown) else ""
    scale = (", and the loss scale of the cases with a GradScaler (geometric mean over seeds)"
             if len(rows) == 3 else "")
    finish(fig, f"{workload}: validation accuracy and loss per evaluation, each line the mean over "
                f"{seeds} seeds{stopped} (shaded: fp32's {band_text(shown)}){scale}; {run.label}",
           unique_handles(grid.ravel()), title_size=10)
    return fig


def by_reference(cases) -> dict:
    """One column per fp32 reference, titled by its model (and its tag when
    it trains at its own lr or length): a case at another schedule than the
    suite's is judged against a reference of its own, whose steps would
    squeeze the suite's onto a fraction of a shared axis."""
    columns: dict = {}
    for case in cases:
        reference = case.baseline_id or case.id
        tag = reference.partition("@")[2]
        columns.setdefault(f"{case.model}@{tag}" if tag else case.model, []).append(case)
    return columns


def convergence_caption(workload, cases) -> str:
    """The figure's caption and alt text: what each line and the band are,
    since "the fp32 band" alone could be min to max or trimmed."""
    scale = (" Below: the loss scale of the cases with a GradScaler (geometric mean over seeds, log axis)."
             if any(uses_scaler(c) for c in cases) else "")
    return (f"Convergence to quality: {workload}. Validation accuracy (target dashed) and validation loss "
            f"per evaluation, each case the mean over its seeds, negative controls in broken lines; "
            f"shaded: fp32's {band_text(cases)}.{scale}")


def stopped_text(case) -> str:
    """", N of M seeds" for a control the suite stopped once it was caught
    (convergence.stop_caught_controls): its mean is over fewer seeds."""
    block = convergence_block(case)
    if not block or not block.get("stopped_when_caught"):
        return ""
    return f", {len(block['runs'])} of {len(rule(case).get('seeds') or [])} seeds"


def band_text(cases) -> str:
    """What the shaded band is, in words, for titles and captions."""
    trims = sorted({int(rule(c).get("trim") or 0) for c in cases})
    if trims == [0]:
        return "range over its seeds (min to max)"
    dropped = "highest and lowest" if trims == [1] else f"{'/'.join(map(str, trims))} highest and lowest"
    return f"range over its seeds, the {dropped} dropped at each evaluation as the rule trims"


def line_styles(cases) -> dict:
    """{case id: line keyword arguments}: colour per precision, broken lines
    for controls, and a legend label naming the configuration."""
    fields = varying_fields(cases)
    correct = ordered_unique(config_label(c, fields) for c in cases if c.expect is not Expect.FAIL)
    controls = ordered_unique(config_label(c, fields) for c in cases if c.expect is Expect.FAIL)
    styles = {}
    for case in cases:
        config = config_label(case, fields)
        style = {"color": precision_color(case.precision), "linewidth": 1.5,
                 "label": " ".join(filter(None, [case.precision, config]))}
        if case.expect is Expect.FAIL:
            style["linestyle"] = CONTROL_STYLES[controls.index(config) % len(CONTROL_STYLES)]
            style["label"] += f" (control: {verdict_text(case)}{stopped_text(case)})"
        else:
            style.update(linestyle="-", marker=CORRECT_MARKERS[correct.index(config) % len(CORRECT_MARKERS)],
                         markersize=3)
        if case.precision == "fp32" and case.expect is not Expect.FAIL:
            # Wide and pale under the others: a correct fp16/bf16 mean lies on
            # fp32's and would hide it.
            style.update(linewidth=4.0, alpha=0.45, zorder=1)
        styles[case.id] = style
    return styles


def _draw_model(panels, model, cases, styles) -> None:
    reference = [c for c in cases if c.precision == "fp32" and c.expect is Expect.PASS]
    for key in ("accuracy", "loss"):
        ax = panels[key]
        for case in reference:
            _shade_band(ax, case, key)
        for case in cases:
            _plot_mean(ax, case, key, styles[case.id])
        ax.grid(alpha=0.3)
    for target in ordered_unique(rule(c).get("target_accuracy") for c in cases):
        if target is not None:
            panels["accuracy"].axhline(target, color="black", linewidth=1.0, linestyle=(0, (4, 2)),
                                       label=f"target accuracy {target:g}", zorder=2)
    panels["accuracy"].set_title(f"{model}: {len(cases)} cases", fontsize=10)
    if "scale" in panels:
        _draw_scale(panels["scale"], [c for c in cases if uses_scaler(c)], styles)
    bottom = panels.get("scale", panels["loss"])
    bottom.set_xlabel("optimizer step")


def _shade_band(ax, case, key) -> None:
    trim = int(rule(case).get("trim") or 0)
    spread = over_seeds(seed_runs(case), key, trim=trim)
    if spread is None:
        return
    what = "range" if trim == 0 else "trimmed range"
    ax.fill_between(spread.steps, spread.low, spread.high, color=precision_color("fp32"), alpha=0.2,
                    linewidth=0, label=f"fp32 {what} over {spread.seeds} seeds", zorder=0)


def _plot_mean(ax, case, key, style, geometric=False) -> None:
    spread = over_seeds(seed_runs(case), key, geometric=geometric)
    if spread is not None:
        ax.plot(spread.steps, spread.mean, **style)


def _draw_scale(ax, cases, styles) -> None:
    for case in cases:
        _plot_mean(ax, case, "scale", styles[case.id], geometric=True)
    if cases:
        ax.set_yscale("log", base=2)
        light_log_axis(ax.yaxis, base=2)
    skipped = sum(skipped_steps(c) for c in cases)
    ax.set_title(f"{len(cases)} cases with a GradScaler, {skipped} skipped step"
                 f"{'s' if skipped != 1 else ''} over all seeds", fontsize=9)
    ax.grid(alpha=0.3)

