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


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and ":" in line:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "none"


def environment() -> dict:
    config = torch.__config__.show()
    gloo, nccl = _build_switch_on(config, "USE_GLOO"), _build_switch_on(config, "USE_NCCL")
    u = os.uname()
    env = {
        "host": socket.gethostname() or "none",
        "os": f"{u.sysname} {u.release} {u.machine}",
        "cpu_model": _cpu_model(),
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
