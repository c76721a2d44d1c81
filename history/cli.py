"""python -m history {ingest,changes,gate,site} (ampbench history ...)

Results over time: runs stored in a database (SQLite file, or a
postgresql:// URL), change points per series (case x machine kind x torch x
implementation) over throughput and distance to the bound, the gate against
the last N comparable runs, and a static site (docs/history.md).

Exit status: 0 done / no regression; 1 the gate found a regression; 2
unusable input (a results file that is missing, not JSON, of a schema
version this reader cannot read, from a run that did not finish, or made
with a test-only fault switch without --rehearsal; a database that cannot
be opened, created or read; an --out that is not new, empty or an earlier
site), nothing written; 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .changepoints import PERMUTATIONS, SIGNIFICANCE, Settings
from .changes import all_changes
from .gate import GateInputError, Rule, Verdict, judge
from .gate_report import ReportPathError, check_writable, write_error_reports, write_reports
from .ingest import IngestError, ingest, prepare, prepare_all
from .site import write
from .site_out import SiteOutputError, check_out, write_site
from .store import StoreError, describe, open_store

EXIT_OK, EXIT_REGRESSION, EXIT_BAD_INPUT = 0, 1, 2
PROG = "ampbench history"


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number strictly between 0 and 1")
    return value


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive decimal integer")
    return int(text)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite positive number")
    return value


def _db(p):
    p.add_argument("--db", required=True, metavar="DB",
                   help="the history: a SQLite file, or a postgresql://USER@HOST/NAME URL (the same schema)")


def _detection(p):
    p.add_argument("--significance", type=_fraction, default=SIGNIFICANCE,
                   help="permutation-test level a change point must reach (default %(default)s)")
    p.add_argument("--permutations", type=_positive, default=PERMUTATIONS,
                   help="permutations per test (default %(default)s)")


def parser() -> argparse.ArgumentParser:
    doc = __doc__.split("\n\n")
    top = argparse.ArgumentParser(prog=PROG, description=doc[1].replace("\n", " "),
                                  epilog=doc[2].replace("\n", " "))
    sub = top.add_subparsers(dest="command", required=True, metavar="{ingest,changes,gate,site}")
    epilog = doc[2].replace("\n", " ")
    p = sub.add_parser("ingest", help="store results files (idempotent by run id)", epilog=epilog)
    p.add_argument("results", nargs="+", metavar="RESULTS.json")
    _db(p)
    p.add_argument("--rehearsal", action="store_true",
                   help="accept runs made with a test-only fault switch (--inject-slowdown ...), stored marked "
                        "as rehearsals; without it they are refused (exit 2)")
    p = sub.add_parser("changes", help="list the change points of every series", epilog=epilog)
    _db(p)
    _detection(p)
    p = sub.add_parser("gate", help="judge a results file against the last N comparable runs", epilog=epilog)
    _db(p)
    p.add_argument("--current", required=True, metavar="C.json", help="the results file to judge")
    p.add_argument("--last", type=_positive, default=Rule.last, help="runs of history per case (default %(default)s)")
    p.add_argument("--min-runs", type=_positive, default=Rule.min_runs,
                   help="fewer comparable runs than this: insufficient history, never a failure (default %(default)s)")
    p.add_argument("--min-effect", type=_fraction, default=Rule.min_effect,
                   help="smallest relative drop that counts (default %(default)s)")
    p.add_argument("--sigmas", type=_positive_float, default=Rule.sigmas,
                   help="a drop must also exceed this many robust spreads of the history (default %(default)s)")
    p.add_argument("--rehearsal", action="store_true",
                   help="judge a current run made with a test-only fault switch; the verdict says REHEARSAL")
    p.add_argument("--markdown", metavar="FILE", help="also write a Markdown report (a GitHub step summary)")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report (a regression is a failure)")
    p = sub.add_parser("site", help="write the static site (one folder)", epilog=epilog)
    _db(p)
    p.add_argument("--out", required=True, metavar="SITE", type=Path,
                   help="a new or empty folder, or one an earlier site was written to (replaced once whole)")
    _detection(p)
    return top


def _ingest(args) -> int:
    prepared = prepare_all(args.results, rehearsal=args.rehearsal)
    with open_store(args.db, create=True) as store:
        done = ingest(store, prepared)
    for run in done.added:
        mark = f" REHEARSAL ({run.injected})" if run.rehearsal else ""
        print(f"ingested {run.run_id} {run.source_path}{mark}")
    for run in done.already:
        print(f"already in the history: {run.run_id} {run.source_path}")
    print(f"{PROG}: {len(done.added)} run(s) added, {len(done.already)} already there -> {describe(args.db)}")
    return EXIT_OK


def _changes(args) -> int:
    with open_store(args.db) as store:
        series, changes = all_changes(store, Settings(args.significance, args.permutations))
    for change in changes:
        print(change.line())
    regressions = sum(c.regression for c in changes)
    print(f"{PROG}: {len(series)} series, {len(changes)} change point(s), {regressions} of them regressions")
    return EXIT_OK


def _gate(args) -> int:
    for path in (args.markdown, args.junit):
        check_writable(path)
    try:
        with open_store(args.db) as store:
            current = prepare(args.current, args.rehearsal, now="")
            rows = judge(store, current, Rule(args.last, args.min_runs, args.min_effect, args.sigmas))
    except (IngestError, StoreError, GateInputError) as exc:
        write_error_reports(args.markdown, args.junit, str(exc))
        raise
    for row in rows:
        if row.verdict is not Verdict.OK:
            print(f"{row.verdict.value:<20} {row.case_id}: {row.detail}")
    failed = sum(r.failed for r in rows)
    mark = f" [REHEARSAL: {current.run.injected}]" if current.run.rehearsal else ""
    summary = (f"{PROG} gate: {len(rows)} cases, {failed} regression(s), "
               f"{sum(r.verdict is Verdict.OK for r in rows)} ok, {sum(r.verdict is Verdict.NEW for r in rows)} new{mark}")
    write_reports(args.markdown, args.junit, rows, summary)
    print(summary)
    return EXIT_REGRESSION if failed else EXIT_OK


def _site(args) -> int:
    check_out(args.out)
    with open_store(args.db) as store:
        series, changes = all_changes(store, Settings(args.significance, args.permutations))
        write_site(args.out, lambda stage: write(store, series, changes, stage))
        runs = len(store.runs())
    print(f"{PROG}: {runs} runs, {len(series)} series, {sum(c.regression for c in changes)} regression change "
          f"point(s) -> {args.out / 'index.html'}")
    return EXIT_OK


COMMANDS = {"ingest": _ingest, "changes": _changes, "gate": _gate, "site": _site}


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (IngestError, StoreError, GateInputError, SiteOutputError, ReportPathError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"{PROG}: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
