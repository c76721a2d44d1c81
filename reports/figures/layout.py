"""Layout rules that keep figures legible whatever the number of cases.

- Titles wrap to the figure's width instead of running off its edge.
- Legends go beside the panels, never on top of them: the figure is widened
  by the legend's measured width, and a legend taller than the figure gets
  more columns.  One legend per figure, because colour (precision) and line
  style (configuration) mean the same in every panel.
- Long categorical axes are cut into chunks, one panel each, so labels keep
  a fixed size instead of shrinking into each other.

figures/legibility.py checks the outcome on every figure of a report.
"""

from __future__ import annotations

import math
import textwrap

from matplotlib.legend import Legend

LEGEND_FONT = 8
GAP_IN = 0.1          # between the panels and the legend
# Average glyph width over font size for the default sans-serif font; used
# to wrap before drawing, so generous.
GLYPH_WIDTH = 0.62


def wrap(text: str, width_in: float, fontsize: float) -> str:
    """Text re-wrapped so each line fits width_in inches at fontsize points."""
    chars = max(20, int(width_in * 72 / (fontsize * GLYPH_WIDTH)))
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def chunks(items, size: int) -> list:
    """items cut into consecutive pieces of at most size (at least one piece)."""
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def finish(fig, title: str | None = None, handles=None, title_size: float = 11) -> None:
    """Title on top, one legend at the right, panels laid out in the rest.

    Call once every panel is drawn.  handles: legend artists (their labels
    are used); None or empty: no legend.
    """
    width, height = fig.get_size_inches()
    legend = _legend_beside(fig, handles, height) if handles else None
    legend_in = _width_in(fig, legend) + GAP_IN if legend else 0.0
    fig.set_size_inches(width + legend_in, height)
    top = 1.0
    if title:
        # tight_layout keeps the panels below a suptitle by itself.
        fig.suptitle(wrap(title, width, title_size), fontsize=title_size, x=0.01, ha="left",
                     y=0.995, va="top")
    right = 1.0 - legend_in / (width + legend_in)
    fig.tight_layout(rect=(0, 0, right, top))
    if legend:
        legend.set_bbox_to_anchor((right + GAP_IN / (width + legend_in) / 2, top),
                                  transform=fig.transFigure)


def _legend_beside(fig, handles, height_in) -> Legend:
    labels = [h.get_label() for h in handles]
    ncol = 1
    while True:
        legend = fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                            fontsize=LEGEND_FONT, ncol=ncol, frameon=False)
        if _height_in(fig, legend) <= 0.95 * height_in or ncol >= len(handles):
            return legend
        legend.remove()
        ncol = math.ceil(ncol * 1.5)


def _width_in(fig, artist) -> float:
    return artist.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi


def _height_in(fig, artist) -> float:
    return artist.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi


def unique_handles(axes) -> list:
    """Legend handles of every axes, one per label, first seen wins."""
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    return list(seen.values())
