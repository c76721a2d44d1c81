"""The autocast op-policy table (`ampbench autocast-ops`, its autocast-ops.json)
as a report section: per op and dtype, the output dtype Python's
torch.autocast gave on this machine, the one C++'s AutocastGuard gave,
whether the result equals the op on manually cast inputs bitwise, and the
verdict (an entry C++ cannot call, or one PyTorch's own test skips, says
so); then, per autocast list of PyTorch's, how many entries ran and agreed.
`python -m reports RESULTS.json --autocast-ops autocast-ops.json`."""

from __future__ import annotations

from reference.python.bounded_json import JsonInputError, read_bounded_json
from reference.python.results_file import ResultsError

from .blocks import Bullets, Heading, Table


def load_autocast_ops(path) -> dict:
    try:
        doc = read_bounded_json(path)
    except JsonInputError as e:
        raise ResultsError(path, str(e)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("verdicts"), list) or "summary" not in doc:
        raise ResultsError(path, "not an autocast-ops.json (written by ampbench autocast-ops): "
                                 "no \"verdicts\" list or \"summary\"")
    for i, v in enumerate(doc["verdicts"]):
        # One side is null for a row only the other side has.
        sides = [v.get("expected"), v.get("got")] if isinstance(v, dict) else []
        if len(sides) != 2 or not all(s is None or isinstance(s, dict) for s in sides) or sides == [None, None]:
            raise ResultsError(path, f"verdicts[{i}]: expected an object with \"expected\" and \"got\"")
    if not isinstance(doc.get("coverage", []), list):
        raise ResultsError(path, "\"coverage\" must be a list")
    return doc


def autocast_section(doc: dict) -> list:
    s = doc["summary"]
    lines = [f"{s.get('agree', 0)} of {s.get('rows', 0)} rows agree with Python's torch.autocast on "
             f"{doc.get('device', '?')} (LibTorch {doc.get('libtorch', '?')})"]
    lines += [f"{dtype}: {c.get('agree', 0)} of {c.get('rows', 0)}" for dtype, c in s.get("by_dtype", {}).items()]
    rows = [_row(v) for v in doc["verdicts"]]
    headers = ("op", "list", "dtype", "Python output", "C++ output", "= manual cast (Python / C++)", "verdict",
               "why")
    blocks = [Heading(2, "Autocast op policy"), Bullets(tuple(lines))]
    if doc.get("coverage"):
        blocks.append(Table(COVERAGE_COLUMNS, [_coverage_row(c) for c in doc["coverage"]], ()))
    return blocks + [Table(headers, rows, (6,))]


COVERAGE_COLUMNS = ("list", "entries", "rows", "ran", "agree", "disagree", "cannot call", "skipped")


def _coverage_row(c: dict) -> tuple:
    return tuple(str(c.get(k.replace(" ", "_"), "?")) for k in COVERAGE_COLUMNS)


def _row(v: dict) -> tuple:
    e, g = v.get("expected") or {}, v.get("got") or {}
    known = e or g
    agrees = bool(v.get("agrees"))
    verdict = "pass" if agrees else {"cannot_call": "cannot call", "skipped": "skipped"}.get(v.get("status"), "fail")
    return (str(v.get("op", "?")), str(known.get("list", "?")), str(known.get("dtype", v.get("dtype", "?"))),
            _out(e), _out(g), f"{_bit(e)} / {_bit(g)}", verdict, "" if agrees else str(v.get("message") or ""))


def _out(side: dict) -> str:
    if not side:
        return "-"
    for key, label in (("cannot_call", "cannot call"), ("skipped", "skipped"), ("error", "raises")):
        if side.get(key):
            return f"{label}: {side[key]}"
    return str(side.get("output_dtype", "?"))


def _bit(side: dict) -> str:
    flag = side.get("bitwise_equal_to_manual_cast")
    return "-" if flag is None else ("yes" if flag else "no")
