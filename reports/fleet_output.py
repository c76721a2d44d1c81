"""The fleet report on disk: fleet.json (the analysis as is), fleet-junit.xml
(one test per machine), the machines x cases figure, and index.html
(reports/fleet_page.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from xml.etree import ElementTree as ET

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

from .figures.style import plain_text  # noqa: E402
from .fleet_outdir import OutputError  # noqa: E402
from .fleet_page import by_severity, render_html, visible  # noqa: E402

FIGURE = "fleet-machines-by-cases.png"
# Past this many rows the figure is taller than a screen: the case labels and
# the colour scale go on top too, where a reader starts.
TALL = 40
# Wider than the page (inches at the figure's 100 dpi): the page shows it at
# its own size in a strip that scrolls sideways rather than shrinking every
# label, so the machine names go on the right too.
WIDE_IN = 11.5


def write_all(report: dict, out: Path) -> None:
    """Every file of the report into the existing folder out."""
    try:
        text = json.dumps(report, indent=1, allow_nan=False)
    except ValueError as exc:  # an infinity or NaN must fail loudly, never become invalid JSON
        raise OutputError(f"fleet.json would not be JSON: {exc}") from None
    (out / "fleet.json").write_text(text + "\n")
    write_junit(report, out / "fleet-junit.xml")
    draw(report, out / FIGURE)
    (out / "index.html").write_text(render_html(report, FIGURE))


def write_junit(report: dict, path: Path) -> None:
    bad = [m for m in report["machines"] if m["verdict"] != "accept"]
    suite = ET.Element("testsuite", name=visible(f"fleet.{report['suite']}"), tests=str(len(report["machines"])),
                       failures=str(len(bad)), errors="0")
    if (report.get("rehearsal") or {}).get("declared"):  # a CI reading only the JUnit must see it too
        ET.SubElement(ET.SubElement(suite, "properties"), "property", name="rehearsal", value="true")
    for m in report["machines"]:
        case = ET.SubElement(suite, "testcase", classname=visible(f"fleet.{m['group'] or 'no-results'}"),
                             name=visible(m["id"]))
        if m["verdict"] != "accept":
            failure = ET.SubElement(case, "failure", type=m["verdict"], message=visible(m["reasons"][0]))
            failure.text = "\n".join(visible(r) for r in m["reasons"])
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="unicode", xml_declaration=True)


def _matrix(report: dict):
    """Rows: machines (rejected, then investigated, then accepted); columns:
    every case with a fingerprint or a timing. Value: throughput over the
    group's median minus 1 (NaN: not timed); a second mask marks
    fingerprint dissent."""
    machines = by_severity(report["machines"])
    cases = sorted({c for g in report["groups"] for c in list(g["cases"]) + list(g["throughput"])})
    row = {m["id"]: i for i, m in enumerate(machines)}
    col = {c: j for j, c in enumerate(cases)}
    value = np.full((len(machines), len(cases)), np.nan)
    dissent = np.zeros_like(value, dtype=bool)
    for g in report["groups"]:
        for c, t in g["throughput"].items():
            for m, r in t["relative"].items():
                value[row[m], col[c]] = r
        for c, a in g["cases"].items():
            for m in a["disagree"]:
                dissent[row[m], col[c]] = True
    return machines, cases, value, dissent


def draw(report: dict, path: Path) -> None:
    with plain_text():  # machine and case ids are shown as they are, `$` and all
        _draw(report, path)


def _draw(report: dict, path: Path) -> None:
    machines, cases, value, dissent = _matrix(report)
    rows, cols = max(1, len(machines)), max(1, len(cases))
    # About 30 inches at most: at 256 machines a row is 0.11 in, and the
    # machine labels shrink with it but stay above 5 pt.
    row_in = min(0.28, 30.0 / rows)
    width_in = min(7 + 0.45 * cols, 30)
    wide = width_in > WIDE_IN
    fig, ax = plt.subplots(figsize=(width_in, 2.5 + row_in * rows), layout="constrained")
    shown = np.ma.masked_invalid(np.clip(value, -0.5, 0.5))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#d0d0d0")
    image = ax.imshow(shown, cmap=cmap, vmin=-0.5, vmax=0.5, aspect="auto", interpolation="nearest")
    ys, xs = np.nonzero(dissent)
    ax.scatter(xs, ys, marker="x", c="black", s=max(6.0, min(60.0, 400.0 / math.sqrt(rows))))
    _label(ax, machines, cases, max(5.0, min(9.0, row_in * 72 * 0.8)), both_sides=wide)
    # Wide: title and scale at the left edge, where the strip starts.
    ax.set_title(f"{len(machines)} machines x {len(cases)} cases: throughput against the group's median\n"
                 "(grey: not timed or no results; x: fingerprint differs from the group's majority)", fontsize=9,
                 loc="left" if wide else "center")
    on_top = rows > TALL or wide
    if rows > TALL:
        ax.tick_params(axis="x", top=True, labeltop=True)
        for tick in ax.xaxis.get_major_ticks():
            tick.label2.set(rotation=60, horizontalalignment="left")
    # On top when tall: shrunk to a fraction of a 30-inch axis beside it, the
    # scale would be a bar two screens long, its middle far below the start;
    # when wide, the right side holds the machine names. At most 5 inches.
    where = {"location": "top", "shrink": min(0.5, 5.0 / width_in), "aspect": 30} if on_top else {"shrink": 0.6}
    if wide:
        where["anchor"] = (0.0, 1.0)
    fig.colorbar(image, ax=ax, label="samples/s / group median - 1", **where)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _label(ax, machines, cases, label_pt, both_sides) -> None:
    """Every machine by name and verdict (the ones not accepted in colour),
    every case by id."""
    ax.set_yticks(range(len(machines)), [f"{visible(m['id'])} ({m['verdict']})" for m in machines],
                  fontsize=label_pt)
    ax.tick_params(axis="y", right=both_sides, labelright=both_sides)
    for tick, m in zip(ax.yaxis.get_major_ticks(), machines):
        if m["verdict"] != "accept":
            for label in (tick.label1, tick.label2):
                label.set(color="#b00000" if m["verdict"] == "reject" else "#a06000", fontweight="bold")
    ax.set_xticks(range(len(cases)), [visible(c) for c in cases], rotation=60, ha="right", fontsize=8)
    ax.set_xlabel("case")
