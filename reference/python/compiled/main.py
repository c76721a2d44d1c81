"""From a case folder to its record: load and refuse at load (exit 2 or 3),
then run, mapping each failure to its one-line case error (exit 1)."""

from __future__ import annotations

from pathlib import Path

import torch

from ..replay import DumpError, load_case
from . import record
from .errors import BadInput, CaseError, CompiledError, first_error_line
from .guard import wall_clock_limit
from .options import RECOMPILE_LIMIT, Options
from .run import run_case
from .toolchain import fault_refusal, refusal, require_compiler


def _device(spec_device: str, requested: str | None) -> torch.device:
    device = requested or spec_device
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise BadInput(f"the case runs on {device} but no CUDA device is available here"
                       + ("" if requested else " (pass --device cpu to run it on the CPU)"))
    return torch.device(device)


def load(case_dir: Path, opts: Options):
    """The case and its device, or BadInput / NotCompilable."""
    if not Path(case_dir).is_dir():
        raise BadInput(f"{case_dir}: no such case folder")
    try:
        case = load_case(Path(case_dir))
    except DumpError as e:
        raise BadInput(str(e)) from None
    refusal(case.spec)
    fault_refusal(case.spec, opts.fault)
    device = _device(case.spec.device, opts.device)
    if not opts.eager:
        require_compiler(device)
    return case, device


def case_error(e: Exception) -> CompiledError:
    """What went wrong while compiling or training, named."""
    from torch._dynamo import exc as dynamo_exc
    from torch._inductor import exc as inductor_exc

    for cause in _chain(e):  # our own outcome (the time limit) wrapped by Dynamo or Inductor
        if isinstance(cause, CompiledError):
            return cause
    if isinstance(e, DumpError):
        return BadInput(str(e))
    if isinstance(e, dynamo_exc.FailOnRecompileLimitHit):
        cause = first_error_line(e.__cause__) if e.__cause__ else ""
        return CaseError(f"recompile storm: a frame recompiled more than torch._dynamo.config.recompile_limit "
                         f"({RECOMPILE_LIMIT}) times; {cause}")
    if isinstance(e, (dynamo_exc.BackendCompilerFailed, inductor_exc.InductorError)):
        inner = getattr(e, "inner_exception", None) or e.__cause__  # the compiler's own error
        return CaseError(f"compile error: {first_error_line(inner if inner is not None else e)}")
    if isinstance(e, dynamo_exc.TorchDynamoException):
        return CaseError(f"Dynamo error: {first_error_line(e)}")
    return CaseError(f"training failed: {first_error_line(e)}")


def _chain(e: BaseException) -> list:
    out, seen = [], set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def compiled_record(case_dir: Path, out: Path, opts: Options, prog: str) -> dict:
    case, device = load(case_dir, opts)
    if opts.threads > 0:
        torch.set_num_threads(opts.threads)
    with wall_clock_limit(opts.timeout_s, prog):
        try:
            rec = run_case(case, device, opts)
        except Exception as e:  # noqa: BLE001 - each becomes a named case error
            raise case_error(e) from None
    record.write(out, rec)
    return rec
