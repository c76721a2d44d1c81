"""Shared fixtures: results files on disk and reports built from them once.

Building a report draws real PNGs, so the reports the read-only tests look
at are built once per session instead of once per test.
"""

from __future__ import annotations

import pytest

from reports import build_report
from reports.tests.sample_results import make_results, write_results


@pytest.fixture
def results():
    """A fresh, valid results dict a test may mutate."""
    return make_results()


@pytest.fixture
def results_file(tmp_path, results):
    return write_results(tmp_path / "results.json", results)


@pytest.fixture(scope="session")
def single(tmp_path_factory):
    """(results dict, report folder) for one file."""
    base = tmp_path_factory.mktemp("single")
    doc = make_results()
    build_report([write_results(base / "a100.json", doc)], base / "report")
    return doc, base / "report"


@pytest.fixture(scope="session")
def pair(tmp_path_factory):
    """(two results dicts, report folder) for a two-file comparison."""
    base = tmp_path_factory.mktemp("pair")
    # Small on purpose (drawing dominates test time); run2 has no DDP cases.
    small = {"workloads": ("plain", "clip_norm"), "models": ("mlp",), "negative_controls": False}
    docs = [make_results(**small),
            make_results(**small, gpu="NVIDIA H200", libtorch="2.12.0", speed=2.5, ddp=False)]
    paths = [write_results(base / f"run{i}.json", d) for i, d in enumerate(docs)]
    build_report(paths, base / "report")
    return docs, base / "report"
