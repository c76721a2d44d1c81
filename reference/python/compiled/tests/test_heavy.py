"""Heavier (a transformer compiles for tens of seconds on two busy cores):
run with AMPBENCH_COMPILED_HEAVY=1.  Where Inductor does fuse low-precision
pointwise chains (the transformer's attention and LayerNorm), compiled bf16
differs from eager bf16, by far less than the fault does, and
emulate_precision_casts brings it closer to eager."""

from __future__ import annotations

import os

import pytest

from . import dumps
from .helpers import floats, one_thread, rel_l2, run_module

pytestmark = pytest.mark.skipif(os.environ.get("AMPBENCH_COMPILED_HEAVY") != "1",
                                reason="heavy: set AMPBENCH_COMPILED_HEAVY=1 (a transformer compile, ~1-2 min)")


def test_compiled_bf16_transformer_differs_from_eager_far_less_than_the_fault(tmp_path, capsys):
    with one_thread():
        case = dumps.make(tmp_path, dumps.spec("transformer", "bf16", steps=4))
    got = {}
    for name, flags in {"eager": ("--eager",), "compiled": (), "emulated": ("--emulate-precision-casts",),
                        "fault": ("--fault", "drop_autocast_cast")}.items():
        rc, rec, err = run_module(capsys, case, tmp_path / f"{name}.json", "--no-fullgraph-check", *flags)
        assert rc == 0, err
        got[name] = floats(rec["final_params"])
    origin = floats(rec["initial_params"])
    d = {k: rel_l2(v, got["eager"], origin) for k, v in got.items() if k != "eager"}
    assert 0 < d["compiled"] < 0.05 and d["fault"] > 0.5 and d["fault"] > 20 * d["compiled"], d
    assert d["emulated"] <= d["compiled"], d
