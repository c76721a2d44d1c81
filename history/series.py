"""What makes runs comparable: a series is one case on one machine kind,
one torch and one implementation. Its points are the runs that carry the
case, oldest first; a point is marked when its run was a rehearsal."""

from __future__ import annotations

from dataclasses import dataclass

from .store import CaseRecord, RunRecord


class Metric:
    """The two quantities a series follows, with the direction that is worse."""
    THROUGHPUT = "throughput"        # the case's median samples/s: lower is worse
    DISTANCE = "distance"            # the case's largest distance / bound: higher is worse

    ALL = (THROUGHPUT, DISTANCE)

    @staticmethod
    def worse_when_higher(metric: str) -> bool:
        return metric == Metric.DISTANCE


@dataclass(frozen=True, order=True)
class SeriesKey:
    case_id: str
    machine: str
    torch: str
    implementation: str

    @staticmethod
    def of(run: RunRecord, case_id: str) -> "SeriesKey":
        return SeriesKey(case_id, run.machine, run.torch, run.implementation)

    def label(self) -> str:
        return f"{self.case_id} · {self.machine} · torch {self.torch} · {self.implementation}"

    def slug(self) -> str:
        """A file name for the series' figure: readable and unique (the hash
        keeps two keys apart that differ only in characters replaced here)."""
        import hashlib
        text = "".join(ch if ch.isalnum() else "-" for ch in f"{self.case_id}_{self.machine}_{self.torch}")
        digest = hashlib.sha256(repr(self).encode()).hexdigest()[:8]
        return f"{text[:80].strip('-')}-{digest}"


@dataclass(frozen=True)
class Point:
    run: RunRecord
    case: CaseRecord

    def value(self, metric: str) -> float | None:
        return self.case.median if metric == Metric.THROUGHPUT else self.case.max_ratio


@dataclass(frozen=True)
class Series:
    key: SeriesKey
    points: tuple[Point, ...]   # oldest first

    def values(self, metric: str) -> list[tuple[Point, float]]:
        return [(p, v) for p in self.points if (v := p.value(metric)) is not None]


def build_series(runs, cases) -> list[Series]:
    """Every series in the history, in key order; `runs` oldest first."""
    order = {run.run_id: i for i, run in enumerate(runs)}
    by_id = {run.run_id: run for run in runs}
    grouped: dict = {}
    for case in cases:
        run = by_id[case.run_id]
        grouped.setdefault(SeriesKey.of(run, case.case_id), []).append(Point(run, case))
    return [Series(key, tuple(sorted(points, key=lambda p: order[p.run.run_id])))
            for key, points in sorted(grouped.items())]
