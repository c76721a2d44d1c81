"""What must hold before compiling: a case torch.compile can train, a
compiler for Inductor's kernels, and the Inductor/Dynamo settings of the run
(cache folder, precision emulation, recompile limit, the fault pass)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

import torch

from ..spec import Spec, replay_refusal
from .errors import BadInput, NotCompilable
from .options import RECOMPILE_LIMIT, Options


def refusal(spec: Spec) -> None:
    """Raises when the case is not one compiled training can run."""
    if spec.torchscript and not spec.torchscript.get("python"):
        raise BadInput(f"{spec.id}: the model is a TorchScript file ({spec.torchscript.get('path')}), which "
                       "torch.compile cannot compile, and its suite names no Python module it was made from: "
                       "export it again with python -m reference.export, which records it")
    if why := replay_refusal(spec):
        raise NotCompilable(f"{spec.id}: {why}")
    if spec.workload == "penalty":
        raise NotCompilable(f"{spec.id}: the gradient penalty differentiates the gradients "
                            "(create_graph=True), and torch.compile's AOTAutograd does not support "
                            "double backward")


AUTOCAST_PRECISIONS = ("fp16", "bf16", "fp8_tensorwise", "fp8_rowwise", "fp8_delayed")


def fault_refusal(spec: Spec, fault: str | None) -> None:
    """The fault drops autocast's casts: a case without autocast has none."""
    if fault and spec.precision not in AUTOCAST_PRECISIONS:
        raise BadInput(f"--fault {fault} drops autocast casts, and {spec.id} runs {spec.precision} without "
                       f"autocast: give a case of {', '.join(AUTOCAST_PRECISIONS)}")


def require_compiler(device: torch.device) -> None:
    """Inductor's kernels need a C++ compiler (CPU) or Triton (CUDA): refuse
    at load, naming what is missing, rather than fail inside the first step."""
    if device.type == "cuda":
        from torch.utils._triton import has_triton

        if not has_triton():
            raise BadInput("no Triton for Inductor's CUDA kernels: install the triton package that "
                           f"matches torch {torch.__version__}")
        return
    from torch._inductor import config as inductor_config
    from torch._inductor import cpp_builder, exc

    try:
        cpp_builder.get_cpp_compiler()
    except (exc.InvalidCxxCompiler, RuntimeError, OSError) as e:
        tried = [c for c in inductor_config.cpp.cxx if c]
        raise BadInput(f"no C++ compiler for Inductor's CPU kernels: none of {', '.join(tried) or 'g++'} runs "
                       f"(set CXX to a working compiler; {type(e).__name__})") from None


MARKER = ".ampbench-compiled-cache"


def kernel_target() -> str:
    """What Inductor's CPU kernels are compiled for: the vector ISA it picks
    (ATEN_CPU_CAPABILITY caps it) and the torch release.  Inductor's own
    cache keys miss the ISA: kernels cached under ATEN_CPU_CAPABILITY=avx2 and
    loaded by an AVX-512 run (or the other way) gave wrong losses and heap
    corruption with torch 2.15.0 on an AMD EPYC."""
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    return f"isa={pick_vec_isa() or 'none'} torch={torch.__version__}"


def fresh_cache_dir(folder: Path, reuse: bool = False) -> bool:
    """Makes `folder` the FX graph cache, emptied (the compile starts cold)
    unless `reuse`; a reused folder filled for other kernels than this
    process compiles (kernel_target()) is emptied too.  True when the folder
    is reused.  Only a folder this module made (its marker file) or an empty
    one is emptied or reused."""
    folder = Path(folder)
    marker = folder / MARKER
    target = kernel_target()
    if reuse and marker.is_file():
        made_for = next((line for line in marker.read_text().splitlines() if line.startswith("isa=")), None)
        if made_for == target:
            return True
        print(f"compiled: warning: --cache-dir {folder} holds kernels made for "
              f"{made_for or 'an unrecorded target'}, not {target}: emptied, this compile is cold", file=sys.stderr)
        reuse = False
    if folder.exists():
        if not folder.is_dir():
            raise BadInput(f"--cache-dir {folder}: not a directory")
        if any(folder.iterdir()) and not marker.is_file():
            raise BadInput(f"--cache-dir {folder}: not empty and not a cache this module made "
                           f"(no {marker.name}); name an empty or new folder")
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    marker.write_text("the FX graph cache of python -m reference.python.compiled; emptied on each run "
                      f"unless --reuse-cache\n{target}\n")
    return reuse


@contextlib.contextmanager
def inductor_cache_dir(folder: Path):
    """Inductor's caches in `folder` for the block: the variable it reads,
    and its in-memory caches cleared on entry and on exit."""
    from torch._inductor.utils import clear_caches

    previous = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(folder)
    clear_caches()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = previous
        clear_caches()


@contextlib.contextmanager
def inductor_settings(opts: Options, cache_dir: Path, fault_pass=None):
    """The run's compiler settings, restored afterwards.  fallback_random:
    Inductor draws random numbers as eager does, so a replay's seeded dropout
    masks are the dumped run's."""
    from torch._dynamo import config as dynamo_config
    from torch._inductor import config as inductor_config

    inductor = {"fx_graph_cache": True, "emulate_precision_casts": opts.emulate_precision_casts,
                "fallback_random": True}
    if fault_pass is not None:
        inductor["post_grad_custom_pre_pass"] = fault_pass
    dynamo = {"recompile_limit": RECOMPILE_LIMIT, "fail_on_recompile_limit_hit": True, "suppress_errors": False}
    with inductor_cache_dir(cache_dir), inductor_config.patch(inductor), dynamo_config.patch(dynamo):
        yield
