"""The site's folder (--out), under the rule of every ampbench output folder:
a user's folder is never written into. An absent or empty folder is taken,
one an earlier site marked with MARKER is replaced, anything else is refused
before anything is written. The new site is written beside it and swapped in
only once whole, so a failed rerun leaves the previous site as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

MARKER = ".ampbench-history-site"


class SiteOutputError(Exception):
    """The site cannot go where --out says (exit 2)."""


def check_out(out: Path) -> None:
    if not str(out):
        raise SiteOutputError("--out: empty path")
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise SiteOutputError(f"--out {out}: exists and is not a folder")
    if out.is_dir():
        entries = os.listdir(out)
        if entries and MARKER not in entries:
            raise SiteOutputError(f"--out {out}: holds files ampbench did not write (no {MARKER} marker): give a "
                                  "new or empty folder, or one a history site was written to")
        return
    parent = out.absolute().parent
    if not parent.is_dir():
        raise SiteOutputError(f"--out {out}: cannot create it: {parent} is not a folder")


def write_site(out: Path, write_files) -> None:
    """write_files(stage) fills a fresh folder beside `out`, which then
    replaces `out`."""
    out = out.absolute()
    stage = out.parent / f".{out.name}.incoming-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    try:
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir()
        (stage / MARKER).write_text("Written by `ampbench history site`: a later site may replace this folder.\n")
        write_files(stage)
        if out.exists():
            os.replace(out, old)
        os.replace(stage, out)
    except OSError as exc:
        raise SiteOutputError(f"--out {out}: cannot write the site: {exc.strerror} ({exc.filename or out})") \
            from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
