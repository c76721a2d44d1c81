"""python -m reports.upgrade_cli --from OLD --to NEW --old R.json... --new R.json... --out DIR

Writes DIR/upgrade.md, DIR/upgrade.xml (JUnit) and, unless --no-html,
DIR/html/ (the comparison report of the first round's pair, the upgrade
verdict on top); prints the verdict line. Exit 0 pass, 1 fail, 2 unusable
input. ci/upgrade.sh runs it after the rounds (docs/upgrade.md).
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from reference.python.bounded_json import MAX_BYTES
from reference.python.results_file import ResultsError

from .autocast_ops import load_autocast_ops
from .build import build_report
from .output import OutputError
from .render_markdown import render_markdown
from .upgrade import REGRESSION, UpgradeInputError, check_unicode
from .upgrade_policy import policy_problem
from .upgrade_report import analyse, junit, report_blocks, verdict


def parse_args(argv):
    p = argparse.ArgumentParser(prog="reports.upgrade_cli", description="One verdict for a torch upgrade.")
    p.add_argument("--from", dest="old_version", required=True, metavar="VERSION")
    p.add_argument("--to", dest="new_version", required=True, metavar="VERSION")
    p.add_argument("--old", nargs="+", required=True, metavar="RESULTS.json", help="the old torch's runs, round order")
    p.add_argument("--new", nargs="+", required=True, metavar="RESULTS.json", help="the new torch's runs, round order")
    p.add_argument("--old-autocast", metavar="AUTOCAST-OPS.json")
    p.add_argument("--new-autocast", metavar="AUTOCAST-OPS.json")
    p.add_argument("--gate-junit", metavar="GATE.xml",
                   help="ampbench gate --paired's JUnit of the same runs: a regression it flags fails the verdict too")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--no-html", action="store_true", help="skip the HTML comparison report")
    p.add_argument("--rehearsal", action="store_true",
                   help="accept runs made with a test-only fault switch (--inject-slowdown, --inject-bitflip), "
                        "otherwise refused: the verdict then says it is a rehearsal, not a measurement")
    return p.parse_args(argv)


def read_junit(path) -> bytes:
    """The file's bytes, with the JSON readers' limits: a FIFO or /dev/zero
    would be read forever."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise UpgradeInputError(f"{path}: not a regular file (a folder, device, FIFO or socket)")
        if st.st_size > MAX_BYTES:
            raise UpgradeInputError(f"{path}: too large: {st.st_size} bytes (limit {MAX_BYTES >> 20} MiB)")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)  # the file may grow after the stat
    except OSError as exc:
        raise UpgradeInputError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise UpgradeInputError(f"{path}: too large: grew past the limit of {MAX_BYTES >> 20} MiB")
    return data


def gate_regressions(path) -> set:
    """(case id, check) of every <failure> in the gate's JUnit."""
    try:
        root = ET.fromstring(read_junit(path))
    except ET.ParseError as exc:
        raise UpgradeInputError(f"{path}: not a readable JUnit file ({exc})") from None
    return {(tc.get("classname"), tc.get("name")) for tc in root.iter("testcase") if tc.find("failure") is not None}


def ours(u) -> set:
    worse = {(c.case_id, "conformance") for c in u.conformance if c.worse}
    return worse | {(s.case_id, "throughput") for s in u.speeds if s.verdict == REGRESSION}


def _policies(args):
    if bool(args.old_autocast) != bool(args.new_autocast):
        raise UpgradeInputError("--old-autocast and --new-autocast go together")
    if not args.old_autocast:
        return None, None
    return _policy(args.old_autocast), _policy(args.new_autocast)


def _policy(path) -> dict:
    doc = load_autocast_ops(path)
    check_unicode(doc, path)
    problem = policy_problem(doc)
    if problem:
        raise UpgradeInputError(f"{path}: {problem}")
    return doc


def _html(args, u, out_dir) -> None:
    try:
        build_report([args.old[0], args.new[0]], out_dir, jobs=1,
                     title=f"ampbench upgrade {u.old_version} -> {u.new_version}",
                     preamble=report_blocks(u, title=False))
    except ArithmeticError as exc:
        # Medians at the ends of the float range (1e-320 against 1e300) pass
        # the schema yet overflow the comparison report's intervals.
        raise UpgradeInputError(f"{args.old[0]} and {args.new[0]}: the HTML comparison cannot be drawn ({exc}); "
                                f"upgrade.md and upgrade.xml are written, --no-html skips the HTML") from None


def run(args) -> int:
    old_policy, new_policy = _policies(args)
    u = analyse(args.old, args.new, args.old_version, args.new_version, old_policy, new_policy, args.rehearsal)
    if args.gate_junit:
        # Same test, same data: a difference means the two readings disagree
        # on an input, and the stricter one wins.
        u = replace(u, gate_only=tuple(sorted(gate_regressions(args.gate_junit) - ours(u))))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    blocks = report_blocks(u)
    (out / "upgrade.md").write_text(render_markdown(blocks), encoding="utf-8")
    (out / "upgrade.xml").write_text(junit(u), encoding="utf-8")
    if not args.no_html:
        _html(args, u, out / "html")
    passed, line = verdict(u)
    print(line)
    return 0 if passed else 1


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return run(args)
    except (ResultsError, UpgradeInputError) as exc:
        print(f"upgrade: error: {exc}", file=sys.stderr)
        return 2
    except (OutputError, OSError) as exc:
        print(f"upgrade: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Stopped by the user: the shell's status for SIGINT, no traceback.
        print("upgrade: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
