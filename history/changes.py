"""Change points of a whole history: every series (case x machine kind x
torch x implementation), over throughput and over the distance to the
bound, each change named by the runs (commits, torch versions) between which
it happened and by the medians of the segments on either side."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .changepoints import Settings, detect
from .series import Metric, Series, SeriesKey, build_series
from .store import RunRecord, Store


@dataclass(frozen=True)
class Change:
    key: SeriesKey
    metric: str
    position: int         # 1-based place of the first run after the change among the series' points
    before: RunRecord     # the last run before the change
    after: RunRecord      # the first run after it
    median_before: float  # of the segment before, and after
    median_after: float
    p_value: float

    @property
    def relative(self) -> float:
        return self.median_after / self.median_before - 1 if self.median_before else float("inf")

    @property
    def regression(self) -> bool:
        worse_up = Metric.worse_when_higher(self.metric)
        return self.median_after > self.median_before if worse_up else self.median_after < self.median_before

    @property
    def rehearsal(self) -> bool:
        return bool(self.before.rehearsal or self.after.rehearsal)

    def line(self) -> str:
        kind = "regression" if self.regression else "improvement"
        mark = " [REHEARSAL: injected fault]" if self.rehearsal else ""
        b, a = self.before, self.after
        return (f"{kind} {self.metric} {self.key.label()}: {self.median_before:.6g} -> {self.median_after:.6g} "
                f"({self.relative:+.1%}, p={self.p_value:.3g}) at run {self.position} of the series, between "
                f"{b.run_id} (commit {b.git_commit[:12]}, torch {b.torch}, {b.started_utc}) and {a.run_id} "
                f"(commit {a.git_commit[:12]}, torch {a.torch}, {a.started_utc}){mark}")


def series_changes(series: Series, metric: str, settings: Settings = Settings()) -> list[Change]:
    points = series.values(metric)
    values = [v for _, v in points]
    found = detect(values, settings)
    edges = [0] + [c.index for c in found] + [len(values)]
    out = []
    for i, cp in enumerate(found):
        before = values[edges[i]:cp.index]
        after = values[cp.index:edges[i + 2]]
        out.append(Change(series.key, metric, cp.index + 1, points[cp.index - 1][0].run, points[cp.index][0].run,
                          statistics.median(before), statistics.median(after), cp.p_value))
    return out


def all_changes(store: Store, settings: Settings = Settings()) -> tuple[list[Series], list[Change]]:
    series = build_series(store.runs(), store.cases())
    changes = [c for s in series for metric in Metric.ALL for c in series_changes(s, metric, settings)]
    return series, changes
