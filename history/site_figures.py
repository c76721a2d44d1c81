"""The site's trend figure per series: throughput and distance to the bound
over the series' runs, each change point a dashed line with its change, the
segment medians drawn, and rehearsal runs (an injected fault) drawn as red
crosses so that they never pass for measurements."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .series import Metric, Series  # noqa: E402

TITLES = {Metric.THROUGHPUT: "median throughput", Metric.DISTANCE: "distance / bound (max ratio)"}


def _panel(ax, series: Series, metric: str, changes) -> bool:
    points = series.values(metric)
    if not points:
        return False
    position = {p.run.run_id: i + 1 for i, p in enumerate(series.points)}
    xs = [position[p.run.run_id] for p, _ in points]
    ys = [v for _, v in points]
    ax.plot(xs, ys, color="#1f77b4", linewidth=1, zorder=1)
    real = [(x, y) for (p, y), x in zip(points, xs) if not p.run.rehearsal]
    fake = [(x, y) for (p, y), x in zip(points, xs) if p.run.rehearsal]
    if real:
        ax.scatter(*zip(*real), color="#1f77b4", s=18, zorder=2, label="run")
    if fake:
        ax.scatter(*zip(*fake), color="#d62728", marker="x", s=28, zorder=2, label="rehearsal (injected fault)")
    for change in changes:
        x = position[change.after.run_id] - 0.5
        ax.axvline(x, color="#d62728" if change.regression else "#2ca02c", linestyle="--", linewidth=1.2)
        ax.annotate(f"change {change.relative:+.1%}", (x, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(3, -12), textcoords="offset points", fontsize=8)
    unit = next((p.case.unit for p, _ in points if p.case.unit), "") if metric == Metric.THROUGHPUT else ""
    ax.set_ylabel(f"{TITLES[metric]}\n{unit}".strip(), fontsize=9)
    if metric == Metric.DISTANCE:
        ax.axhline(1.0, color="#7f7f7f", linewidth=0.8, linestyle=":", label="bound")
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(alpha=0.3)
    return True


def draw(series: Series, changes, path) -> None:
    """Write the series' figure to `path` (PNG); `changes` of this series."""
    metrics = [m for m in Metric.ALL if series.values(m)]
    fig, axes = plt.subplots(max(1, len(metrics)), 1, figsize=(9, 2.6 * max(1, len(metrics))), sharex=True,
                             squeeze=False)
    for ax, metric in zip(axes[:, 0], metrics):
        _panel(ax, series, metric, [c for c in changes if c.metric == metric])
    axes[-1, 0].set_xlabel("run of the series (oldest first)")
    axes[-1, 0].xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(series.key.label(), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
