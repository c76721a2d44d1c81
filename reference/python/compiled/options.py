"""What one compiled run is asked to do (the command line, parsed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# torch.compile's modes that ampbench runs ("max-autotune" would add CUDA
# graphs, which the case's dynamic scaler state defeats; reduce-overhead is
# CUDA graphs themselves, which Inductor only applies on CUDA).
MODES = ("default", "max-autotune-no-cudagraphs", "reduce-overhead")
# Test-only faults (fault.py).
FAULTS = ("drop_autocast_cast",)
# Recompilations of one code object before the run is stopped as a storm.
RECOMPILE_LIMIT = 8
DEFAULT_TIMEOUT_S = 1800


@dataclass
class Options:
    mode: str = "default"
    compile_step: bool = False
    emulate_precision_casts: bool = False
    fault: str | None = None
    eager: bool = False           # the same path without compiling (the control)
    throughput_steps: int = 0     # 0: no throughput
    throughput_repetitions: int = 3
    throughput_warmup: int = 1
    cache_dir: Path | None = None  # None: <dump>/compiled-cache
    reuse_cache: bool = False      # keep what the cache holds: the "cold" compile is then not cold
    device: str | None = None     # None: the case's device
    threads: int = 0              # 0: LibTorch's default
    timeout_s: float = DEFAULT_TIMEOUT_S
    fullgraph_check: bool = True

    @property
    def record_mode(self) -> str:
        """The record's "mode": "eager" for the control, else the compile mode."""
        return "eager" if self.eager else self.mode
