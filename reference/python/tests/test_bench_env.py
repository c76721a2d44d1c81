"""The Python implementation's environment block against the C++ one: the
same CPU identity, read the same way (harness/env/env_fingerprint.cpp)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from reference.python.bench_env import cpu_id_of, cpu_kind_of, environment

BINARY = os.environ.get("AMPBENCH_BINARY", "")


def test_generations_of_one_name_are_told_apart():
    zen4 = {"vendor_id": "AuthenticAMD", "cpu family": "25", "model": "17", "model name": "AMD EPYC"}
    zen5 = dict(zen4, **{"cpu family": "26", "model": "2"})
    assert cpu_id_of(zen4) == "AuthenticAMD family 25 model 17"
    assert cpu_id_of(zen5) == "AuthenticAMD family 26 model 2"
    assert cpu_id_of({"CPU implementer": "0x41", "CPU part": "0xd40"}) == "arm implementer 0x41 part 0xd40"
    assert cpu_id_of({"model name": "AMD EPYC"}) == "none"


def test_cpu_kind_names_native_half_precision_first():
    assert cpu_kind_of(["avx2", "avx512f", "avx512_bf16", "amx_bf16"]) == "amx"
    assert cpu_kind_of(["avx2", "avx512f", "avx512_bf16"]) == "avx512_bf16"
    assert cpu_kind_of(["avx2", "avx512f"]) == "avx512"
    assert cpu_kind_of(["avx2"]) == "avx2"
    assert cpu_kind_of([]) == "other"


@pytest.mark.skipif(not BINARY, reason="AMPBENCH_BINARY is not set: no C++ fingerprint to compare with")
def test_cpu_fields_match_the_cpp_fingerprint():
    cpp = json.loads(subprocess.run([BINARY, "env", "--json"], check=True, capture_output=True, text=True).stdout)
    py = environment()
    for key in ("cpu_model", "cpu_id", "cpu_features", "cpu_kind", "cpu_capability", "onednn_max_cpu_isa"):
        assert py[key] == cpp[key], key
