"""How python -m reference.export makes the TorchScript file.

Scripting is tried first, tracing second: a scripted module may compile and
still fail when it runs (torch.nn.utils.parametrizations raise under
scripting), and a trace may hold a call into Python that cannot be saved (a
torch.autograd.Function) or freeze a branch that training would flip. So
each way is saved, loaded back and checked against the eager module before
it counts, and the next way is tried when one fails. Every file is written
under a temporary name in the target's folder and renamed into place only
once complete and checked, so that a failure leaves nothing that a rerun
would then refuse as an existing file.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Callable

import torch

from .export_checks import ExportError, pytorch_message

WAYS = {"script": "scripted with torch.jit.script", "trace": "traced with torch.jit.trace"}
# Read back with torch.jit.load(path, _extra_files={METADATA: ""}); LibTorch's
# loader ignores it.
METADATA = "ampbench-export.json"


def temporary(path: Path) -> Path:
    """A name beside `path` (a rename within one folder is atomic), hidden,
    and this process's own."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _make(module: torch.nn.Module, xs: list[torch.Tensor], how: str):
    if how == "script":
        return torch.jit.script(module)
    return torch.jit.trace(module, tuple(xs), check_trace=False)


class Unwritable(ExportError):
    """The folder, not the module: no other way would fare better."""


def _save(ts, path: Path, how: str) -> None:
    try:
        ts.save(str(path), _extra_files={METADATA: json.dumps({"torchscript": how})})
    except Exception as e:  # noqa: BLE001 - any other failure to save is this way's failure
        if UNWRITABLE.search(str(e)):
            why = re.sub(r"\[enforce fail at [^\]]*\]\s*\.?\s*", "", pytorch_message(e))  # c10's source location
            raise Unwritable(f"cannot write {path.parent}: {why}: free some space or choose another --out") from None
        raise ExportError(f"the file cannot be saved: {_save_message(e)}") from None


PYTHON_CALL = re.compile(r"Could not export Python function call '([^']+)'")
UNWRITABLE = re.compile(r"open file failed|cannot be opened|failed writing|write failed")


def _save_message(e: Exception) -> str:
    match = PYTHON_CALL.search(str(e))
    if match:
        return (f"it calls the Python function '{match.group(1)}' (a torch.autograd.Function?), which a "
                f"TorchScript file cannot hold")
    return pytorch_message(e)


def _compile_message(e: Exception) -> str:
    """The compiler's first line, and where in the user's code: its message
    goes on with the source of every function it was compiling, the
    user's own call last."""
    lines = [line for line in str(e).splitlines() if line.strip()]
    if not lines:
        return type(e).__name__
    first = lines[0].strip().rstrip(":")
    files = re.findall(r'File "([^"]+)", line (\d+)', str(e))
    here = [lines[i - 1].strip() for i, line in enumerate(lines) if "<--- HERE" in line and i > 0]
    if files:
        first += f" ({Path(files[-1][0]).name}, near line {files[-1][1]}{': ' + here[-1] if here else ''})"
    return first


def _attempt(module, xs, how: str, tmp: Path, check: Callable[[Path], object]):
    """Makes, saves and checks one way; the check's result, or ExportError."""
    try:
        ts = _make(module, xs, how)
    except Exception as e:  # noqa: BLE001 - the reason this way fails
        raise ExportError(_compile_message(e)) from None
    _save(ts, tmp, how)
    try:
        return check(tmp)
    except ExportError:
        raise
    except Exception as e:  # noqa: BLE001 - the file fails to load or run: this way's failure
        raise ExportError(f"the file fails when it runs: {pytorch_message(e)}") from None


def best_file(module: torch.nn.Module, xs: list[torch.Tensor], out: Path,
              check: Callable[[Path], object]) -> tuple[Path, str, object]:
    """The first way whose file passes `check(path)`: the temporary file
    (the caller renames it into place), the way, and the check's result."""
    tmp = temporary(out)
    failures = []
    for how in WAYS:
        try:
            result = _attempt(module, xs, how, tmp, check)
        except Unwritable:
            tmp.unlink(missing_ok=True)
            raise
        except ExportError as e:
            failures.append(f"torch.jit.{how}: {str(e).rstrip('.')}")
            tmp.unlink(missing_ok=True)
            continue
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        if failures:
            print(f"reference.export: {failures[0]}; traced instead (a trace keeps only the control flow this "
                  f"example takes)", file=sys.stderr)
        return tmp, how, result
    raise ExportError(f"cannot export it: {'; '.join(failures)}. {_what_to_do(failures)}")


def _what_to_do(failures: list[str]) -> str:
    if any("Python function" in f for f in failures):
        return ("Write the torch.autograd.Function's forward with torch ops (autograd then derives its backward; "
                "the C++ harness cannot call back into Python), then export again")
    if any("does not train like the module" in f for f in failures):
        return ("Make the forward scriptable (typed arguments, no *args), so that its control flow is compiled "
                "rather than frozen by a trace (docs/your-model.md)")
    return ("Make the forward scriptable (the script error above says where) or traceable (tensors in, one "
            "floating tensor out), then export again")


def place(files: list[tuple[Path, Path]]) -> None:
    """Renames each (temporary, final) into place, in order; on a failure the
    ones already placed and every temporary are removed."""
    placed = []
    try:
        for tmp, final in files:
            if final.exists():
                raise ExportError(f"{final} appeared while exporting (nothing is written over a file)")
            os.replace(tmp, final)
            placed.append(final)
    except BaseException as e:
        for path in placed + [tmp for tmp, _ in files]:
            path.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise ExportError(f"cannot rename {tmp} to {final}: {e.strerror or e}") from None
        raise
