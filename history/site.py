"""`ampbench history site`: the history as a static site in one folder.

    index.html               latest verdict per series, the regressions
                             (change points that made a series worse), the
                             trend figure of every series, every run
    figures/SERIES.png       one trend figure per series (site_figures.py)
    runs/RUN_ID/index.html   one page per run: its environment and cases,
                             and its own report when the run had one
    runs/RUN_ID/report/      a copy of that report, so the folder hosts alone

Rehearsal runs (made with a test-only fault switch) are marked on every
page and in every figure.
"""

from __future__ import annotations

import shutil
from html import escape
from pathlib import Path

from reference.python.results_file import Status

from .changes import Change
from .series import Series
from .site_figures import draw
from .store import RunRecord, Store

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:13px;table-layout:auto;max-width:100%}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;overflow-wrap:anywhere}
.regression{color:#b00;font-weight:bold}.rehearsal{background:#fde8e8}.ok{color:#070}
img{max-width:100%}"""


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}</body></html>\n")


def _table(head, rows, classes=None) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = ""
    for i, row in enumerate(rows):
        cls = f" class=\"{classes[i]}\"" if classes and classes[i] else ""
        body += f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
    return f"<table><tr>{cells}</tr>{body}</table>"


def _run_link(run: RunRecord, prefix: str = "") -> str:
    mark = " (rehearsal)" if run.rehearsal else ""
    return f"<a href=\"{prefix}runs/{run.run_id}/index.html\">{run.run_id}</a>{mark}"


def _latest_verdict(series: Series, changes) -> tuple[str, str]:
    last = series.points[-1].case
    if last.status is not Status.SKIPPED and last.conforms is not None and not last.conforms:
        return "does not conform", "regression"
    worse = [c for c in changes if c.regression]
    if worse:
        c = max(worse, key=lambda c: c.position)
        return f"{c.metric} regression {c.relative:+.1%} since run {c.position}", "regression"
    return ("skipped" if last.status is Status.SKIPPED else "ok"), "ok"


def _series_rows(series_list, changes_of):
    rows, classes = [], []
    for s in series_list:
        verdict, cls = _latest_verdict(s, changes_of(s))
        last = s.points[-1]
        median = f"{last.case.median:.6g} {escape(last.case.unit or '')}" if last.case.median else "-"
        rows.append([f"<a href=\"#{s.key.slug()}\">{escape(s.key.case_id)}</a>", escape(s.key.machine),
                     escape(s.key.torch), escape(s.key.implementation), str(len(s.points)), _run_link(last.run),
                     median, f"<span class=\"{cls}\">{escape(verdict)}</span>"])
        classes.append("rehearsal" if last.run.rehearsal else "")
    return rows, classes


def _regressions(changes) -> str:
    worse = [c for c in changes if c.regression]
    if not worse:
        return "<p>No change point made a series worse.</p>"
    rows = [[f"<a href=\"#{c.key.slug()}\">{escape(c.key.case_id)}</a>", escape(c.metric),
             f"{c.median_before:.6g} &rarr; {c.median_after:.6g} ({c.relative:+.1%})", f"{c.p_value:.3g}",
             f"{_run_link(c.before)}<br>commit {escape(c.before.git_commit[:12])}, torch {escape(c.before.torch)}",
             f"{_run_link(c.after)}<br>commit {escape(c.after.git_commit[:12])}, torch {escape(c.after.torch)}",
             "REHEARSAL: injected fault" if c.rehearsal else ""] for c in worse]
    return _table(["case", "metric", "change", "p", "last run before", "first run after", ""], rows,
                  ["rehearsal" if c.rehearsal else "" for c in worse])


def _runs_table(runs, prefix="") -> str:
    rows = [[_run_link(r, prefix), escape(r.started_utc), escape(r.git_commit[:12]), escape(r.torch),
             escape(r.machine), escape(r.implementation), escape(r.suite),
             escape(f"REHEARSAL ({r.injected})") if r.rehearsal else ""] for r in reversed(runs)]
    return _table(["run", "started (UTC)", "commit", "torch", "machine", "implementation", "suite", ""], rows,
                  ["rehearsal" if r.rehearsal else "" for r in reversed(runs)])


def _index(runs, series_list, changes, changes_of) -> str:
    rehearsals = sum(r.rehearsal for r in runs)
    banner = (f"<p class=\"rehearsal\"><b>Rehearsal data:</b> {rehearsals} of {len(runs)} runs were made with a "
              "test-only fault switch (marked REHEARSAL and drawn as red crosses): they measure the injected "
              "fault, not the machine.</p>") if rehearsals else ""
    rows, classes = _series_rows(series_list, changes_of)
    trends = "".join(f"<h3 id=\"{s.key.slug()}\">{escape(s.key.label())}</h3>"
                     f"<img src=\"figures/{s.key.slug()}.png\" alt=\"trend of {escape(s.key.label())}\">"
                     for s in series_list)
    body = (f"<h1>ampbench history</h1>{banner}<p>{len(runs)} runs, {len(series_list)} series, "
            f"{sum(c.regression for c in changes)} regression change points.</p>"
            "<p><a href=\"#latest\">Latest verdict per series</a> · <a href=\"#regressions\">Regressions</a> · "
            "<a href=\"#trends\">Trends</a> · <a href=\"#runs\">Runs</a></p>"
            "<h2 id=\"latest\">Latest verdict per series</h2>"
            + _table(["case", "machine", "torch", "implementation", "runs", "latest run", "latest median",
                      "verdict"], rows, classes)
            + f"<h2 id=\"regressions\">Regressions</h2>{_regressions(changes)}"
            + f"<h2 id=\"trends\">Trends</h2>{trends}<h2 id=\"runs\">Runs</h2>{_runs_table(runs)}")
    return _page("ampbench history", body)


def _run_page(run: RunRecord, cases, has_report: bool) -> str:
    rows = [[escape(c.case_id), escape(c.status), "-" if c.conforms is None else ("yes" if c.conforms else "no"),
             f"{c.median:.6g} {escape(c.unit or '')}" if c.median else "-",
             f"{c.max_ratio:.3g}" if c.max_ratio is not None else "-"] for c in cases]
    facts = [["run id", f"{escape(run.run_id)} ({escape(run.run_id_source)})"], ["started", escape(run.started_utc)],
             ["commit", escape(run.git_commit) + (" (dirty)" if run.git_dirty else "")], ["torch", escape(run.torch)],
             ["machine", f"{escape(run.machine)} ({escape(run.cpu_kind)})"], ["machine id", escape(run.machine_id)],
             ["implementation", escape(run.implementation)], ["suite", escape(run.suite)],
             ["results file", escape(run.source_path)]]
    banner = (f"<p class=\"rehearsal\"><b>REHEARSAL</b>: made with a test-only fault switch "
              f"({escape(run.injected)}); not a measurement.</p>") if run.rehearsal else ""
    report = ("<p><a href=\"report/index.html\">This run's report</a></p>" if has_report
              else "<p>No report was written beside this run's results.</p>")
    body = (f"<p><a href=\"../../index.html\">&larr; history</a></p><h1>Run {escape(run.run_id)}</h1>{banner}"
            + _table(["", ""], facts) + report + "<h2>Cases</h2>"
            + _table(["case", "status", "conforms", "median", "distance / bound"], rows))
    return _page(f"run {run.run_id}", body)


def _copy_report(run: RunRecord, folder: Path) -> bool:
    if not run.report_path or not Path(run.report_path).is_file():
        return False
    shutil.copytree(Path(run.report_path).parent, folder / "report",
                    ignore=shutil.ignore_patterns("screenshot*.png"))
    return True


def write(store: Store, series_list, changes: list[Change], stage: Path) -> None:
    """Every file of the site into `stage`."""
    runs = store.runs()
    by_key: dict = {}
    for c in changes:
        by_key.setdefault(c.key, []).append(c)
    changes_of = lambda s: by_key.get(s.key, [])  # noqa: E731
    (stage / "figures").mkdir()
    for s in series_list:
        draw(s, changes_of(s), stage / "figures" / f"{s.key.slug()}.png")
    cases = store.cases()
    for run in runs:
        folder = stage / "runs" / run.run_id
        folder.mkdir(parents=True)
        has_report = _copy_report(run, folder)
        own = [c for c in cases if c.run_id == run.run_id]
        (folder / "index.html").write_text(_run_page(run, own, has_report), encoding="utf-8")
    (stage / "index.html").write_text(_index(runs, series_list, changes, changes_of), encoding="utf-8")

