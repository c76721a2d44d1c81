"""The environment block of `python -m reference.python.bench`'s results: the
keys of harness/env/env_fingerprint.cpp's to_json, filled from this Python,
so a report or gate reads both implementations' files alike.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from pathlib import Path

import torch

from .suite import REPO_ROOT


def _capture(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _build_switch_on(config: str, key: str) -> bool:
    pos = config.find(key + "=")
    if pos < 0:
        return False
    value = config[pos + len(key) + 1:pos + len(key) + 4]
    return value.startswith("ON") or value.startswith("1")


def _first_processor() -> dict[str, str]:
    """The first processor's block of /proc/cpuinfo, key -> value."""
    fields: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return fields
    for line in text.splitlines():
        if not line.strip() and fields:
            break
        key, colon, value = line.partition(":")
        if colon:
            fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_id_of(fields: dict[str, str]) -> str:
    """env_fingerprint.cpp's cpu_id_of: the generation a hypervisor's model
    name may hide ("AMD EPYC" for Zen 4 and Zen 5 alike)."""
    if all(fields.get(k) for k in ("vendor_id", "cpu family", "model")):
        return f"{fields['vendor_id']} family {fields['cpu family']} model {fields['model']}"
    if fields.get("CPU implementer") and fields.get("CPU part"):
        return f"arm implementer {fields['CPU implementer']} part {fields['CPU part']}"
    return "none"


# env_fingerprint.cpp's cpu_features_of and cpu_kind_of.
_HALF_PRECISION_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_fp16")


def cpu_kind_of(features: list[str]) -> str:
    for flag, kind in (("amx_bf16", "amx"), ("avx512_bf16", "avx512_bf16"), ("avx512f", "avx512"), ("avx2", "avx2")):
        if flag in features:
            return kind
    return "other"


def _cpu_fields() -> dict:
    fields = _first_processor()
    present = set(fields.get("flags", "").split())
    features = [f for f in _HALF_PRECISION_FLAGS if f in present]
    return {"cpu_model": fields.get("model name") or "none", "cpu_id": cpu_id_of(fields),
            "cpu_features": features, "cpu_kind": cpu_kind_of(features),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA", "")}


def environment() -> dict:
    config = torch.__config__.show()
    gloo, nccl = _build_switch_on(config, "USE_GLOO"), _build_switch_on(config, "USE_NCCL")
    u = os.uname()
    env = {
        "host": socket.gethostname() or "none",
        "os": f"{u.sysname} {u.release} {u.machine}",
        **_cpu_fields(),
        "cpu_cores": os.cpu_count() or 0,
        "device": "cpu", "gpu_name": "none", "gpu_count": 0, "compute_capability": "none",
        "driver": "none", "cuda_runtime": "none", "cudnn": "none", "nccl": "none",
        "libtorch_version": torch.__version__.split("+")[0],
        "torch_build": {"cuda": _build_switch_on(config, "USE_CUDA"),
                        "distributed": gloo or nccl or _build_switch_on(config, "USE_DISTRIBUTED"),
                        "gloo": gloo, "nccl": nccl},
        "compiler": f"{platform.python_implementation()} {platform.python_version()}",
        "git_commit": "none", "git_dirty": False,
        "implementation": "python",
        "python_version": platform.python_version(),
        "torch_num_threads": torch.get_num_threads(),
    }
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability(0)
        env.update({"device": "cuda", "gpu_count": torch.cuda.device_count(),
                    "gpu_name": torch.cuda.get_device_name(0), "compute_capability": f"{major}.{minor}",
                    "cuda_runtime": torch.version.cuda or "none"})
        v = torch.backends.cudnn.version()
        if v:
            env["cudnn"] = f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
        try:
            env["nccl"] = ".".join(str(x) for x in torch.cuda.nccl.version())
        except Exception:  # noqa: BLE001
            pass
        smi = _capture(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"])
        if smi:
            env["driver"] = smi
    commit = _capture(["git", "-C", str(REPO_ROOT), "rev-parse", "--verify", "-q", "HEAD"])
    if commit:
        env["git_commit"] = commit
        env["git_dirty"] = bool(_capture(["git", "-C", str(REPO_ROOT), "status", "--porcelain",
                                          "--untracked-files=no"]))
    return env
