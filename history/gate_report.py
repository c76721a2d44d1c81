"""The history gate's verdicts as the files CI shows: a Markdown table (a
GitHub step summary) and JUnit XML (one test case per results case, a
regression as a failure), the same two the baseline gate writes.

A gate that cannot judge (exit 2) still writes both, carrying the error, so
a CI page shows why it stopped rather than a stale or missing report. Each
file is written whole or not at all (a temporary file beside it, renamed).
"""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from .gate import Row, Verdict

SUITE = "ampbench gate --history"


class ReportPathError(Exception):
    """An output path that cannot be written (exit 2, like bad input)."""


def check_writable(path: str | None) -> None:
    """Refuse an output path before judging, so nothing is half done."""
    if path is None:
        return
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise ReportPathError(f"{path}: its folder {folder} does not exist")
    if Path(path).is_dir():
        raise ReportPathError(f"{path}: is a folder, not a file")
    if not os.access(folder, os.W_OK):
        raise ReportPathError(f"{path}: its folder {folder} is not writable")


def _write(path: str, text: str) -> None:
    folder = Path(path).resolve().parent
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".gate-report-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(rows: list[Row], summary: str) -> str:
    lines = [f"## {SUITE}", "", summary, "", "| case | verdict | detail |", "|---|---|---|"]
    # Regressions first: the reader came for them.
    for row in sorted(rows, key=lambda r: (not r.failed, r.case_id)):
        mark = "**regression**" if row.failed else row.verdict.value
        lines.append(f"| `{_cell(row.case_id)}` | {mark} | {_cell(row.detail)} |")
    return "\n".join(lines) + "\n"


def junit(rows: list[Row], summary: str) -> str:
    suite = ET.Element("testsuite", name=SUITE, tests=str(len(rows)),
                       failures=str(sum(r.failed for r in rows)), errors="0",
                       skipped=str(sum(r.verdict in (Verdict.NEW, Verdict.INSUFFICIENT) for r in rows)))
    ET.SubElement(suite, "properties").append(ET.Element("property", name="summary", value=summary))
    for row in rows:
        case = ET.SubElement(suite, "testcase", classname="history", name=row.case_id)
        if row.failed:
            ET.SubElement(case, "failure", message=row.detail, type="regression").text = row.detail
        elif row.verdict in (Verdict.NEW, Verdict.INSUFFICIENT):
            ET.SubElement(case, "skipped", message=f"{row.verdict.value}: {row.detail}")
        else:
            ET.SubElement(case, "system-out").text = f"{row.verdict.value}: {row.detail}"
    return _document(suite)


def _document(suite: ET.Element) -> str:
    root = ET.Element("testsuites", name=SUITE)
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_reports(markdown_path: str | None, junit_path: str | None, rows: list[Row], summary: str) -> None:
    if markdown_path:
        _write(markdown_path, markdown(rows, summary))
    if junit_path:
        _write(junit_path, junit(rows, summary))


def write_error_reports(markdown_path: str | None, junit_path: str | None, message: str) -> None:
    """The gate could not judge: both files say why (a JUnit error, not a pass)."""
    if markdown_path:
        _write(markdown_path, f"## {SUITE}\n\n**Not judged** (exit 2): {_cell(message)}\n")
    if junit_path:
        suite = ET.Element("testsuite", name=SUITE, tests="1", failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="history", name="gate")
        ET.SubElement(case, "error", message=message, type="unusable input").text = message
        _write(junit_path, _document(suite))
