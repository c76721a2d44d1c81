"""The fleet report's index.html: the counts, one row per group, the
machines not accepted (rejected first, then to investigate), the machines x
cases figure and the rule.

It has to read the same at 16 machines and at 256 or more: the group table
grows with the kinds of machine, not their number, and the table of
machines not accepted shows its first FLAGGED_SHOWN rows open and folds the
rest (still in the page, one click away; every row is in fleet.json), so a
fleet-wide fault (every machine run without --deterministic) does not push
the figure and the groups thousands of pixels down. The figure is shown at
its own size, never shrunk to the page: a wide one (many cases) scrolls
sideways in its own strip, and the page itself never does.
"""

from __future__ import annotations

import html
import re

FLAGGED_SHOWN = 40
# What a reader cannot see and a terminal, XML 1.0 or a font would act on or
# refuse: C0 and C1 controls, DEL, surrogates, U+FFFE and U+FFFF. Machine ids
# come from host names and AMPBENCH_MACHINE_ID, so they may hold any.
_UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_ORDER = {"reject": 0, "investigate": 1, "accept": 2}
# Fields every machine of a fleet shares (one build is enforced): said once
# above the tables instead of in every group's row.
_SAID_ONCE = ("git_commit", "git_dirty")


def visible(text) -> str:
    """text with each such character written as its escape (\\x01, \\ufffe),
    so two ids that differ only there still read apart."""
    return _UNSHOWABLE.sub(lambda m: ascii(m.group())[1:-1], str(text))


def by_severity(machines) -> list:
    """Rejected first, then to investigate, then accepted; by id within."""
    return sorted(machines, key=lambda m: (_ORDER[m["verdict"]], m["id"]))


def _rows(items) -> str:
    return "".join("<tr>" + "".join(f"<td>{html.escape(visible(x))}</td>" for x in row) + "</tr>" for row in items)


def _table(head, rows) -> str:
    return ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
            + _rows(rows) + "</table>")


def _groups(report) -> str:
    verdict_of = {m["id"]: m["verdict"] for m in report["machines"]}
    rows = []
    for g in report["groups"]:
        verdicts = [verdict_of[m] for m in g["machines"]]
        key = ", ".join(f"{k}={v}" for k, v in g["key"].items() if k not in _SAID_ONCE)
        rows.append((g["id"], len(verdicts), verdicts.count("accept"), verdicts.count("investigate"),
                     verdicts.count("reject"), key))
    no_group = [m for m in report["machines"] if m["group"] is None]
    if no_group:
        rows.append(("-", len(no_group), 0, len(no_group), 0, "no usable results: see the machines below"))
    return _table(("group", "machines", "accepted", "investigate", "reject", "hardware and software"), rows)


def _flagged(report) -> str:
    bad = [(m["id"], m["verdict"], m["group"] or "-", " | ".join(m["reasons"]))
           for m in by_severity(report["machines"]) if m["verdict"] != "accept"]
    if not bad:
        return "<p>None.</p>"
    head = ("machine", "verdict", "group", "reasons")
    shown = _table(head, bad[:FLAGGED_SHOWN])
    if len(bad) <= FLAGGED_SHOWN:
        return shown
    rest = bad[FLAGGED_SHOWN:]
    return (shown + f"<details><summary>{len(rest)} more machines not accepted "
            f"({sum(1 for r in rest if r[1] == 'reject')} rejected)</summary>{_table(head, rest)}</details>")


def _notes(report) -> str:
    """A rehearsal says so above everything; what discovery passed over is
    listed so that a machine folder missing from the counts can be found."""
    out = ""
    rehearsal = report.get("rehearsal") or {}
    if rehearsal.get("declared"):
        faults = "; ".join(f"{m}: {', '.join(f)}" for m, f in sorted(rehearsal.get("faults", {}).items()))
        out += ("<p class=\"rehearsal\"><b>Rehearsal</b> (--rehearsal): faults were injected on purpose; these "
                f"verdicts test the check, not the fleet. {html.escape(faults or 'No machine records a fault.')}</p>")
    if report.get("skipped"):
        out += ("<p>Passed over, not machines:</p><ul>"
                + "".join(f"<li>{html.escape(s)}</li>" for s in report["skipped"]) + "</ul>")
    return out


def render_html(report: dict, figure: str) -> str:
    counts = report["counts"]
    dirty = " (with uncommitted changes)" if report["build"]["git_dirty"] else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ampbench fleet: {html.escape(report['suite'])}</title>
<style>body{{font-family:sans-serif;max-width:1200px;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 6px;vertical-align:top}}
td:last-child{{overflow-wrap:anywhere}}.figure{{overflow-x:auto}}
summary{{cursor:pointer;margin:0.5em 0}}.rehearsal{{background:#fff3c0;padding:4px 8px}}</style></head><body>
<h1>Fleet qualification: suite {html.escape(report['suite'])}</h1>
<p><b>{counts['accept']} accepted, {counts['investigate']} to investigate, {counts['reject']} rejected</b>
of {len(report['machines'])} machines; build {html.escape(str(report['build']['git_commit']))}{dirty}.</p>
{_notes(report)}
<h2>Groups (machines expected to agree bit for bit)</h2>
{_groups(report)}
<h2>Machines not accepted</h2>
{_flagged(report)}
<h2>Machines x cases</h2>
<div class="figure"><img src="{figure}" alt="heatmap of every machine's throughput per case against its group's
median, with a cross where its fingerprint differs from the group's majority"></div>
<h2>The rule</h2><p>{html.escape(report['rule']['false_alarm'])}</p>
<p>Also written: fleet.json (everything here, per case), fleet-junit.xml (one test per machine).</p>
</body></html>
"""
