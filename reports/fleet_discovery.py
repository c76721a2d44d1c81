"""Finding the fleet's machines on disk, and reading the --expect list.

Every folder given may be hostile or a mistake: a tree thousands of levels
deep (a recursive walk overflows the stack), a symbolic link loop, a
previous fleet report inside the collection, stray files among the machine
folders. The walk is iterative and bounded in depth and size, follows no
symbolic link, and whatever it passes over is said (`skipped`), never
dropped without a word.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from reference.python.bounded_json import MAX_BYTES

# Written into every fleet report folder (reports/fleet_outdir.py): such a
# folder is a report, never a machine, and only such a folder is replaced.
FLEET_MARKER = ".ampbench-fleet"
# `ampbench run` without --out puts results.json two levels below the
# machine's folder (results/<suite>-<device>-<time>/); eight leaves room for
# a site's own layout without walking an arbitrary tree.
MAX_SEARCH_DEPTH = 8
MAX_SEARCH_FOLDERS = 10000
# Rank folders hold copies of rank 0's results, never the run's own.
_NOT_SEARCHED = ("ddp-ranks",)


class DiscoveryError(Exception):
    """Input that names no fleet at all: refused as a whole (exit 2)."""


@dataclass
class Found:
    folders: list[Path] = field(default_factory=list)   # one per machine
    skipped: list[str] = field(default_factory=list)    # what was passed over, and why


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _collection(path: Path, found: Found) -> None:
    """Each subfolder of a collection is a machine, except a fleet report."""
    machines = []
    for entry in _entries(path):
        child = Path(entry.path)
        if entry.is_dir(follow_symlinks=True):
            if (child / FLEET_MARKER).exists():
                found.skipped.append(f"{child}: a fleet report ({FLEET_MARKER}), not a machine")
            else:
                machines.append(child)
        else:
            found.skipped.append(f"{child}: not a folder")
    if not machines:
        raise DiscoveryError(f"{path}: neither a results folder nor a folder of machines' folders")
    found.folders.extend(machines)


def machine_folders(paths) -> Found:
    """A folder with a results file is one machine; any other folder is a
    collection whose subfolders are machines (the shared folder a job array
    writes into). A results file given itself stands for its folder."""
    found = Found()
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.folders.append(path.parent)
        elif not path.is_dir():
            raise DiscoveryError(f"{path}: no such file or folder")
        elif (path / "results.json").is_file():
            found.folders.append(path)
        else:
            _collection(path, found)
    return found


def results_file(folder: Path) -> tuple[Path | None, str | None]:
    """The folder's results.json: its own, or the shallowest one below (a
    run's output folder inside the machine's), level by level; (None, why)
    when there is none or several at the shallowest level."""
    level, searched = [folder], 0
    for _depth in range(MAX_SEARCH_DEPTH + 1):
        here = sorted(d / "results.json" for d in level if (d / "results.json").is_file())
        if len(here) == 1:
            return here[0], None
        if here:
            return None, "several results.json, cannot tell which is this machine's: " + ", ".join(map(str, here))
        below = []
        for d in level:
            # A symbolic link is not walked into: a link to an ancestor loops.
            below += [Path(e.path) for e in _entries(d)
                      if e.name not in _NOT_SEARCHED and e.is_dir(follow_symlinks=False)]
        searched += len(below)
        if searched > MAX_SEARCH_FOLDERS:
            return None, f"no results.json among the first {MAX_SEARCH_FOLDERS} folders (search stopped)"
        if not below:
            return None, "no results.json"
        level = below
    return None, f"no results.json within {MAX_SEARCH_DEPTH} levels (deeper folders not searched)"


def read_expected(path) -> list[str]:
    """--expect: machine ids separated by white space. Read as the JSON
    inputs are (reference/python/bounded_json.py): a regular file only (a
    FIFO would block, /dev/zero never ends), within the same size limit,
    UTF-8 text; anything else is DiscoveryError naming the file."""
    try:
        # Non-blocking: opening a FIFO must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise DiscoveryError(f"--expect {path}: cannot read: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "a device, FIFO or socket"
        raise DiscoveryError(f"--expect {path}: not a regular file ({kind})")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(MAX_BYTES + 1)  # the file may grow after the check
        except OSError as exc:
            raise DiscoveryError(f"--expect {path}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise DiscoveryError(f"--expect {path}: too large (limit {MAX_BYTES >> 20} MiB)")
    try:
        return data.decode("utf-8").split()
    except UnicodeDecodeError as exc:
        raise DiscoveryError(f"--expect {path}: not UTF-8 text (byte {exc.start})") from None
