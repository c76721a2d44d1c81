"""What a CPU run's half-precision speedups rest on: whether its kernels
multiply fp16 and bf16 in hardware (AVX512-FP16, AVX512-BF16, AMX) or
convert to float32 and back in software, which makes a speedup below 1 the
CPU's doing, not AMP's (docs/build-times.md, "The smoke suite per CPU
kind")."""

from __future__ import annotations

from .runs import machine

# The kernel levels at which no half-precision instruction is used, however
# many the CPU has (ATEN_CPU_CAPABILITY lowers ATen's to one of these).
_CAPPED = ("AVX2", "DEFAULT", "AVX", "SSE")
_NATIVE = {"bf16": ("avx512_bf16", "amx_bf16"), "fp16": ("avx512_fp16", "amx_fp16")}


def half_precision_note(env: dict) -> str | None:
    """One sentence for a CPU run's throughput section; None on CUDA or for
    a file from before the CPU's features were recorded."""
    features = env.get("cpu_features")
    if env.get("device") == "cuda" or not isinstance(features, list):
        return None
    capped = str(env.get("cpu_capability", "")).upper() in _CAPPED
    native = {dtype: [f for f in flags if f in features] for dtype, flags in _NATIVE.items()}
    parts, emulated = [], []
    for dtype in ("bf16", "fp16"):
        if native[dtype] and not capped:
            parts.append(f"{dtype} arithmetic runs in hardware ({', '.join(native[dtype])})")
            continue
        emulated.append(dtype)
        if native[dtype]:
            parts.append(f"{dtype} is converted to float32 and back: the kernels are held to "
                         f"{env.get('cpu_capability')}, below the CPU's {', '.join(native[dtype])}")
        else:
            parts.append(f"{dtype} is converted to float32 and back (no {' or '.join(_NATIVE[dtype])})")
    # Apex O2 and O3 compute in fp16 too.
    tail = (f". A speedup below 1 in {' or '.join(emulated)}{' (and O2, O3)' if 'fp16' in emulated else ''} "
            "is then expected of this CPU, not a sign of a fault in AMP" if emulated else "")
    return f"On this CPU, {machine(env)}: " + "; ".join(parts) + tail + "."
