"""Bounded reading of a JSON input, the Python side of harness/io/json_file.h.

Every input may be hostile: /dev/zero would be read forever, a huge file
exhausts memory, and deep nesting makes json.loads (and every recursive walk
after it) raise RecursionError. So the file must be a regular file under a
size limit, and its nesting is measured before json.loads runs. The limits
are the C++ reader's, so both sides accept the same files. Imports nothing
but the standard library: reports/ uses it too without loading torch.
"""
from __future__ import annotations

import json
import os
import re
import stat

MAX_BYTES = 64 << 20
MAX_DEPTH = 64

# A JSON string (escapes included), to blank out before counting brackets.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonInputError(Exception):
    """The file cannot be read as JSON; `reason` is one line naming why."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def nesting_depth(text: str, stop_past: int = MAX_DEPTH) -> int:
    """Deepest bracket nesting outside strings (stops counting past stop_past)."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if m.group() in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > stop_past:
            break
    return deepest


def parse_bounded_json(text: str, path, max_depth: int = MAX_DEPTH):
    """json.loads with the depth limit; NaN/Infinity tokens are tolerated."""
    if nesting_depth(text, max_depth) > max_depth:
        raise JsonInputError(path, f"nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonInputError(path, f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:  # belt and braces: the scan should have caught it
        raise JsonInputError(path, "nested too deeply") from None


def read_bounded_json(path, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH):
    """Read and parse `path`; raise JsonInputError naming the problem."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise JsonInputError(path, "no such file") from None
    except OSError as exc:
        raise JsonInputError(path, f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise JsonInputError(path, "is a directory, not a JSON file")
    if not stat.S_ISREG(st.st_mode):
        raise JsonInputError(path, "not a regular file (a device, FIFO or socket)")
    if st.st_size > max_bytes:
        raise JsonInputError(path, f"too large: {st.st_size} bytes (limit {max_bytes >> 20} MiB)")
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)  # the file may grow after the stat
    except OSError as exc:
        raise JsonInputError(path, f"cannot read: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise JsonInputError(path, f"too large: grew past the limit of {max_bytes >> 20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise JsonInputError(path, "not a JSON file (not UTF-8 text)") from None
    return parse_bounded_json(text, path, max_depth)
