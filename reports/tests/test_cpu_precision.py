"""The throughput section says which half precisions a CPU run's kernels
computed in hardware and which they converted in software."""

from __future__ import annotations

from reports.cpu_precision import half_precision_note
from reports.document import build_document
from reports.runs import load_runs
from reports.tests.sample_results import make_results, write_results

ZEN5 = {"device": "cpu", "cpu_model": "AMD EPYC", "cpu_id": "AuthenticAMD family 26 model 2",
        "cpu_features": ["avx2", "avx512f", "avx512_bf16"], "cpu_capability": "AVX512"}


def test_bf16_in_hardware_and_fp16_converted_on_an_avx512_bf16_cpu():
    note = half_precision_note(ZEN5)
    assert "bf16 arithmetic runs in hardware (avx512_bf16)" in note
    assert "fp16 is converted to float32 and back (no avx512_fp16 or amx_fp16)" in note
    assert "below 1 in fp16 (and O2, O3) is then expected" in note and "in bf16 or" not in note


def test_kernels_held_to_avx2_convert_both_whatever_the_cpu_has():
    note = half_precision_note(dict(ZEN5, cpu_capability="AVX2"))
    assert "bf16 is converted to float32 and back: the kernels are held to AVX2, below the CPU's avx512_bf16" in note
    assert "below 1 in bf16 or fp16" in note


def test_a_cpu_with_both_in_hardware_expects_nothing_of_itself():
    note = half_precision_note(dict(ZEN5, cpu_features=["avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16"]))
    assert "fp16 arithmetic runs in hardware (avx512_fp16)" in note and "expected" not in note


def test_no_note_on_cuda_or_without_the_features():
    assert half_precision_note(dict(ZEN5, device="cuda")) is None
    assert half_precision_note({k: v for k, v in ZEN5.items() if k != "cpu_features"}) is None


def test_the_note_opens_a_cpu_runs_throughput_section(tmp_path):
    doc = make_results(gpu=None)
    doc["env"].update(ZEN5)
    runs = load_runs([write_results(tmp_path / "r.json", doc)])
    text = repr(build_document(runs, []))
    assert "fp16 is converted to float32 and back" in text
