"""The reports' fixtures are results files the harness could have written:
valid by harness/schema/results.schema.json itself, and read by the one
loader, so a report test never leans on a file the real tools would refuse."""

from __future__ import annotations

import jsonschema
import pytest

from reference.python.results_file import ResultsError, load_results, load_schema
from reports.tests.sample_results import (A100_CEILINGS, CPU_CEILINGS, add_grad_health, add_utilisation,
                                          make_results, schema_with_more_models, smoke_like, write_results)

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


def test_the_grown_suite_needs_its_models_in_the_schema(tmp_path):
    path = write_results(tmp_path / "grown.json", smoke_like(grown=True))
    with pytest.raises(ResultsError, match=r"\.model \(case plain/resnet18/fp32/sgd\): 'resnet18' is not one of"):
        load_results(path)
    with schema_with_more_models():
        assert len(load_results(path).cases) > 700
    with pytest.raises(ResultsError, match="is not one of"):
        load_results(path)
