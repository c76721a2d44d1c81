"""The autocast op-policy table (`ampbench autocast-ops`, its autocast-ops.json)
as a report section: per op and dtype, the output dtype Python's
torch.autocast gave on this machine, the one C++'s AutocastGuard gave,
whether the result equals the op on manually cast inputs bitwise, and the
verdict.  `python -m reports RESULTS.json --autocast-ops autocast-ops.json`."""

from __future__ import annotations

from reference.python.bounded_json import JsonInputError, read_bounded_json

from .blocks import Bullets, Heading, Table
from .schema import ResultsError


def load_autocast_ops(path) -> dict:
    try:
        doc = read_bounded_json(path)
    except JsonInputError as e:
        raise ResultsError(path, str(e)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("verdicts"), list) or "summary" not in doc:
        raise ResultsError(path, "not an autocast-ops.json (written by ampbench autocast-ops): "
                                 "no \"verdicts\" list or \"summary\"")
    for i, v in enumerate(doc["verdicts"]):
        if not isinstance(v, dict) or not isinstance(v.get("expected"), dict) or not isinstance(v.get("got"), dict):
            raise ResultsError(path, f"verdicts[{i}]: expected an object with \"expected\" and \"got\"")
    return doc


def autocast_section(doc: dict) -> list:
    s = doc["summary"]
    lines = [f"{s.get('agree', 0)} of {s.get('rows', 0)} rows agree with Python's torch.autocast on "
             f"{doc.get('device', '?')} (LibTorch {doc.get('libtorch', '?')})"]
    lines += [f"{dtype}: {c.get('agree', 0)} of {c.get('rows', 0)}" for dtype, c in s.get("by_dtype", {}).items()]
    rows = [_row(v) for v in doc["verdicts"]]
    headers = ("op", "list", "dtype", "Python output", "C++ output", "= manual cast (Python / C++)", "verdict",
               "why")
    return [Heading(2, "Autocast op policy"), Bullets(tuple(lines)), Table(headers, rows, (6,))]


def _row(v: dict) -> tuple:
    e, g = v["expected"], v["got"]
    agrees = bool(v.get("agrees"))
    return (str(v.get("op", "?")), str(e.get("list", "?")), str(e.get("dtype", "?")), _out(e), _out(g),
            f"{_bit(e)} / {_bit(g)}", "pass" if agrees else "fail", "" if agrees else str(v.get("message") or ""))


def _out(side: dict) -> str:
    return f"raises: {side['error']}" if side.get("error") else str(side.get("output_dtype", "?"))


def _bit(side: dict) -> str:
    flag = side.get("bitwise_equal_to_manual_cast")
    return "-" if flag is None else ("yes" if flag else "no")
