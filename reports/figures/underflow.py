"""Why the scaler matters: fp16 gradient underflow with and without it.

One panel per fp16 case: the fraction of gradient values below float16's
smallest subnormal (2⁻²⁴) at scale 1 (no scaler) and at the scale the scaler
used, per step, with the fp32 baseline's unscaled fraction dashed.  The gap
between the dotted and the solid line is what loss scaling saves.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..gradients import AT_SCALE, AT_SCALE_1, NONFINITE, mean_fraction, scaler_pairs, series
from .layout import finish, unique_handles
from .style import SKIP_MARKER, grid_figure, light_log_axis, precision_color

# Panels beyond this would make a conformance suite's figure metres long; the
# table lists every case, the figure the ones with the most to lose.
MAX_PANELS = 12
# A log axis cannot show 0 (the usual value at the scaler's scale); zeros are
# drawn at a floor a decade below the smallest non-zero fraction.
DEFAULT_FLOOR = 1e-7


def underflow_figure(run):
    """None when no fp16 case carries grad_health."""
    pairs = scaler_pairs(run)
    if not pairs:
        return None
    shown = _most_underflow(pairs)
    floor = _floor(shown)
    fig, axes = grid_figure(len(shown), max_cols=3, panel=(5.5, 3.8))
    for ax, (case, base) in zip(axes, shown):
        _draw_panel(ax, case, base, floor)
    selection = "" if len(shown) == len(pairs) else \
        f"{len(shown)} of {len(pairs)} fp16 cases, most underflow at scale 1 first; "
    finish(fig, f"fp16 gradient underflow (< 2⁻²⁴) per step, without and with the loss scaler; "
                f"{selection}0 drawn at {floor:g}\n{run.label}", unique_handles(axes), title_size=10)
    return fig


def _most_underflow(pairs) -> list:
    if len(pairs) <= MAX_PANELS:
        return pairs
    ranked = sorted(pairs, key=lambda p: -(mean_fraction(p[0], AT_SCALE_1) or 0.0))
    return ranked[:MAX_PANELS]


def _floor(pairs) -> float:
    values = np.concatenate([series(c, key) for pair in pairs for c in pair if c is not None
                             for key in (AT_SCALE_1, AT_SCALE)] or [np.array([])])
    positive = values[np.isfinite(values) & (values > 0)]
    if not positive.size:
        return DEFAULT_FLOOR
    return min(DEFAULT_FLOOR, 10.0 ** (math.floor(math.log10(positive.min())) - 1))


def _draw_panel(ax, case, base, floor) -> None:
    fp16, fp32 = precision_color("fp16"), precision_color("fp32")
    _plot(ax, case, AT_SCALE_1, floor, color=fp16, linestyle=":", linewidth=1.8,
          label="fp16, at scale 1 (no scaler)")
    at_scale = _plot(ax, case, AT_SCALE, floor, color=fp16, linestyle="-", linewidth=1.6,
                     label="fp16, at the scaler's scale")
    if base is not None:
        _plot(ax, base, AT_SCALE_1, floor, color=fp32, linestyle="--", linewidth=1.4,
              label="fp32 baseline, at scale 1")
    _mark_nonfinite(ax, case, at_scale)
    ax.set_yscale("log")
    light_log_axis(ax.yaxis)
    ax.set_ylim(floor / 2, 2.0)
    ax.set_title(case.id, fontsize=8)
    ax.set_xlabel("optimizer step")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("fraction of gradient values\nunderflowing fp16 (log)", fontsize=9)
    ax.grid(alpha=0.3)


def _plot(ax, case, key, floor, **style) -> np.ndarray:
    values = series(case, key)
    values = np.where(values <= 0, floor, values)  # NaN (null) stays a gap
    ax.plot(np.arange(len(values)), values, **style)
    return values


def _mark_nonfinite(ax, case, at_scale) -> None:
    """▼ where the gradients held inf/NaN: the steps the scaler skipped."""
    counts = series(case, NONFINITE)[:len(at_scale)]
    bad = np.flatnonzero(~(counts == 0))   # NaN (null count) is bad too
    if bad.size:
        ax.scatter(bad, np.nan_to_num(at_scale[bad], nan=1.0), label="non-finite gradients",
                   **SKIP_MARKER)
