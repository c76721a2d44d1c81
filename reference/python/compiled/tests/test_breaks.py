"""Graph breaks, recompilations and the fullgraph probe are results: a model
made to break shows the break and its reason, runs partly eager and fails
the fullgraph probe; a model made to recompile every call is stopped at the
recompile limit with a reason naming it, not left to run (or hang)."""

from __future__ import annotations

import pytest
import torch

from reference.python import models as M
from reference.python.compiled.options import RECOMPILE_LIMIT

from . import dumps
from .helpers import one_thread, run_module


class BreakingMlp(M.Mlp):
    """The mlp with a data-dependent branch on a Python number (.item()):
    Dynamo cannot trace it into the graph.  The branch is never taken."""

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if h.sum().item() > 1e30:
            h = h * 0
        return self.head(torch.relu(self.fc2(h)))


class RecompilingMlp(M.Mlp):
    """Each call sets a new string attribute before the compiled forward,
    which reads it: every call fails the guard on its value."""

    def __init__(self, sizes):
        super().__init__(sizes)
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        self.tag = f"call {self.calls}"
        return super().__call__(x)

    def forward(self, x):
        out = super().forward(x)
        return out * 2 if self.tag == "never" else out


def _dump(tmp_path, family, monkeypatch, **kw):
    monkeypatch.setitem(M.FAMILIES, "mlp", family)
    with one_thread():
        return dumps.make(tmp_path, dumps.spec("mlp", "fp32", **kw))


def test_a_graph_break_is_recorded_with_its_reason(tmp_path, monkeypatch, capsys):
    case = _dump(tmp_path, BreakingMlp, monkeypatch, steps=2)
    rc, rec, err = run_module(capsys, case, tmp_path / "r.json")
    assert rc == 0, err
    c = rec["compile"]
    assert c["graph_break_count"] >= 1 and c["graphs"] >= 2 and c["ran_eager"] is True, c
    assert any("item" in (b["reason"] + b["detail"]).lower() for b in c["graph_breaks"]), c["graph_breaks"]
    # fullgraph=True captures the .item() and then fails on the branch it feeds.
    assert c["fullgraph"]["ok"] is False and "data-dependent" in c["fullgraph"]["reason"], c["fullgraph"]
    # The frame resumed after the break guards on the .item() value, which the
    # next step changes: one recompilation (then Dynamo makes it dynamic).
    assert c["recompiles"] >= 1


def test_a_plain_multi_case_has_no_break_and_no_recompile(tmp_path, monkeypatch, capsys):
    """Two models compile the same nn.Module code: the second is not a
    recompilation of the first."""
    case = _dump(tmp_path, M.Mlp, monkeypatch, workload="multi", steps=2)
    rc, rec, err = run_module(capsys, case, tmp_path / "r.json", "--no-fullgraph-check")
    assert rc == 0, err
    c = rec["compile"]
    assert (c["graph_break_count"], c["recompiles"], c["ran_eager"]) == (0, 0, False), c
    assert [len(row) for row in rec["optimizer_skipped"]] == [2, 2]


def test_a_recompile_storm_is_a_case_error_naming_the_limit(tmp_path, monkeypatch, capsys):
    case = _dump(tmp_path, RecompilingMlp, monkeypatch, steps=RECOMPILE_LIMIT + 3)
    rc, rec, err = run_module(capsys, case, tmp_path / "r.json", "--no-fullgraph-check")
    assert rc == 1 and rec is None, err
    line = err.strip().splitlines()[-1]
    assert "recompile storm" in line and "recompile_limit" in line and f"({RECOMPILE_LIMIT})" in line, line
    assert "Traceback" not in err
