"""check --filter selects dumped cases with the run's two forms
(reference/python/case_filter.py against harness/runner/case_filter.h)."""

from __future__ import annotations

import json

import pytest

from reference.python.case_filter import FilterError, is_field_filter, parse_case_filter
from reference.python.check import selected

SPECS = {
    "plain_mlp_fp16_sgd": {"id": "plain/mlp/fp16/sgd", "workload": "plain", "model": "mlp", "precision": "fp16",
                           "optimizer": "sgd", "variant": "correct"},
    "clip_norm_cnn_bf16_sgd": {"id": "clip_norm/cnn/bf16/sgd", "workload": "clip_norm", "model": "cnn",
                               "precision": "bf16", "optimizer": "sgd", "variant": "correct"},
    "clip_value_mlp_fp32_adamw@d128": {"id": "clip_value/mlp/fp32/adamw@d128", "workload": "clip_value",
                                       "model": "mlp", "precision": "fp32", "optimizer": "adamw",
                                       "variant": "correct"},
    "ddp_mlp_fp16_sgd@2ranks": {"id": "ddp/mlp/fp16/sgd@2ranks", "workload": "ddp", "model": "mlp",
                                "precision": "fp16", "optimizer": "sgd", "variant": "correct"},
    "plain_mlp_fp32_sgd@d128_aligned-to_plain_mlp_fp16_sgd@d128": {
        "id": "plain/mlp/fp32/sgd@d128#aligned-to:plain/mlp/fp16/sgd@d128", "workload": "plain", "model": "mlp",
        "precision": "fp32", "optimizer": "sgd", "variant": "correct"},
}


@pytest.fixture()
def dump(tmp_path):
    for name, spec in SPECS.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "case.json").write_text(json.dumps({"spec": spec}))
    (tmp_path / "unreadable").mkdir()
    (tmp_path / "unreadable" / "case.json").write_text("{not json")
    return tmp_path


def names(dump, text):
    return sorted(p.name for p in selected(sorted(p for p in dump.iterdir()), text))


def test_fields_match_the_spec_and_clip_means_both_clips(dump):
    # The unreadable folder is kept by a field filter, for the replay to name.
    assert names(dump, "model=mlp,workload=plain|clip") == [
        "clip_value_mlp_fp32_adamw@d128", "plain_mlp_fp16_sgd",
        "plain_mlp_fp32_sgd@d128_aligned-to_plain_mlp_fp16_sgd@d128", "unreadable"]
    assert names(dump, "workload=clip,precision=bf16") == ["clip_norm_cnn_bf16_sgd", "unreadable"]


def test_the_tag_comes_from_the_id_and_an_aligned_rerun_carries_its_baselines(dump):
    assert names(dump, "tag=d128") == ["clip_value_mlp_fp32_adamw@d128",
                                       "plain_mlp_fp32_sgd@d128_aligned-to_plain_mlp_fp16_sgd@d128", "unreadable"]


def test_anything_else_is_a_regex_on_the_folder_name(dump):
    assert names(dump, "^ddp_") == ["ddp_mlp_fp16_sgd@2ranks"]
    assert names(dump, "model=mlp=x") == []  # not the field form: a regex no folder matches
    assert not is_field_filter("model=mlp,") and is_field_filter("optimizer_impl=loop")


def test_an_unknown_field_or_a_bad_regex_is_refused_with_its_reason():
    with pytest.raises(FilterError, match="unknown field 'modle'"):
        parse_case_filter("modle=mlp")
    with pytest.raises(FilterError, match=r"--filter '\(\['"):
        parse_case_filter("([")
