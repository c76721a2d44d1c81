"""FP8 scaling factors per step, the scale a recipe multiplies each GEMM
operand by before the cast to 8 bits.

One panel per FP8 case of a tensorwise or delayed recipe (rowwise scales are
per row), one colour per converted layer, one line style per operand (the
input, the weight, the output gradient); log scale, since a scale is
fp8_max / amax. A line that stays flat while its neighbours move is a scale
that is not updated (a frozen scale, an unrolled history); delayed scaling's
lines trail the tensorwise ones by a step.
"""

from __future__ import annotations

import numpy as np

from ..runs import precision_key
from .layout import finish, unique_handles
from .style import grid_figure, light_log_axis

# A conformance suite has dozens of FP8 cases; the figure shows the first.
MAX_PANELS = 12
OPERANDS = (("input", "-"), ("weight", "--"), ("grad_output", ":"))


def scaled_layers(case) -> list:
    """The converted layers of `case` that carry a scale trajectory."""
    fp8 = case.fp8 or {}
    return [layer for layer in fp8.get("layers", ()) if layer.get("converted") and layer.get("scales")]


def fp8_scale_figure(run):
    """None when no case carries FP8 scales."""
    cases = sorted((c for c in run.cases if scaled_layers(c)), key=lambda c: (c.model, precision_key(c.precision)))
    if not cases:
        return None
    shown = cases[:MAX_PANELS]
    fig, axes = grid_figure(len(shown), max_cols=3, panel=(5.5, 3.8))
    for ax, case in zip(axes, shown):
        _draw_panel(ax, case)
    selection = "" if len(shown) == len(cases) else f"the first {len(shown)} of {len(cases)} FP8 cases; "
    finish(fig, f"FP8 scale per step and operand (colour: layer; {selection}log scale)\n{run.label}",
           unique_handles(axes), title_size=10)
    return fig


def _draw_panel(ax, case) -> None:
    layers = scaled_layers(case)
    colors = [f"C{i % 10}" for i in range(len(layers))]
    for layer, color in zip(layers, colors):
        for operand, style in OPERANDS:
            values = np.array([np.nan if v is None else v for v in layer["scales"].get(operand, ())], dtype=float)
            ax.plot(np.arange(len(values)), values, color=color, linestyle=style, linewidth=1.3,
                    label=operand.replace("_", " "))
    ax.set_yscale("log")
    light_log_axis(ax.yaxis)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("scale (fp8_max / amax)", fontsize=9)
    ax.set_title(f"{case.id}\n{len(layers)} converted layer(s)", fontsize=9)
    ax.grid(alpha=0.3)
