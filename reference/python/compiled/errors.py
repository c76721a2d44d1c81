"""The outcomes other than a record, each with its exit status and a
one-line reason (never a traceback): what the C++ orchestrator reads."""

from __future__ import annotations

EXIT_OK = 0
EXIT_CASE_ERROR = 1    # the case ran into an error compiled (compile error, recompile storm, time limit)
EXIT_BAD_INPUT = 2     # refused at load: no dump, bad arguments, no compiler, no Python model
EXIT_NOT_COMPILABLE = 3  # the case cannot be trained through torch.compile by design: skip it, with the reason


def one_line(text, limit: int = 400) -> str:
    """`text` on one line (whitespace collapsed), at most `limit` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


class CompiledError(Exception):
    """An outcome without a record: `exit_code` and a one-line `reason`."""

    exit_code = EXIT_CASE_ERROR

    def __init__(self, reason: str):
        self.reason = one_line(reason)
        super().__init__(self.reason)


class BadInput(CompiledError):
    exit_code = EXIT_BAD_INPUT


class CaseError(CompiledError):
    exit_code = EXIT_CASE_ERROR


class NotCompilable(CompiledError):
    exit_code = EXIT_NOT_COMPILABLE


def first_error_line(e: BaseException) -> str:
    """An exception as `Type: its first meaningful line` (Inductor and Dynamo
    errors carry pages of context after it)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    head = lines[0] if lines else ""
    return one_line(f"{type(e).__name__}: {head}" if head else type(e).__name__)
