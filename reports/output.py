"""All-or-nothing report folders.

The report is written into a hidden sibling folder of DIR and renamed into
place only when everything succeeded.  A failure leaves DIR exactly as it
was (absent, or with the previous report), never half a report whose stale
images a reader could mistake for new ones.
"""

from __future__ import annotations

import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path


REPORT_FILES = ("index.html", "report.md")


class OutputError(Exception):
    def __init__(self, path, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{path}: {reason}")


@contextmanager
def staged_directory(out_dir):
    """Yield an empty folder next to out_dir; on success it becomes out_dir."""
    target = Path(out_dir).absolute()
    if target.exists() and not target.is_dir():
        raise OutputError(out_dir, "exists and is not a directory")
    if target.is_dir() and not _is_replaceable(target):
        # A typo such as "--out ." must not swap away a source tree.
        raise OutputError(out_dir, "exists and holds files other than a previous report "
                                   "(index.html, report.md, *.png); refusing to replace it")
    stage = _sibling(target, "tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        stage.mkdir()  # same file system as target, so the rename is atomic
    except OSError as exc:
        raise OutputError(out_dir, f"cannot create the report folder: {exc.strerror}") from None
    try:
        yield stage
        _replace(stage, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)  # no-op after a successful rename


def _is_replaceable(folder: Path) -> bool:
    """Empty, or only what a report consists of."""
    return all(entry.is_file() and (entry.name in REPORT_FILES or entry.suffix == ".png")
               for entry in folder.iterdir())


def _sibling(target: Path, kind: str) -> Path:
    return target.with_name(f".{target.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}")


def _replace(stage: Path, target: Path) -> None:
    """Swap stage into target.  A directory cannot be renamed over a non-empty
    one, so the old report is moved aside first and restored if the swap fails."""
    old = _sibling(target, "old") if target.exists() else None
    try:
        if old:
            os.rename(target, old)
        os.rename(stage, target)
    except OSError as exc:
        if old and old.exists() and not target.exists():
            os.rename(old, target)
        raise OutputError(target, f"cannot move the report into place: {exc.strerror}") from None
    if old:
        shutil.rmtree(old, ignore_errors=True)
