"""python -m reports.fleet DIR... --out OUT

Many machines' results of one suite and one build, one report: machines
grouped by hardware and software, each case's majority fingerprint per group
and every machine that differs (a silent-corruption suspect), throughput
outliers, and a verdict per machine (docs/fleet.md).

Exit 0: every machine accepted; 1: some machine to investigate or reject;
2: input refused before anything is written (not one fleet: mixed suites or
builds, a machine twice, results made with a test-only fault switch without
--rehearsal; an unreadable --expect; an --out that is a file, cannot be
created or holds files ampbench did not write) or a report that could not
be written (the previous one is left whole).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .fleet_analysis import analyse
from .fleet_discovery import FLEET_MARKER, DiscoveryError, machine_folders, read_expected
from .fleet_input import FleetInputError, load_machines
from .fleet_outdir import OutputError, check_out, write_report
from .fleet_output import write_all
from .fleet_page import visible
from .fleet_stats import DEFAULT_FDR, DEFAULT_MIN_EFFECT, MAD_FLOOR, Rule

EXIT_BAD_INPUT = 2


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction strictly between 0 and 1")
    return value


def parse_args(argv):
    doc = __doc__.split("\n\n")
    p = argparse.ArgumentParser(prog="reports.fleet", description=doc[1].replace("\n", " "),
                                epilog=doc[2].replace("\n", " "))
    p.add_argument("folders", nargs="+", metavar="DIR",
                   help="a machine's results folder, or a folder whose subfolders are machines' results folders")
    p.add_argument("--out", required=True, metavar="OUT",
                   help="where fleet.json, fleet-junit.xml and index.html go: a new or empty folder, or one a "
                        f"fleet report was written to (marked {FLEET_MARKER}; replaced only once the new report "
                        "is complete)")
    p.add_argument("--expect", metavar="FILE", type=Path,
                   help="machine ids, one a line (e.g. the scheduler's node list): any without results is named")
    p.add_argument("--rehearsal", action="store_true",
                   help="faults were injected on purpose (ampbench run --inject-slowdown / --inject-bitflip): "
                        "accept such results and say in the report that it is a rehearsal; without it they "
                        "are refused (exit 2)")
    p.add_argument("--fdr", type=_fraction, default=DEFAULT_FDR,
                   help="Benjamini-Hochberg false discovery rate of the throughput flags (default %(default)s)")
    p.add_argument("--min-effect", type=_fraction, default=DEFAULT_MIN_EFFECT,
                   help="flag a machine only this much slower than its group's median (default %(default)s)")
    p.add_argument("--mad-floor", type=_fraction, default=MAD_FLOOR,
                   help="the group's spread is taken as at least this fraction of its median (default %(default)s)")
    return p.parse_args(argv)


def _error(message: str) -> int:
    print(f"reports.fleet: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _summary(report: dict, out: Path) -> int:
    for note in report["skipped"]:
        print(f"reports.fleet: skipped {visible(note)}", file=sys.stderr)
    for m in report["machines"]:
        if m["verdict"] != "accept":
            print(f"{m['verdict']:<11} {visible(m['id'])}: " + " | ".join(visible(r) for r in m["reasons"]))
    c = report["counts"]
    rehearsal = " (a rehearsal: faults injected on purpose)" if report["rehearsal"]["declared"] else ""
    print(f"reports.fleet: {len(report['machines'])} machines in {len(report['groups'])} group(s): {c['accept']} "
          f"accepted, {c['investigate']} to investigate, {c['reject']} rejected{rehearsal} -> {out / 'index.html'}")
    return 0 if c["accept"] == len(report["machines"]) else 1


def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    try:
        check_out(out)
        expected = read_expected(args.expect) if args.expect else ()
        found = machine_folders(args.folders)
        machines = load_machines(found.folders, expected, rehearsal=args.rehearsal)
    except (OutputError, DiscoveryError, FleetInputError) as exc:
        return _error(str(exc))
    report = analyse(machines, Rule(args.fdr, args.min_effect, args.mad_floor), skipped=found.skipped,
                     rehearsal=args.rehearsal)
    try:
        write_report(out, lambda stage: write_all(report, stage))
    except OutputError as exc:
        return _error(str(exc))
    return _summary(report, out)


if __name__ == "__main__":
    sys.exit(main())
