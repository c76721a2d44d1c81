"""Is a figure legible?  Measured on the figure itself, not by eye.

Two rules every report figure must meet, at any number of cases:
- no two visible text artists (titles, tick labels, annotations, legend
  entries) have overlapping bounding boxes, and every one lies inside the
  figure (a clipped label is as unreadable as a covered one);
- every legend sits outside all data areas, or inside one where it covers
  no data (no line, bar, marker, band or annotation under its frame).

Matplotlib knows every artist's extent once the figure is laid out, so the
check is exact for what the PNG shows.  The tests run it on every figure of
a report; it is also handy on real results:
`python -c "from reports.figures.legibility import check_results as c; print(c(['r.json']))"`.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from matplotlib.collections import Collection, PathCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text


def problems(fig) -> list:
    """Human-readable list of every legibility violation; [] when legible."""
    fig.draw_without_rendering()  # tick labels and layout exist only after a draw
    renderer = fig.canvas.get_renderer()
    texts = _visible_texts(fig, renderer)
    found = _outside_figure(fig, texts) + _overlapping(texts)
    for legend in _legends(fig):
        found += _legend_problems(fig, legend, renderer, texts)
    return found


def _visible_texts(fig, renderer) -> list:
    drawn_ticks = _drawn_tick_labels(fig)
    found = []
    for text in fig.findobj(Text):
        if not text.get_text().strip() or not text.get_visible():
            continue
        if text.axes is not None and not text.axes.get_visible():
            continue
        if id(text) in drawn_ticks["all"] and id(text) not in drawn_ticks["drawn"]:
            continue
        box = text.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            found.append((text, box))
    return found


def _drawn_tick_labels(fig) -> dict:
    """Ids of all tick labels, and of those drawn: a tick outside the view
    limits keeps a visible label object that is never drawn."""
    every, drawn = set(), set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                every |= {id(tick.label1), id(tick.label2)}
            for tick in axis._update_ticks():  # the ticks Axis.draw draws
                drawn |= {id(tick.label1), id(tick.label2)}
    return {"all": every, "drawn": drawn}


def _outside_figure(fig, texts) -> list:
    width, height = fig.bbox.width, fig.bbox.height
    slack = 1.0  # antialiasing: a glyph edge on the last pixel row is still drawn
    return [f"text {t.get_text()!r} extends outside the figure"
            for t, b in texts
            if b.x0 < -slack or b.y0 < -slack or b.x1 > width + slack or b.y1 > height + slack]


def _overlapping(texts) -> list:
    if len(texts) < 2:
        return []
    boxes = np.array([[b.x0, b.y0, b.x1, b.y1] for _, b in texts])
    found = []
    for i in range(len(texts) - 1):
        rest = boxes[i + 1:]
        hit = ((rest[:, 0] < boxes[i, 2]) & (boxes[i, 0] < rest[:, 2])
               & (rest[:, 1] < boxes[i, 3]) & (boxes[i, 1] < rest[:, 3]))
        for j in np.flatnonzero(hit):
            found.append(f"text {texts[i][0].get_text()!r} overlaps {texts[i + 1 + j][0].get_text()!r}")
    return found


def _legends(fig) -> list:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [leg for leg in legends if leg.get_visible()]


def _legend_problems(fig, legend, renderer, texts) -> list:
    frame = legend.get_window_extent(renderer)
    name = f"legend {[t.get_text() for t in legend.get_texts()][:3]}"
    own = {id(t) for t in legend.findobj(Text)}
    found = [f"{name} covers text {t.get_text()!r}" for t, b in texts
             if id(t) not in own and frame.overlaps(b)]
    for ax in fig.axes:
        if not ax.get_visible() or not frame.overlaps(ax.bbox):
            continue
        covered = _covered_data(ax, frame, renderer)
        if covered:
            found.append(f"{name} covers data of axes {ax.get_title()!r}: {covered}")
    return found


def _covered_data(ax, frame, renderer):
    """The first data artist of ax under the legend frame, described; else None."""
    for line in ax.lines:
        if line.get_visible() and _line_hits(line, frame):
            return f"line {line.get_label()!r}"
    for patch in ax.patches:
        if patch.get_visible() and isinstance(patch, Patch) and patch.get_window_extent(renderer).overlaps(frame):
            return "bar"
    for coll in ax.collections:
        if coll.get_visible() and _collection_hits(coll, frame):
            return "markers or band"
    return None


def _line_hits(line: Line2D, frame) -> bool:
    path = line.get_transform().transform_path(line.get_path())
    vertices = path.vertices[np.all(np.isfinite(path.vertices), axis=1)]
    if not len(vertices):
        return False
    if line.get_marker() not in (None, "None", "", " ") and _points_in(vertices, frame):
        return True
    return bool(line.get_linestyle() not in ("None", "", " ") and path.intersects_bbox(frame, filled=False))


def _collection_hits(coll: Collection, frame) -> bool:
    if isinstance(coll, PathCollection):  # scatter: the markers sit at the offsets
        points = coll.get_offset_transform().transform(coll.get_offsets())
        return _points_in(points, frame)
    transform = coll.get_transform()
    return any(transform.transform_path(p).intersects_bbox(frame, filled=True) for p in coll.get_paths())


def _points_in(points, frame) -> bool:
    points = np.asarray(points, dtype=float)
    inside = ((points[:, 0] >= frame.x0) & (points[:, 0] <= frame.x1)
              & (points[:, 1] >= frame.y0) & (points[:, 1] <= frame.y1))
    return bool(inside.any())


def check_results(paths, cross_file_only: bool = False, jobs: int | None = None) -> dict:
    """{figure name: problems} for every figure a report of `paths` draws
    (cross_file_only: just the figures spanning several files).  Figures are
    drawn in worker processes, as the report does."""
    from ..runs import load_runs
    from . import _worker_count, comparison_jobs, run_jobs
    runs = load_runs(paths)
    plan = comparison_jobs(runs) + ([] if cross_file_only else [j for r in runs for j in run_jobs(r)])
    workers = _worker_count(jobs, len(plan))
    if workers <= 1:
        found = [_check_job(job) for job in plan]
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            found = list(pool.map(_check_job, plan))
    return dict(item for item in found if item is not None)


def _check_job(job):
    fig = job.draw(*job.args)
    return None if fig is None else (job.spec.name, problems(fig))
