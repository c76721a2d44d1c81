"""inject_inf_optimizer: at inject_inf_step the inf lands in the
first gradient of THAT optimizer's parameters (multi: 1 is the second
model's first parameter); single-optimizer workloads only have 0."""

from __future__ import annotations

import io
import json
import math
import re
import shutil

import pytest
import torch

from reference.python.bench import SyntheticData, fresh_state
from reference.python.check import check
from reference.python.spec import Spec, SpecError, spec_from_dump
from reference.python.suite import SuiteError, parse_suite
from reference.python.tests.dumpmaker import folder_name, spec_json, write_dump
from reference.python.workloads import STEPS, inject_inf_if_due

TINY = {"batch": 8, "in_features": 8, "hidden": 8, "classes": 4, "channels": 4, "image": 8, "seq": 4,
        "d_model": 8, "heads": 2, "ffn": 8}


def multi_spec(precision="fp16", optimizer_index=1) -> Spec:
    # init_scale 128: the default 65536 overflows multi's first steps on its
    # own, which would hide where the injected inf went.
    return Spec(id=f"multi/mlp/{precision}/sgd@inject{optimizer_index}", workload="multi", model="mlp",
                precision=precision, optimizer="sgd", scaler_enabled=precision == "fp16", steps=4,
                sizes=dict(TINY), inject_inf_step=1, inject_inf_optimizer=optimizer_index,
                scaler={"init_scale": 128.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 100})


def test_the_inf_lands_in_the_chosen_optimizers_first_gradient():
    s = fresh_state(multi_spec(), torch.device("cpu"))
    for m in s.models:
        for p in m.parameters():
            p.grad = torch.zeros_like(p)
    s.step_index = 1
    assert inject_inf_if_due(s)
    first0, first1 = (next(iter(m.parameters())) for m in s.models)
    assert not torch.isinf(first0.grad).any()
    assert first1.grad.view(-1)[0].item() == math.inf and torch.isinf(first1.grad).sum() == 1


@pytest.mark.parametrize("index,taken", [(0, [0, 1]), (1, [1, 0])])
def test_only_the_poisoned_optimizer_skips(index, taken):
    """fp16 with a scaler (found_inf is per optimizer) and fp32 without one
    (the step of the poisoned optimizer is skipped as a scaler would)."""
    for precision in ("fp16", "fp32"):
        spec = multi_spec(precision, index)
        s = fresh_state(spec, torch.device("cpu"))
        data = SyntheticData(spec, torch.device("cpu"))
        s.step_index = 1
        out = STEPS["multi"](s, [data.host_to_device(0)])
        assert out.skipped and s.steps_taken == taken, (precision, s.steps_taken)


def test_spec_from_dump_reads_it_and_defaults_to_0():
    obj = spec_json(multi_spec())
    assert spec_from_dump(obj).inject_inf_optimizer == 1
    del obj["inject_inf_optimizer"]  # a dump from before the setting existed
    assert spec_from_dump(obj).inject_inf_optimizer == 0
    plain = spec_json(Spec(id="p", workload="plain", model="mlp", precision="fp16", optimizer="sgd"))
    plain["inject_inf_optimizer"] = 1
    with pytest.raises(SpecError, match="inject_inf_optimizer 1: the plain workload has 1 optimizer"):
        spec_from_dump(plain)
    obj["inject_inf_optimizer"] = True
    with pytest.raises(SpecError, match="expected an integer"):
        spec_from_dump(obj)


def test_replay_injects_where_the_dump_says(tmp_path):
    write_dump(tmp_path, multi_spec())
    out = io.StringIO()
    assert check(tmp_path, out=out, err=out) == 0, out.getvalue()
    assert "skipped [1]" in out.getvalue()
    # The same dump replayed with the inf in optimizer 0 parts at step 1.
    bad = tmp_path / "bad"
    shutil.copytree(tmp_path / folder_name(multi_spec().id), bad)
    meta = json.loads((bad / "case.json").read_text())
    meta["spec"]["inject_inf_optimizer"] = 0
    (bad / "case.json").write_text(json.dumps(meta))
    out = io.StringIO()
    assert check(bad, out=out, err=out) == 1, out.getvalue()
    assert "step final (after step 3): model0." in out.getvalue()


SUITE = {"name": "t", "models": {"mlp": {"batch": 8}},
         "matrix": {"workloads": ["multi"], "models": ["mlp"], "precisions": ["fp16"], "optimizers": ["sgd"]}}


def parse(suite: dict):
    return parse_suite(json.dumps(suite), "t.json", "cpu")


def test_suite_reads_it_from_cases():
    suite = dict(SUITE, cases=[{"workload": "multi", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
                                "tag": "second", "inject_inf_step": 2, "inject_inf_optimizer": 1}])
    by_id = {c.id: c for c in parse(suite).cases}
    assert by_id["multi/mlp/fp16/sgd"].inject_inf_optimizer == 0
    assert by_id["multi/mlp/fp16/sgd@second"].inject_inf_optimizer == 1


@pytest.mark.parametrize("node,message", [
    ({"defaults": {"inject_inf_step": 2, "inject_inf_optimizer": 1}},
     "defaults.inject_inf_optimizer: a per-case setting (not allowed in defaults)"),
    ({"cases": [{"workload": "multi", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "tag": "x",
                 "inject_inf_step": 2, "inject_inf_optimizer": 2}]},
     "t.json: cases[0].inject_inf_optimizer: must be an optimizer index below 2 (the multi workload has 2), got 2"),
    ({"cases": [{"workload": "multi", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "tag": "x",
                 "inject_inf_optimizer": 1}]},
     "cases[0].inject_inf_optimizer: needs an \"inject_inf_step\""),
    ({"cases": [{"workload": "plain", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "tag": "x",
                 "inject_inf_optimizer": -1}]},
     "cases[0].inject_inf_optimizer: must be an optimizer index below 1"),
    ({"cases": [{"workload": "multi", "model": "mlp", "precision": "fp16", "optimizer": "sgd",
                 "inject_inf_optimizer": 1}]},
     "a case that overrides settings needs a \"tag\""),
    ({"cases": [{"workload": "multi", "model": "mlp", "precision": "fp16", "optimizer": "sgd", "tag": "x",
                 "inject_inf_optimizer": "1"}]}, "cases[0].inject_inf_optimizer: expected an integer"),
])
def test_suite_rejects_what_the_cpp_loader_rejects(node, message):
    with pytest.raises(SuiteError, match=re.escape(message)):
        parse(dict(SUITE, **node))
