"""A small JUnit XML writer for the upgrade verdict, the shape CI systems
read (one <testsuite>, a <testcase> per check, <failure> fails the build)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr


def testcase(classname: str, name: str, failure: str | None = None, skipped: str | None = None,
             out: str | None = None) -> dict:
    return {"classname": classname, "name": name, "failure": failure, "skipped": skipped, "out": out}


def _case_xml(c: dict) -> str:
    head = f"  <testcase classname={quoteattr(c['classname'])} name={quoteattr(c['name'])} time=\"0\""
    inner = ""
    if c["failure"]:
        inner += f"    <failure message={quoteattr(c['failure'])} type=\"regression\"/>\n"
    elif c["skipped"]:
        inner += f"    <skipped message={quoteattr(c['skipped'])}/>\n"
    if c["out"]:
        inner += f"    <system-out>{escape(c['out'])}</system-out>\n"
    return f"{head}>\n{inner}  </testcase>\n" if inner else f"{head}/>\n"


def junit_document(suite: str, cases: list, notes: list) -> str:
    failures = sum(1 for c in cases if c["failure"])
    skipped = sum(1 for c in cases if c["skipped"] and not c["failure"])
    out = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           f"<testsuite name={quoteattr(suite)} tests=\"{len(cases)}\" failures=\"{failures}\" errors=\"0\" "
           f"skipped=\"{skipped}\" time=\"0\">\n")
    out += "".join(_case_xml(c) for c in cases)
    out += f"  <system-out>{escape(chr(10).join(notes))}</system-out>\n</testsuite>\n"
    return out
