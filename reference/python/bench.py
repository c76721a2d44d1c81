"""python -m reference.python.bench --suite S [--out FILE] [--filter REGEX]

Times the Python reference workloads on a suite's cases exactly as
harness/runner/runner.cpp times the C++ ones (measure_throughput): a fresh
model, optimizer and scaler; the step index past any injected inf; no
learning-rate schedule; `warmup_steps` untimed steps; then `repetitions`
timed runs of `measured_steps` steps, synchronized before reading the clock,
each giving samples/s = measured_steps * effective_batch / seconds.  The
input is the suite's: "cached" reuses one resident batch, "host" walks the
batches through a host-to-device copy.

Writes a results file of the C++ schema (harness/results/SCHEMA.md, schema
"ampbench.results" at results_file.SCHEMA_VERSION, the version the C++ writer
writes) whose env block carries "implementation":
"python", so `ampbench gate` and `python -m reports` read it beside a C++
run: the case ids are the C++ ids.  Negative controls are not timed (the C++
harness does not time them either) and are left out.  Each case also trains
its `steps` recorded steps first, so its trajectory is real.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

from . import canonical
from . import models as M
from .bench_env import environment
from .compiled.toolchain import inductor_cache_dir
from .fp32_math import ieee_fp32
from .results_file import SCHEMA_NAME, SCHEMA_VERSION, Expect, Status
from .spec import BENCH_NOT_RUN_REASON, CUDA_ONLY_PRECISIONS, Spec
from .suite import SuiteError, load_suite, with_optimizer_impl
from .workloads import STEPS, TrainingState, apply_lr_schedule

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
# A --compile case is timed here, and no check judges it: the results say so
# (status "skipped", conforms null, this reason) with its trajectory and
# throughput kept.  Compiled training is judged by `ampbench run
# --implementation compiled` (python -m reference.python.compiled, docs/compiled.md).
COMPILED_UNCHECKED = ("torch.compile: timed, not checked (no check judged this compiled run; "
                      "ampbench run --implementation compiled judges compiled training)")


# --- synthetic data (harness/data/synthetic_data.cpp) -----------------------

class SyntheticData:
    """Gaussian inputs labelled by a fixed random tanh "teacher", drawn on
    the CPU from seed + 1000 (the C++ data seed), `distinct` batches."""

    def __init__(self, spec: Spec, device: torch.device, distinct: int = 8):
        sample = M.input_shape(spec.model, spec.sizes)
        gen = torch.Generator().manual_seed(spec.seed + 1000)
        n_in = math.prod(sample)
        w1 = torch.randn(n_in, 64, generator=gen) / math.sqrt(n_in)
        w2 = torch.randn(64, spec.sizes["classes"], generator=gen) / math.sqrt(64)
        self.device = device
        self.host = []
        for _ in range(distinct):
            if spec.model in canonical.TOKEN_FAMILIES:
                x, y = _token_batch(spec, gen)
            else:
                x = torch.randn([spec.sizes["batch"], *sample], generator=gen)
                y = torch.tanh(x.flatten(1).matmul(w1)).matmul(w2).argmax(1)
            if device.type == "cuda":
                x, y = x.pin_memory(), y.pin_memory()
            self.host.append((x, y))
        self.cached = (self.host[0][0].to(device), self.host[0][1].to(device))

    def host_to_device(self, index: int):
        x, y = self.host[index % len(self.host)]
        return x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)


def _token_batch(spec: Spec, gen: torch.Generator):
    """Token ids of the C++ data's shapes, padding and targets (the timing
    depends on those, not on which tokens): BERT's padded to a length drawn
    in [seq/2, seq] with a class label, GPT-2's next tokens."""
    b, seq, vocab = spec.sizes["batch"], spec.sizes["seq"], spec.sizes["vocab"]
    if spec.model == "gpt2":
        ids = torch.randint(0, vocab, (b, seq + 1), generator=gen)
        return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()
    ids = torch.randint(1, vocab, (b, seq), generator=gen)
    length = torch.randint((seq + 1) // 2, seq + 1, (b, 1), generator=gen)
    ids = torch.where(torch.arange(seq).unsqueeze(0) < length, ids, torch.zeros_like(ids))
    return ids, torch.randint(0, spec.sizes["classes"], (b,), generator=gen)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def own_inductor_cache():
    """A --compile run's own Inductor cache, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ampbench-bench-inductor-", ignore_cleanup_errors=True) as folder, \
            inductor_cache_dir(Path(folder)):
        yield


def fresh_state(spec: Spec, device: torch.device, compile_models: bool = False) -> TrainingState:
    """compile_models: each model through torch.compile (forward and its
    backward graph); the step (scaler, optimizer) stays eager."""
    models = []
    for i in range(spec.model_count()):
        torch.manual_seed(spec.seed + i)  # weights drawn on the CPU, as make_model
        model = M.make_model(spec.model, spec.sizes).to(device).train()
        models.append(torch.compile(model) if compile_models else model)
    return TrainingState(spec, models, device)


def train_recorded(spec: Spec, device: torch.device, compile_models: bool = False) -> dict:
    """The recorded run: spec.steps steps over the host batches in order."""
    s = fresh_state(spec, device, compile_models)
    data = SyntheticData(spec, device)
    step_fn, micro, cursor = STEPS[spec.workload], spec.micro_batches(), 0
    loss, scale, skipped = [], [], []
    for step in range(spec.steps):
        s.step_index = step
        apply_lr_schedule(s)
        batches = [data.host_to_device(cursor + i) for i in range(micro)]
        cursor += micro
        out = step_fn(s, batches)
        loss.append(out.loss.float())
        skipped.append(bool(out.skipped))
        scale.append(float(s.scaler.get_scale()))
    values = [float(v) for v in torch.stack(loss).double().cpu()]
    return {"loss": [v if math.isfinite(v) else None for v in values], "scale": scale, "skipped": skipped}


def measure_throughput(spec: Spec, device: torch.device, compile_models: bool = False) -> dict:
    t = spec.throughput
    s = fresh_state(spec, device, compile_models)
    s.step_index = spec.steps  # past any injected inf
    data = SyntheticData(spec, device)
    step_fn, micro = STEPS[spec.workload], spec.micro_batches()
    cached = t.input == "cached"
    cursor = 0

    def one_step():
        nonlocal cursor
        if cached:
            batches = [data.cached] * micro
        else:
            batches = [data.host_to_device(cursor + i) for i in range(micro)]
            cursor += micro
        step_fn(s, batches)

    for _ in range(t.warmup_steps):
        one_step()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    samples = []
    for _ in range(t.repetitions):
        samples.append(t.measured_steps * spec.effective_batch() / timed_seconds(device, t.measured_steps, one_step))
    if device.type == "cuda":
        peak, kind = int(torch.cuda.max_memory_allocated(device)), "cuda_allocator_peak"
    else:
        peak, kind = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "process_max_rss"
    srt = sorted(samples)
    q = statistics.quantiles(srt, n=4, method="inclusive") if len(srt) > 1 else [srt[0]] * 3
    median = statistics.median(samples)
    stddev = statistics.stdev(samples) if len(samples) > 1 else 0.0
    flops = M.training_flops_per_sample(spec.model, spec.sizes)
    return {"unit": "samples/s", "timing": "cuda_events" if device.type == "cuda" else "steady_clock",
            "input": t.input, "warmup_steps": t.warmup_steps,
            "measured_steps": t.measured_steps, "repetitions": len(samples), "samples_per_s": samples,
            "median": median, "min": min(samples), "max": max(samples),
            "iqr": q[2] - q[0], "stddev": stddev, "cv": stddev / statistics.fmean(samples),
            "step_time_ms": 1e3 * spec.effective_batch() / median,
            "training_flops_per_sample": flops, "achieved_flops_per_s": median * flops,
            "speedup_vs_fp32": None, "peak_memory_bytes": peak, "peak_memory_kind": kind}


def timed_seconds(device: torch.device, steps: int, one_step) -> float:
    """harness/runner/timer.cpp: CUDA events around the region on CUDA (after
    a synchronize, so earlier work is not counted), a steady clock on CPU."""
    synchronize(device)
    if device.type == "cuda":
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(steps):
            one_step()
        end.record()
        end.synchronize()
        synchronize(device)
        return begin.elapsed_time(end) / 1000.0
    began = time.perf_counter()
    for _ in range(steps):
        one_step()
    return time.perf_counter() - began


def skip_reason(spec: Spec) -> str:
    """Why a case is not run: the C++ runner's reason off CUDA (so the two
    results files agree), else what the Python reference lacks."""
    if spec.torchscript:
        return ("the Python bench times the registered families; a model given by file is cross-checked "
                "(reference.python.check), not timed")
    if spec.cuda_graph:
        if spec.device != "cuda":
            return f"CUDA-graph capture needs a CUDA device, not {spec.device}"
        return "the Python reference does not capture CUDA graphs (compare the case without +graph)"
    if spec.gpu_sized and spec.device != "cuda":
        return (f"sized for a GPU (the suite is \"gpu_sized\"): on {spec.device} it would run for hours; "
                "run it with --device cuda")
    if spec.precision in CUDA_ONLY_PRECISIONS and spec.device != "cuda":
        return (f"{spec.precision} is CUDA tensor-core math; on {spec.device} it would be IEEE fp32, "
                "identical to the baseline")
    return BENCH_NOT_RUN_REASON[spec.precision]


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def case_json(spec: Spec, trajectory: dict | None, throughput: dict | None, status=Status.PASS, reason=None,
              wall=0.0) -> dict:
    return {
        "id": spec.id, "workload": spec.workload, "variant": spec.variant, "model": spec.model,
        "precision": spec.precision, "optimizer": spec.optimizer, "optimizer_impl": spec.optimizer_impl, "tag": spec.tag,
        "scaler_enabled": spec.scaler_enabled, "device": spec.device, "world_size": spec.world_size,
        "batch_size": spec.effective_batch(), "steps": spec.steps, "seed": spec.seed, "expect": spec.expect,
        "status": status.value, "conforms": None if status is Status.SKIPPED else status is Status.PASS,
        "reason": reason,
        "baseline_id": spec.baseline_id or None,
        "trajectory": trajectory or {"loss": [], "scale": [], "skipped": []},
        "fp32_noise": None, "check": None, "throughput": throughput, "ddp": None, "wall_seconds": wall,
    }


def write_atomically(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference.python.bench",
                                     description="Time the Python reference workloads on a suite "
                                                 "(same loops, sizes and timing as `ampbench run`).")
    parser.add_argument("--suite", default="smoke", help="suite name (suites/NAME.json) or path [smoke]")
    parser.add_argument("--out", type=Path, help="results JSON to write "
                                                 "[results/SUITE-DEVICE-python-TIME/results.json]")
    parser.add_argument("--filter", help="only cases whose id matches this regex")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--optimizer-impl", choices=("loop", "foreach", "fused"),
                        help="run every case with this optimizer implementation (loop: LibTorch's update, as "
                             "the C++ loop cases step; foreach, fused: torch.optim's foreach=True, fused=True) "
                             "instead of the suite's; ids change as ampbench names them")
    parser.add_argument("--compile", action="store_true",
                        help="torch.compile each model (the step stays eager); the results' env says so "
                             "(env.python_torch_compile), the warm-up steps absorb the compilation, and each "
                             "case is \"skipped\" with its throughput: timed, not checked")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads (0: LibTorch's default, as the C++ binary)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        print("bench: error: --device cuda: no CUDA device is available on this machine", file=sys.stderr)
        return EXIT_USAGE
    try:
        suite = load_suite(args.suite, device)
        if args.optimizer_impl:
            suite.cases = with_optimizer_impl(suite.cases, args.optimizer_impl)
        rx = re.compile(args.filter) if args.filter else None
    except (SuiteError, re.error) as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    # Timed cases only: negative controls and disabled throughput are not
    # measured by the C++ harness either; "report" cases (O3) are.
    # --filter keeps the matching cases and their fp32 baselines, as
    # select_cases in harness/session/suite_run.cpp.
    keep = {c.id for c in suite.cases if rx is None or rx.search(c.id)}
    keep |= {c.baseline_id for c in suite.cases if c.id in keep and c.baseline_id}
    cases = [c for c in suite.cases if c.id in keep and c.throughput.enabled and c.expect != Expect.FAIL]
    if not cases:
        print(f"bench: error: no timed case of suite {suite.name} matches '{args.filter}'", file=sys.stderr)
        return EXIT_USAGE
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    out = args.out or Path("results") / f"{suite.name}-{device}-python-{utc_now().replace(':', '-')}" / "results.json"
    doc = {"schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION, "suite": suite.name, "suite_file": suite.path,
           "started_utc": utc_now(), "finished_utc": None, "complete": False,
           "env": {**environment(), "python_torch_compile": args.compile}, "cases": []}
    try:
        write_atomically(out, doc)
    except OSError as e:
        print(f"bench: error: {out}: cannot write: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(f"suite {suite.name}: {len(cases)} timed cases on {device} (python, "
          f"{torch.get_num_threads()} threads) -> {out}", flush=True)
    # Inductor's default cache is every process's of this user, and its keys
    # miss the vector ISA: kernels another run made under ATEN_CPU_CAPABILITY
    # gave this one wrong losses (reference/python/compiled/toolchain.py).
    with own_inductor_cache() if args.compile else contextlib.nullcontext():
        dev = torch.device(device)
        errors = 0
        medians = {}  # case id -> median samples/s, for speedup over the fp32 case
        for i, spec in enumerate(cases, 1):
            began = time.monotonic()
            not_here = spec.cuda_graph or (spec.gpu_sized and spec.device != "cuda")
            if spec.precision in BENCH_NOT_RUN_REASON or not_here:
                reason = skip_reason(spec)
                doc["cases"].append(case_json(spec, None, None, status=Status.SKIPPED, reason=reason))
                write_atomically(out, doc)
                print(f"[{i:3}/{len(cases)}] {spec.id:<52} skipped  {reason}", flush=True)
                continue
            try:
                with ieee_fp32():  # as the C++ runner's Float32MathGuard, for the whole case
                    traj = train_recorded(spec, dev, args.compile)
                    tp = measure_throughput(spec, dev, args.compile)
                if spec.baseline_id in medians:
                    tp["speedup_vs_fp32"] = tp["median"] / medians[spec.baseline_id]
                medians[spec.id] = tp["median"]
                if args.compile:  # timed, not judged: never a "pass" no check gave
                    case = case_json(spec, traj, tp, status=Status.SKIPPED, reason=COMPILED_UNCHECKED,
                                     wall=time.monotonic() - began)
                else:
                    case = case_json(spec, traj, tp, wall=time.monotonic() - began)
                line = f"{tp['median']:12.1f} samples/s"
            except Exception as e:  # noqa: BLE001 - recorded as an error case, the run goes on
                errors += 1
                case = case_json(spec, None, None, status=Status.ERROR, reason=f"{type(e).__name__}: {e}",
                                 wall=time.monotonic() - began)
                line = f"error: {e}"
            doc["cases"].append(case)
            write_atomically(out, doc)
            print(f"[{i:3}/{len(cases)}] {spec.id:<52} {line}", flush=True)
    doc["finished_utc"], doc["complete"] = utc_now(), True
    write_atomically(out, doc)
    print(f"results: {out}")
    return EXIT_FAILURE if errors else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
