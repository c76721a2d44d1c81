"""Shared look of every figure: one colour per precision, everywhere.

Figures are built on matplotlib.figure.Figure with the Agg canvas directly,
never pyplot: no global figure registry to leak, no GUI backend to pick up
from the environment, and nothing needs closing.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")  # headless: CI and GPU hosts have no display

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator  # noqa: E402

# Fixed per precision so a reader can compare figures at a glance.
PRECISION_COLORS = {"fp32": "#1f77b4", "fp16": "#ff7f0e", "bf16": "#2ca02c", "tf32": "#9467bd",
                    "o2": "#d62728", "o3": "#8c564b", "fp8_tensorwise": "#17becf", "fp8_rowwise": "#bcbd22",
                    "fp8_delayed": "#e377c2", "mxfp8": "#7f7f7f",
                    "nvfp4": "#bcbd22", "fp8_blockwise": "#aec7e8"}
OTHER_COLORS = ("#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
# Line styles tell apart configurations (optimizer, variant, ...) that share
# a precision colour; run hatches tell apart result files in comparisons.
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
RUN_HATCHES = ("", "//", "..", "xx", "\\\\", "++")
SKIP_MARKER = {"marker": "v", "color": "black", "s": 28, "zorder": 5}
DPI = 100


# Every text we draw is data (case ids, machine ids, file names), and a `$`
# in it would be parsed as mathtext: `$x^$` fails the whole figure. Drawing
# and saving happen inside plain_text(); the log axes label themselves
# without mathtext (light_log_axis).
PLAIN_TEXT = {"text.parse_math": False}


def plain_text():
    """Context in which text given to matplotlib is shown as it is."""
    return matplotlib.rc_context(PLAIN_TEXT)


def precision_color(precision: str) -> str:
    if precision in PRECISION_COLORS:
        return PRECISION_COLORS[precision]
    return OTHER_COLORS[sum(map(ord, precision)) % len(OTHER_COLORS)]


def linestyle(index: int):
    return LINESTYLES[index % len(LINESTYLES)]


def run_hatch(index: int) -> str:
    return RUN_HATCHES[index % len(RUN_HATCHES)]


def precision_handles(precisions) -> list:
    return [Patch(facecolor=precision_color(p), label=p) for p in precisions]


def grid_figure(count: int, max_cols: int = 3, panel=(5.0, 3.6)):
    """Figure with `count` panels in a grid; returns (figure, flat axes list)."""
    cols = max(1, min(count, max_cols))
    rows = math.ceil(count / cols)
    fig = Figure(figsize=(panel[0] * cols, panel[1] * rows + 0.8), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[count:]:
        ax.set_visible(False)  # unused cells of the last grid row
    return fig, axes[:count]


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path) -> None:
    # Layout was fixed by tight_layout when the figure was built.  Both
    # bbox_inches="tight" and the placeholder layout engine tight_layout
    # leaves behind make savefig draw the whole figure twice; drop both.
    fig.set_layout_engine(None)
    fig.savefig(path, dpi=DPI)


# Above this max/min ratio a linear axis hides the slow bars entirely (an MLP
# runs 100x faster than a transformer block), so throughput axes go log.
LOG_SCALE_RATIO = 20.0


def wants_log_scale(values, ratio: float = LOG_SCALE_RATIO) -> bool:
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) / min(positive) > ratio


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def light_log_axis(axis, base: int = 10) -> None:
    """Log axis without minor ticks and with plain-text labels.

    Matplotlib's default log labels go through mathtext and every minor tick
    is a full Text object; on a 100-case suite that was half the run time.
    """
    axis.set_minor_locator(NullLocator())
    axis.set_major_locator(LogLocator(base=base))
    axis.set_major_formatter(FuncFormatter(_power_label(base)))


def _power_label(base: int):
    def label(value, _pos) -> str:
        if value <= 0:
            return ""
        exponent = math.log(value, base)
        if abs(exponent - round(exponent)) > 1e-9:
            return f"{value:g}"
        return f"{base}{str(round(exponent)).translate(_SUPERSCRIPT)}"
    return label
