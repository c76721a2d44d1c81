"""python -m reference.python.compiled CASE_DUMP_DIR --out RECORD.json [...]

Exit status: 0 the record is written; 1 a case error (compile error,
recompile storm, time limit, ...: one line on stderr, no record); 2 bad
input at load (no dump, bad arguments, no C++ compiler for Inductor, a
TorchScript model); 3 the case cannot be trained compiled by design (its
reason on stderr: a skip, not a failure).  Never a traceback."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import EXIT_BAD_INPUT, EXIT_CASE_ERROR, EXIT_OK, BadInput, CompiledError, first_error_line
from .options import DEFAULT_TIMEOUT_S, FAULTS, MODES, Options

PROG = "python -m reference.python.compiled"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Train one `ampbench run --dump` case with torch.compile "
                                "(autocast and GradScaler as the case says) and write its record.")
    p.add_argument("case", type=Path, help="one case folder of an `ampbench run --dump` dump")
    p.add_argument("--out", type=Path, required=True, help="the record (JSON) to write")
    p.add_argument("--mode", default="default", choices=MODES, help="torch.compile mode [default]")
    p.add_argument("--compile-step", action="store_true", help="compile each optimizer's step too")
    p.add_argument("--emulate-precision-casts", action="store_true",
                   help="torch._inductor.config.emulate_precision_casts: keep eager's bf16/fp16 roundings")
    p.add_argument("--fault", choices=FAULTS, help="TEST ONLY: a deliberately wrong compiled graph")
    p.add_argument("--eager", action="store_true", help="the same path without compiling (the control)")
    p.add_argument("--throughput-steps", type=int, default=0, metavar="N",
                   help="time N steps per repetition after the run [0: no throughput]")
    p.add_argument("--throughput-repetitions", type=int, default=3, metavar="R", help="[3]")
    p.add_argument("--throughput-warmup", type=int, default=1, metavar="W", help="untimed steps first [1]")
    p.add_argument("--cache-dir", type=Path, help="the FX graph cache, emptied first [CASE/compiled-cache]")
    p.add_argument("--reuse-cache", action="store_true",
                   help="keep what --cache-dir holds (the cold compile is then not cold; the record says so)")
    p.add_argument("--device", choices=("cpu", "cuda"), help="[the device the case ran on]")
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: LibTorch's default)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"wall-clock limit of the whole run, seconds [{DEFAULT_TIMEOUT_S}]")
    p.add_argument("--no-fullgraph-check", action="store_true", help="skip the fullgraph=True probe")
    return p


def options(args) -> Options:
    if args.eager and (args.fault or args.compile_step or args.emulate_precision_casts):
        raise BadInput("--eager runs without compiling: --fault, --compile-step and --emulate-precision-casts "
                       "apply to a compiled run")
    for name in ("throughput_steps", "throughput_warmup", "threads"):
        if getattr(args, name) < 0:
            raise BadInput(f"--{name.replace('_', '-')} {getattr(args, name)}: must not be negative")
    if args.throughput_repetitions < 1:
        raise BadInput(f"--throughput-repetitions {args.throughput_repetitions}: must be at least 1")
    return Options(mode=args.mode, compile_step=args.compile_step,
                   emulate_precision_casts=args.emulate_precision_casts, fault=args.fault, eager=args.eager,
                   throughput_steps=args.throughput_steps, throughput_repetitions=args.throughput_repetitions,
                   throughput_warmup=args.throughput_warmup, cache_dir=args.cache_dir,
                   reuse_cache=args.reuse_cache, device=args.device,
                   threads=args.threads, timeout_s=args.timeout, fullgraph_check=not args.no_fullgraph_check)


def main(argv=None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # argparse printed its usage line
        return EXIT_BAD_INPUT if e.code else EXIT_OK
    try:
        from .main import compiled_record

        compiled_record(args.case, args.out, options(args), PROG)
    except CompiledError as e:
        print(f"{PROG}: error: {e.reason}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: error: interrupted", file=sys.stderr)
        return EXIT_CASE_ERROR
    except Exception as e:  # noqa: BLE001 - any other failure is this case's error, on one line
        print(f"{PROG}: error: {first_error_line(e)}", file=sys.stderr)
        return EXIT_CASE_ERROR
    return EXIT_OK
