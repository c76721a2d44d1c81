#!/usr/bin/env python3
"""Where a CTest run's time went, from its console output.

    ci/ctest-times.py LOG [--top N]

Reads what `ctest` printed (ci/test.sh's output: the lines
"12/252 Test #194: NAME ....   Passed  200.75 sec" and "Total Test time
(real) = 771.39 sec") and prints the number of tests, the sum of their
times (the CPU the run needs, near enough: most tests hold one core), the
wall time, the N longest tests and every test that did not pass. For a CPU
kind not measured before, these are the figures docs/build-times.md's
"Where CTest's time goes" needs. Exit 2 when LOG holds no CTest result.
"""
import argparse
import pathlib
import re
import sys

RESULT = re.compile(r"^\s*\d+/\d+ Test +#\d+: (\S+) \.*\s*(\S[^\n]*?)\s+([0-9.]+) sec$", re.M)
TOTAL = re.compile(r"^Total Test time \(real\) = +([0-9.]+) sec", re.M)


def summary(text: str, top: int) -> list[str]:
    results = [(name, status.strip("* "), float(seconds)) for name, status, seconds in RESULT.findall(text)]
    if not results:
        raise ValueError("no CTest result in it")
    wall = TOTAL.search(text)
    lines = [f"CTest: {len(results)} tests, {sum(s for _, _, s in results):.0f} s of them, "
             + (f"{float(wall.group(1)):.0f} s wall" if wall else "no total (the run did not finish)")]
    lines += [f"{s:8.1f}  {name}" for name, _, s in sorted(results, key=lambda r: -r[2])[:top]]
    lines += [f"not passed: {name} ({status}, {s:.1f} s)" for name, status, s in results if status != "Passed"]
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="ci/ctest-times.py", description=__doc__.split("\n\n")[0])
    p.add_argument("log", type=pathlib.Path)
    p.add_argument("--top", type=int, default=10)
    args = p.parse_args(argv)
    if args.top < 1:
        p.error(f"--top {args.top}: must be at least 1")
    try:
        text = args.log.read_text(encoding="utf-8", errors="replace")
        lines = summary(text, args.top)
    except (OSError, ValueError) as exc:
        print(f"ctest-times: error: {args.log}: {exc}", file=sys.stderr)
        return 2
    try:
        print("\n".join(lines))
    except BrokenPipeError:  # read by `head`: what it wanted was printed
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
