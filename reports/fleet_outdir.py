"""The fleet report's folder (--out), under the rule of every ampbench
output folder: a user's folder is never written into.

An absent or empty folder is taken; a folder that a fleet report marked
with FLEET_MARKER is replaced; any other folder, a file, or a path that
cannot be created is refused before anything is read or written (exit 2).
The new report is written into a staging folder inside OUT and moved into
place only once every file of it exists, so a rerun that fails leaves the
previous report whole.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from .fleet_discovery import FLEET_MARKER

STAGE = ".ampbench-fleet-incoming"
_MARKER_TEXT = "Written by `ampbench fleet`: a later fleet run may replace the report in this folder.\n"


class OutputError(Exception):
    """The report cannot go where --out says: one line, exit 2."""


def _refuse(out, why: str):
    raise OutputError(f"--out {out}: {why}")


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not os.path.lexists(path) and path != path.parent:
        path = path.parent
    return path


def _check_creatable(out: Path) -> None:
    if os.path.lexists(out):
        _refuse(out, "is a symbolic link to nothing")
    base = _nearest_existing(out)
    if not base.is_dir():
        _refuse(out, f"cannot create it: {base} is not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        _refuse(out, f"cannot create it: {base} is not writable")


def check_out(out: Path) -> None:
    """Refuse an --out that the report cannot or must not be written to."""
    if not str(out):
        _refuse("''", "empty path")
    try:
        st = os.stat(out)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            _refuse(out, f"cannot use it: {exc.strerror}")
        _check_creatable(out)
        return
    if not stat.S_ISDIR(st.st_mode):
        _refuse(out, "exists and is not a folder")
    try:
        entries = os.listdir(out)
    except OSError as exc:
        _refuse(out, f"cannot read it: {exc.strerror}")
    if entries and FLEET_MARKER not in entries:
        _refuse(out, f"holds files ampbench did not write (no {FLEET_MARKER} marker): give an empty or new "
                     "folder, or one a fleet report was written to")
    if not os.access(out, os.W_OK | os.X_OK):
        _refuse(out, "is not writable")


def _move_in(stage: Path, out: Path) -> None:
    # index.html last: the page appears only once what it shows is there.
    for f in sorted(stage.iterdir(), key=lambda p: (p.name == "index.html", p.name)):
        os.replace(f, out / f.name)


def write_report(out: Path, write_files) -> None:
    """Mark out as a fleet report's, let write_files(stage) write every
    file into the staging folder, then move them in."""
    stage = out / STAGE
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not (out / FLEET_MARKER).exists():
            (out / FLEET_MARKER).write_text(_MARKER_TEXT)
        shutil.rmtree(stage, ignore_errors=True)  # left by a run that was killed
        stage.mkdir()
    except OSError as exc:
        _refuse(out, f"cannot create it: {exc.strerror}")
    try:
        write_files(stage)
        _move_in(stage, out)
    except OSError as exc:
        _refuse(out, f"cannot write the report: {exc.strerror} ({exc.filename or out})")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
