#!/usr/bin/env python3
"""Validate ampbench results files against harness/schema/results.schema.json,
and check that the derived throughput figures agree with the samples they
are derived from (a reader must be able to recompute them from the file).

    python harness/schema/validate_results.py RESULTS.json [MORE.json ...]

Exit 0 when every file is valid; 1 with the file, the JSON path and the
reason for each violation otherwise; 2 when a file cannot be read or parsed.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

import jsonschema

SCHEMA_PATH = Path(__file__).with_name("results.schema.json")


def load_schema() -> dict:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def violations(doc, schema: dict) -> list[str]:
    """Every violation as 'path: message', in document order."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    out = []
    for e in errors:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path) or "(top level)"
        if list(e.absolute_path)[:2] and e.absolute_path[0] == "cases" and isinstance(doc, dict):
            try:
                path += f" (case {doc['cases'][e.absolute_path[1]]['id']})"
            except (KeyError, IndexError, TypeError):
                pass
        out.append(f"{path}: {e.message}")
    return out


def inconsistencies(doc) -> list[str]:
    """Derived figures that disagree with the file's own data: throughput.median
    against samples_per_s, and speedup_vs_fp32 against the two medians (and
    missing where both medians exist)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        return []
    medians = {}
    out = []
    for i, case in enumerate(doc["cases"]):
        t = case.get("throughput") if isinstance(case, dict) else None
        if not isinstance(t, dict) or not t.get("samples_per_s"):
            continue
        where = f".cases[{i}].throughput (case {case.get('id')})"
        expected = statistics.median(t["samples_per_s"])
        if not math.isclose(t.get("median", math.nan), expected, rel_tol=1e-9):
            out.append(f"{where}: median {t.get('median')} is not the median of samples_per_s ({expected})")
        medians[case.get("id")] = t.get("median")
    for i, case in enumerate(doc["cases"]):
        t = case.get("throughput") if isinstance(case, dict) else None
        own = isinstance(case, dict) and case.get("baseline_id") == case.get("id")
        base = medians.get(case.get("baseline_id")) if isinstance(case, dict) and not own else None
        if not isinstance(t, dict) or not base or not isinstance(t.get("median"), (int, float)):
            continue
        if t.get("speedup_vs_fp32") is None:
            out.append(f".cases[{i}].throughput (case {case.get('id')}): speedup_vs_fp32 is null, though the case "
                       f"and its fp32 baseline {case.get('baseline_id')} were both measured")
            continue
        expected = t["median"] / base
        if not math.isclose(t["speedup_vs_fp32"], expected, rel_tol=1e-9):
            out.append(f".cases[{i}].throughput (case {case.get('id')}): speedup_vs_fp32 {t['speedup_vs_fp32']} "
                       f"is not median / the fp32 baseline's median ({expected})")
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    schema = load_schema()
    status = 0
    for name in argv:
        try:
            doc = json.loads(Path(name).read_text())
        except (OSError, json.JSONDecodeError) as e:
            print(f"{name}: cannot read results: {e}", file=sys.stderr)
            return 2
        found = violations(doc, schema)
        found += [] if found else inconsistencies(doc)
        for v in found:
            print(f"{name}: {v}", file=sys.stderr)
        if found:
            status = 1
        else:
            print(f"{name}: valid ({len(doc['cases'])} cases, schema version {doc['schema_version']})")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
