"""python -m reference.python.check DIR

Replays every case dumped by `ampbench run --dump DIR` with the Python
reference workloads and compares the result with the C++ run.

DIR is a dump root (one folder per case) or a single case folder.
Prints one summary line per case, then every mismatch with its case, step
and tensor.  Exit status: 0 all cases agree; 1 some case disagrees (this
wins over 2: it is a definite finding); 2 unusable input (no dump there, an
unreadable or inconsistent case folder, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from .case_filter import FilterError, is_field_filter, parse_case_filter
from .compare import TOLERANCES, compare_runs, first_difference
from .fp32_math import ieee_fp32
from .nograd import envelope, relaxations
from .replay import DumpError, build_models, load_case, replay
from .spec import replay_refusal

EXIT_OK, EXIT_MISMATCH, EXIT_UNUSABLE = 0, 1, 2


def case_folders(root: Path) -> list[Path]:
    if (root / "case.json").is_file():
        return [root]
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "case.json").is_file())


def _replay_device(spec_device: str, requested: str | None) -> str:
    """The device to replay on: --device when given, else the device the C++
    case ran on (case.json spec.device)."""
    device = requested or spec_device
    if device.startswith("cuda") and not torch.cuda.is_available():
        if requested:
            raise DumpError("--device", f"{device}: no CUDA device is available here")
        raise DumpError("spec.device", f"the case ran on {device} but no CUDA device is available "
                                       f"here (pass --device cpu to replay on the CPU anyway)")
    return device


def selected(folders: list[Path], case_filter: str) -> list[Path]:
    """The folders --filter selects (case_filter.py: the run's two forms)."""
    matches = parse_case_filter(case_filter)
    by_fields = is_field_filter(case_filter)
    return [f for f in folders if matches(f.name, _spec_or_none(f) if by_fields else None)]


def _spec_or_none(folder: Path) -> dict | None:
    try:
        spec = json.loads((folder / "case.json").read_text())["spec"]
        return spec if isinstance(spec, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def nograd_relaxations(case) -> dict:
    """Elements without a true gradient in this case (nograd.py)."""
    models = build_models(case.spec, case.cpp.initial, torch.device("cpu"), case.folder)
    final = build_models(case.spec, case.cpp.final, torch.device("cpu"), case.folder)
    return relaxations(case.spec, models, case.inputs, case.labels, later=final)


def check(root: Path, case_filter: str | None = None, device: str | None = None, out=sys.stdout,
          err=sys.stderr, max_mismatches: int = 5, bitwise: bool = False) -> int:
    """bitwise: a case that agrees only within its tolerance disagrees too
    (for the dumps whose every case is known to replay bit for bit)."""
    if not root.is_dir():
        print(f"check: error: {root}: not a directory", file=err)
        return EXIT_UNUSABLE
    folders = case_folders(root)
    if case_filter:
        folders = selected(folders, case_filter)
    if not folders:
        print(f"check: error: {root}: no case folders (case.json) to check"
              + (f" matching '{case_filter}'" if case_filter else ""), file=err)
        return EXIT_UNUSABLE

    mismatched, unusable, skipped, reports = [], [], [], []
    began = time.monotonic()
    for folder in folders:
        try:
            case = load_case(folder)
            if why := replay_refusal(case.spec):
                skipped.append(folder.name)
                print(f"SKIPPED {folder.name}: {why}", file=out)
                continue
            with ieee_fp32():  # the float32 math the C++ case ran with
                run = replay(case, device=_replay_device(case.spec.device, device))
            tol = TOLERANCES[case.spec.precision]
            rep = compare_runs(case.spec.id, case.spec.precision, run, case.cpp, tol)
            # The envelope (elements without a true gradient, their redrawn
            # noise) only excuses differences: a bitwise replay needs none, and
            # skips its float64 probes and redraw replays, two thirds of the
            # time; where bit for bit is required, nothing is excused.
            if bitwise and not rep.exact:
                if rep.ok:
                    rep.mismatches.append(first_difference(case.spec.id, run, case.cpp))
            elif not rep.exact:
                with ieee_fp32():
                    relaxed, coupled = envelope(case, run, nograd_relaxations(case),
                                                _replay_device(case.spec.device, device))
                rep = compare_runs(case.spec.id, case.spec.precision, run, case.cpp, tol, relaxed, coupled)
        except DumpError as e:
            unusable.append(folder.name)
            print(f"UNUSABLE {folder.name}: {e}", file=out)
            continue
        reports.append(rep)
        print(rep.summary(tol), file=out)
        if not rep.ok:
            mismatched.append(rep)
            for m in rep.mismatches[:max_mismatches]:
                print(f"  {m}", file=out)
            if len(rep.mismatches) > max_mismatches:
                print(f"  ... and {len(rep.mismatches) - max_mismatches} more", file=out)
        out.flush()

    print(f"\n{len(reports) - len(mismatched)} of {len(folders)} cases agree with the Python reference, "
          f"{len(mismatched)} disagree, {len(unusable)} unusable, {len(skipped)} skipped "
          f"({time.monotonic() - began:.1f} s)", file=out)
    if mismatched:
        first = mismatched[0].mismatches[0]
        print(f"check: first mismatch: case {first.case}, step {first.step}, tensor {first.tensor}: "
              f"{first.detail}", file=err)
        return EXIT_MISMATCH
    if unusable:
        print(f"check: error: unusable dump folders: {', '.join(unusable)}", file=err)
        return EXIT_UNUSABLE
    return EXIT_OK


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.python.check",
                                     description="Cross-check `ampbench run --dump` output against the "
                                                 "Python reference workloads.")
    parser.add_argument("dir", type=Path, help="dump root (one folder per case) or one case folder")
    parser.add_argument("--filter", help="only these cases: fields like workload=clip,model=mlp|decoder matched "
                                         "against each case.json, or a regex searched in the folder name")
    parser.add_argument("--device", choices=("cpu", "cuda"),
                        help="device to replay on [the device each case ran on]")
    parser.add_argument("--bitwise", action="store_true",
                        help="every case must replay bit for bit (losses, scales, skips and every final tensor "
                             "equal); one that agrees only within its tolerance disagrees [off]")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads for the replay (0: LibTorch's default, which is "
                             "what the C++ binary used unless OMP_NUM_THREADS said otherwise)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_UNUSABLE if e.code else EXIT_OK
    if args.filter:
        try:
            parse_case_filter(args.filter)
        except FilterError as e:
            print(f"check: error: {e}", file=sys.stderr)
            return EXIT_UNUSABLE
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    return check(args.dir, args.filter, args.device, bitwise=args.bitwise)


if __name__ == "__main__":
    sys.exit(main())
