"""python -m reports RESULTS.json [MORE.json ...] --out DIR"""

from __future__ import annotations

import argparse
import sys

from reference.python.results_file import SCHEMA_VERSION, ResultsError

from .build import build_report
from .output import OutputError

EXIT_BAD_INPUT = 2   # same code argparse uses for a bad command line
EXIT_OUTPUT = 1


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="reports",
        description="Turn ampbench results.json files into figures, index.html and report.md.")
    parser.add_argument("results", nargs="+", metavar="RESULTS.json",
                        help=f"results files (schema ampbench.results v{SCHEMA_VERSION} or older); "
                             "several files are compared")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="report folder; replaced as a whole, and only on success")
    parser.add_argument("--autocast-ops", metavar="AUTOCAST-OPS.json",
                        help="an `ampbench autocast-ops` table to add as a section")
    parser.add_argument("--single-file", action="store_true",
                        help="write index.html alone, the figures embedded in it (to attach or host as is)")
    parser.add_argument("--title", metavar="TEXT",
                        help="the report's headline (default: ampbench report), e.g. the versions compared")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="processes drawing figures (default: available CPUs, 1 = serial)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        report = build_report(args.results, args.out, jobs=args.jobs, autocast_ops=args.autocast_ops,
                              single_file=args.single_file, title=args.title)
    except ResultsError as exc:
        return _fail(exc.path, exc.reason, EXIT_BAD_INPUT)
    except OutputError as exc:
        return _fail(exc.path, exc.reason, EXIT_OUTPUT)
    if report.single_file:
        print(f"reports: wrote {report.out_dir / 'index.html'} with {len(report.figures)} figures embedded")
    else:
        print(f"reports: wrote {report.out_dir / 'index.html'}, report.md and {len(report.figures)} figures")
    return 0


def _fail(path, reason, code) -> int:
    print(f"reports: error: {path}: {reason}", file=sys.stderr)
    return code
