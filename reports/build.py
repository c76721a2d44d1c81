"""build_report: results files in, report folder out."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

from .autocast_ops import autocast_section, load_autocast_ops
from .document import build_document
from .figures import render_figures
from .output import staged_directory
from .render_html import render_html
from .render_markdown import render_markdown
from .runs import load_runs


@dataclass(frozen=True)
class Report:
    out_dir: Path
    figures: tuple     # FigureFile per figure drawn
    runs: tuple
    single_file: bool = False


def build_report(paths, out_dir, jobs: int | None = None, autocast_ops=None,
                 single_file: bool = False, title: str | None = None, preamble=()) -> Report:
    """Write index.html, report.md and PNG figures for `paths` into out_dir.

    jobs: processes drawing figures (default: the CPUs available; 1 = serial).
    autocast_ops: an `ampbench autocast-ops` autocast-ops.json, tabulated at the end.
    single_file: out_dir gets index.html alone, every figure embedded in it
    (a data URI), to attach or host as it is.
    title: the page's headline instead of "ampbench report"; preamble: blocks
    placed right under it, before the summary (the upgrade verdict).

    Raises ResultsError (reference/python/results_file.py) for unusable input (before touching out_dir)
    and output.OutputError when the folder cannot be written; in both cases
    out_dir is left as it was.
    """
    if not paths:
        raise ValueError("build_report needs at least one results file")
    runs = load_runs(paths)  # every file validated before anything is drawn
    policy = load_autocast_ops(autocast_ops) if autocast_ops else None
    with staged_directory(out_dir) as stage:
        figures = render_figures(runs, stage, jobs)
        blocks = build_document(runs, figures, title or "ampbench report", preamble)
        if policy:
            blocks += autocast_section(policy)
        if single_file:
            html = render_html(blocks, image_src=lambda src: _data_uri(stage / src))
            for figure in figures:
                (stage / figure.name).unlink()
        else:
            html = render_html(blocks)
            (stage / "report.md").write_text(render_markdown(blocks), encoding="utf-8")
        (stage / "index.html").write_text(html, encoding="utf-8")
    return Report(Path(out_dir), tuple(figures), tuple(runs), single_file)


def _data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")
