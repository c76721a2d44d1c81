"""The reports' fixtures are results files the harness could have written:
valid by harness/schema/results.schema.json itself, and read by the one
loader, so a report test never leans on a file the real tools would refuse."""

from __future__ import annotations

import jsonschema
import pytest

from reference.python.results_file import ResultsError, load_results, load_schema
from reports.tests.sample_results import (A100_CEILINGS, CPU_CEILINGS, add_grad_health, add_utilisation,
                                          make_results, smoke_like, write_results)

SAMPLES = {
    "default": make_results,
    "cpu, no ddp": lambda: make_results(gpu=None, ddp=False, negative_controls=False),
    "with ceilings and gradient health": lambda: add_grad_health(add_utilisation(make_results(), A100_CEILINGS)),
    "achieved FLOP/s without ceilings": lambda: add_utilisation(make_results(), ceilings=None),
    "cpu ceilings": lambda: add_utilisation(make_results(), CPU_CEILINGS),
    "smoke-sized": smoke_like,
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_sample_is_valid_by_the_schema_and_loads(tmp_path, name):
    doc = SAMPLES[name]()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    results = load_results(write_results(tmp_path / "r.json", doc))
    assert [c.id for c in results.cases] == [c["id"] for c in doc["cases"]]


def test_any_plain_model_name_loads_and_a_path_like_one_is_refused(tmp_path):
    # A model given by file (docs/your-model.md) may have any plain name.
    path = write_results(tmp_path / "grown.json", smoke_like(grown=True))
    assert len(load_results(path).cases) > 700
    doc = make_results()
    doc["cases"][0]["model"] = "../escape"
    with pytest.raises(ResultsError, match=r"\.model .*does not match"):
        load_results(write_results(tmp_path / "bad.json", doc))


