"""C++ against Python eager, measured in alternating rounds.

    python -m reference.python.side_by_side --binary build/ampbench \\
        --suite smoke --filter /mlp/ --rounds 5 --out DIR

One `ampbench run` followed by one `python -m reference.python.bench` is a
single draw on a shared machine: a neighbour's burst can slow either side
by 1.5x for seconds at a time, and a smoke case times 3 steps of a few
hundred microseconds.  So this runs both `--rounds` times on the same suite
and filter, alternating which goes first (C++ first in even rounds), and
reports per case the median over rounds of the per-round ratio C++ / Python
with its range, then the geometric mean of those medians.  `--warmup-steps`,
`--measured-steps` and `--repetitions` lengthen the timing for both sides
alike: they are written into a copy of the suite (DIR/suite.json), which
both implementations read.

Every round's raw results stay under DIR (round-K/cpp/results.json,
round-K/python.json); DIR/side_by_side.json holds the table.
Exit: 0 measured (and, with --at-least R, every case's median ratio >= R);
1 a case's median ratio is below --at-least; 2 bad usage, a run that wrote
no results, or no case measured by both.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

from reference.python.results_file import ResultsError
from reference.python.throughput_ratio import medians, python_id

EXIT_OK, EXIT_BELOW, EXIT_USAGE = 0, 1, 2
ROOT = Path(__file__).resolve().parents[2]
TIMING_KEYS = ("warmup_steps", "measured_steps", "repetitions")


class RunError(Exception):
    pass


def suite_path(name: str) -> Path:
    p = Path(name)
    return p if p.suffix == ".json" or p.exists() else ROOT / "suites" / f"{name}.json"


def timed_suite(source: Path, overrides: dict[str, int], out: Path) -> Path:
    """A copy of the suite with its top-level timing replaced by overrides."""
    try:
        doc = json.loads(source.read_text())
    except (OSError, ValueError) as e:
        raise RunError(f"--suite {source}: {e}") from e
    doc.setdefault("throughput", {}).update(overrides)
    path = out / "suite.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


def run_logged(cmd: list[str], log: Path, ok_codes: tuple[int, ...]) -> None:
    with log.open("w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT).returncode
    if rc not in ok_codes:
        raise RunError(f"{' '.join(cmd)} exited {rc} (log: {log})")


def cpp_command(args, suite: Path, out: Path) -> list[str]:
    cmd = [str(args.binary), "run", "--suite", str(suite), "--out", str(out), "--no-report", "--overwrite"]
    return cmd + (["--filter", args.filter] if args.filter else [])


def python_command(args, suite: Path, out: Path) -> list[str]:
    cmd = [sys.executable, "-m", "reference.python.bench", "--suite", str(suite), "--out", str(out)]
    cmd += ["--filter", args.filter] if args.filter else []
    return cmd + (["--threads", str(args.threads)] if args.threads else [])


def one_round(k: int, args, suite: Path) -> tuple[dict[str, float], dict[str, float]]:
    folder = args.out / f"round-{k}"
    folder.mkdir(parents=True, exist_ok=True)
    cpp_out, py_out = folder / "cpp", folder / "python.json"
    # ampbench exits 1 when a case does not conform: not this tool's verdict.
    steps = [(cpp_command(args, suite, cpp_out), folder / "cpp.log"),
             (python_command(args, suite, py_out), folder / "python.log")]
    for cmd, log in (steps if k % 2 == 0 else steps[::-1]):
        run_logged(cmd, log, ok_codes=(0, 1))
    try:
        return medians(str(cpp_out / "results.json")), medians(str(py_out))
    except ResultsError as e:
        raise RunError(f"round {k}: unusable results: {e}") from e


def summarize(rounds: list[tuple[dict[str, float], dict[str, float]]]) -> list[dict]:
    """Per case measured by both sides in every round: the per-round ratios
    and their median."""
    ids = [i for i in rounds[0][0] if all(i in c and python_id(i) in p for c, p in rounds)]
    rows = []
    for i in ids:
        ratios = [c[i] / p[python_id(i)] for c, p in rounds]
        rows.append({"id": i, "ratios": ratios, "median_ratio": statistics.median(ratios),
                     "cpp_median": statistics.median(c[i] for c, _ in rounds),
                     "python_median": statistics.median(p[python_id(i)] for _, p in rounds)})
    return rows


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def print_table(rows: list[dict], rounds: int) -> None:
    width = max(len(r["id"]) for r in rows)
    print(f"{'case':<{width}}  {'C++ /s':>10}  {'Python /s':>10}  {'C++/Py':>6}  range over {rounds} rounds")
    for r in rows:
        print(f"{r['id']:<{width}}  {r['cpp_median']:10.1f}  {r['python_median']:10.1f}  {r['median_ratio']:6.2f}"
              f"  {min(r['ratios']):.2f}-{max(r['ratios']):.2f}")
    med = [r["median_ratio"] for r in rows]
    print(f"geometric mean of the median ratios over {len(rows)} cases: {geomean(med):.2f}"
          f" (min {min(med):.2f}, max {max(med):.2f})")


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m reference.python.side_by_side",
                                description="C++ against Python eager throughput in alternating rounds.")
    p.add_argument("--binary", type=Path, default=ROOT / "build" / "ampbench", help="the ampbench binary")
    p.add_argument("--suite", default="smoke", help="suite name (suites/NAME.json) or path [smoke]")
    p.add_argument("--filter", help="a regex on the case id, given to both sides")
    p.add_argument("--rounds", type=int, default=5, help="rounds of C++ and Python [5]")
    p.add_argument("--threads", type=int, default=0, help="Python's torch.set_num_threads (0: the default)")
    p.add_argument("--at-least", type=float, help="exit 1 unless every case's median ratio is at least this")
    p.add_argument("--out", type=Path, required=True, help="folder for the rounds and side_by_side.json")
    for key in TIMING_KEYS:
        p.add_argument(f"--{key.replace('_', '-')}", type=int, help=f"override the suite's throughput.{key}")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    for key in TIMING_KEYS:
        v = getattr(args, key)
        if v is not None and v < (0 if key == "warmup_steps" else 1):
            p.error(f"--{key.replace('_', '-')}: {v} is too small")
    if not os.access(args.binary, os.X_OK):
        p.error(f"--binary {args.binary}: not an executable (build first: cmake --build build)")
    return args


def main(argv=None) -> int:
    try:
        args = parse(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        overrides = {k: getattr(args, k) for k in TIMING_KEYS if getattr(args, k) is not None}
        suite = timed_suite(suite_path(args.suite), overrides, args.out)
        rounds = []
        for k in range(args.rounds):
            rounds.append(one_round(k, args, suite))
            print(f"round {k + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    except (RunError, OSError) as e:
        print(f"side_by_side: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    rows = summarize(rounds)
    if not rows:
        print("side_by_side: error: no case was measured by both sides in every round", file=sys.stderr)
        return EXIT_USAGE
    (args.out / "side_by_side.json").write_text(json.dumps({"rounds": args.rounds, "cases": rows}, indent=1))
    print_table(rows, args.rounds)
    below = [r["id"] for r in rows if args.at_least is not None and r["median_ratio"] < args.at_least]
    if below:
        print(f"below {args.at_least}: {', '.join(below)}", file=sys.stderr)
        return EXIT_BELOW
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
