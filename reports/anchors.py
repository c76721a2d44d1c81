"""Ids the report links to: headings, and the verdict row of each case.

HTML links go to the case's own row; Markdown tables have no row ids, so
there a link goes to the run's verdict heading, whose id GitHub derives from
its text the same way heading_anchor does for the headings this report uses
(letters, digits, spaces, parentheses).
"""

from __future__ import annotations

import re

from .blocks import Link


def verdict_heading(run) -> str:
    return f"Verdicts ({run.tag})"


def heading_anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def case_anchor(run, case_id: str) -> str:
    return f"{run.tag}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", case_id).strip("-")


def case_link(run, case_id: str, text: str | None = None) -> Link:
    return Link(text or case_id, "#" + case_anchor(run, case_id),
                "#" + heading_anchor(verdict_heading(run)))
