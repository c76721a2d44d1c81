#!/usr/bin/env python3
"""Validate ampbench results files against harness/schema/results.schema.json,
and check that the derived throughput figures agree with the samples they
are derived from (a reader must be able to recompute them from the file).

    python harness/schema/validate_results.py RESULTS.json [MORE.json ...]

Exit 0 when every file is valid; 1 with the file, the JSON path and the
reason for each violation otherwise; 2 when a file cannot be read or parsed.
The checks are those of every Python reader (reference/python/results_file.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script from anywhere (CTest runs it from the build folder).
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from reference.python.results_file import ResultsError, inconsistencies, load_results  # noqa: E402


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    status = 0
    for name in argv:
        try:
            results = load_results(name)
            found = inconsistencies(results)
        except ResultsError as e:
            if not e.problems:  # not JSON, or not a file: nothing to validate
                print(f"{e.path}: cannot read results: {e.reason}", file=sys.stderr)
                return 2
            found = list(e.problems)
        for problem in found:
            print(f"{name}: {problem}", file=sys.stderr)
        if found:
            status = 1
        else:
            print(f"{name}: valid ({len(results.cases)} cases, schema version {results.schema_version})")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
