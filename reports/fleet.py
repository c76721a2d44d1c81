"""python -m reports.fleet DIR... --out OUT

Many machines' results of one suite and one build, one report: machines
grouped by hardware and software, each case's majority fingerprint per group
and every machine that differs (a silent-corruption suspect), throughput
outliers, and a verdict per machine (docs/fleet.md).

Exit 0: every machine accepted; 1: some machine to investigate or reject;
2: input that is not one fleet (mixed suites or builds, a machine twice).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .fleet_analysis import analyse
from .fleet_input import FleetInputError, load_machines
from .fleet_output import write_all
from .fleet_stats import DEFAULT_FDR, DEFAULT_MIN_EFFECT, MAD_FLOOR, Rule

EXIT_BAD_INPUT = 2


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction strictly between 0 and 1")
    return value


def parse_args(argv):
    p = argparse.ArgumentParser(prog="reports.fleet", description=__doc__.split("\n\n")[1].replace("\n", " "))
    p.add_argument("folders", nargs="+", metavar="DIR",
                   help="a machine's results folder, or a folder whose subfolders are machines' results folders")
    p.add_argument("--out", required=True, metavar="OUT", help="where fleet.json, fleet-junit.xml and index.html go")
    p.add_argument("--expect", metavar="FILE", type=Path,
                   help="machine ids, one a line (e.g. the scheduler's node list): any without results is named")
    p.add_argument("--fdr", type=_fraction, default=DEFAULT_FDR,
                   help="Benjamini-Hochberg false discovery rate of the throughput flags (default %(default)s)")
    p.add_argument("--min-effect", type=_fraction, default=DEFAULT_MIN_EFFECT,
                   help="flag a machine only this much slower than its group's median (default %(default)s)")
    p.add_argument("--mad-floor", type=_fraction, default=MAD_FLOOR,
                   help="the group's spread is taken as at least this fraction of its median (default %(default)s)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        expected = args.expect.read_text().split() if args.expect else ()
        machines = load_machines(args.folders, expected)
    except (FleetInputError, OSError) as exc:
        print(f"reports.fleet: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    report = analyse(machines, Rule(args.fdr, args.min_effect, args.mad_floor))
    write_all(report, Path(args.out))
    for m in report["machines"]:
        if m["verdict"] != "accept":
            print(f"{m['verdict']:<11} {m['id']}: " + " | ".join(m["reasons"]))
    c = report["counts"]
    print(f"reports.fleet: {len(report['machines'])} machines in {len(report['groups'])} group(s): {c['accept']} "
          f"accepted, {c['investigate']} to investigate, {c['reject']} rejected -> {Path(args.out) / 'index.html'}")
    return 0 if c["accept"] == len(report["machines"]) else 1


if __name__ == "__main__":
    sys.exit(main())
