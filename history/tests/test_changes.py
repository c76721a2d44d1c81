"""Change points: the injected slowdown is found at run 12 and nowhere else,
on both stores; a history without it has none; the false-alarm measurement
measures."""

from __future__ import annotations

import numpy as np
import pytest

from history.changepoints import Settings, detect, false_alarm_rate
from history.changes import all_changes
from history.cli import main
from history.series import Metric
from history.store import open_store
from history.tests.conftest import SLOW_FROM, ingest
from history.tests.derive import derive_history


def test_change_point_at_run_12_and_nowhere_else(loaded, capsys):
    with open_store(loaded) as store:
        series, changes = all_changes(store)
        runs = store.runs()
    assert len(series) == 2
    assert sorted((c.key.case_id, c.metric, c.position) for c in changes) == [
        ("plain/mlp/bf16/sgd", Metric.THROUGHPUT, SLOW_FROM), ("plain/mlp/fp32/sgd", Metric.THROUGHPUT, SLOW_FROM)]
    for change in changes:
        assert change.regression and change.rehearsal
        assert change.before.run_id == runs[SLOW_FROM - 2].run_id and change.after.run_id == runs[SLOW_FROM - 1].run_id
        # --inject-slowdown 0.2 divides throughput by 1.2: -16.7%, within the derived noise
        assert -0.21 < change.relative < -0.13
    assert main(["changes", "--db", loaded]) == 0
    out = capsys.readouterr().out
    assert out.count("regression throughput") == 2 and out.count("[REHEARSAL: injected fault]") == 2
    assert "at run 12 of the series, between" in out and "commit " in out and "torch " in out


def test_a_history_without_the_slowdown_has_no_change_point(real_run, tmp_path):
    paths = derive_history(real_run, tmp_path / "flat", slowdown=0.0)
    db = str(tmp_path / "flat.db")
    assert ingest(db, paths, "--rehearsal") == 0  # slowdown 0 still carries the marker
    with open_store(db) as store:
        assert all_changes(store)[1] == []


def test_detect_finds_steps_in_either_direction_and_is_seeded():
    rng = np.random.default_rng(0)
    series = list(100 + rng.normal(0, 1, 30))
    up = series[:10] + [v + 8 for v in series[10:]]
    assert [c.index for c in detect(up)] == [10]
    two = series[:10] + [v - 8 for v in series[10:20]] + series[20:]
    assert [c.index for c in detect(two)] == [10, 20]
    assert detect(two) == detect(two)
    assert detect(series) == []


def test_detect_refuses_non_finite_values():
    with pytest.raises(ValueError, match="non-finite"):
        detect([1.0, 2.0, float("nan"), 1.0, 2.0, 3.0])


def test_false_alarm_rate_is_measured():
    # Noise only: at significance 0.01 alarms are rare (docs/history.md: 0.2% over 1000 series of 20 runs).
    assert false_alarm_rate(20, 60) <= 0.05
    # The measurement has teeth: a loose level raises the rate it reports.
    assert false_alarm_rate(20, 60, settings=Settings(significance=0.5, permutations=19)) >= 0.2
