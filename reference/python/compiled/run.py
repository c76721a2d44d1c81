"""One dumped case trained through torch.compile: the recorded run (cold
compile, from the dumped initial state on the dumped batches, through
replay's own loop), its throughput, the fullgraph probe, and a second run
that compiles warm from the FX graph cache."""

from __future__ import annotations

import torch

from ..fp32_math import ieee_fp32
from ..replay import CaseDump, replay
from . import compiling, fullgraph, ledger, record
from .errors import CaseError
from .fault import make as make_fault
from .options import Options
from .timing import StepClock, throughput
from .toolchain import fresh_cache_dir, inductor_settings


class _Hooks:
    """replay's hooks: compile the models (prepare), then the optimizer
    steps and the clock (on_state), tick per step (on_step)."""

    def __init__(self, opts: Options):
        self.opts, self.clock, self.state, self.initial = opts, StepClock(), None, None

    def prepare(self, models):
        compiling.compile_models(models, self.opts)

    def on_state(self, s):
        self.state = s
        self.initial = record.trained_params(s)
        compiling.compile_optimizer_steps(s, self.opts)
        self.clock.start()

    def on_step(self, s, step):
        self.clock.tick()


def _recorded(case: CaseDump, device: torch.device, opts: Options) -> tuple:
    hooks, book = _Hooks(opts), ledger.Ledger()
    ledger.reset_compiler()
    with book.recording(), ieee_fp32():
        run = replay(case, device=str(device), prepare=hooks.prepare, on_state=hooks.on_state,
                     on_step=hooks.on_step, from_module=True)
    s = hooks.state
    out = {"loss": run.loss, "scale": run.scale, "skipped": run.skipped,
           "optimizer_skipped": run.extra["optimizer_skipped"], "initial_params": hooks.initial,
           "final_params": record.trained_params(s),
           "optimizer_state": record.flat(t for _, t in run.optimizer_state)}
    if record.has_batchnorm(s):
        # runner.cpp probes on the first batch of the run's data: the first dumped one.
        out["final_probe"] = record.probe_outputs(s, case.inputs[0])
    return out, hooks, book


def _warm(case: CaseDump, device: torch.device, opts: Options, cold: dict) -> dict:
    """A second run after torch._dynamo.reset(): the FX graph cache now holds
    every graph.  Its compile seconds, its first step's, and whether it
    trained bit for bit as the cold run did (a cache must not change a
    result)."""
    hooks, book = _Hooks(opts), ledger.Ledger()
    ledger.reset_compiler(in_memory_kernels=True)
    with book.recording(), ieee_fp32():
        run = replay(case, device=str(device), prepare=hooks.prepare, on_state=hooks.on_state,
                     on_step=hooks.on_step, from_module=True)
    same = (_same(run.loss, cold["loss"]) and run.scale == cold["scale"]
            and _same(record.trained_params(hooks.state), cold["final_params"]))
    return {"seconds_warm": book.seconds, "first_step_seconds_warm": hooks.clock.first, "warm_matches_cold": same,
            "cache_warm": ledger.cache_counts()}


def _same(a: list, b: list) -> bool:
    """Bitwise, NaN equal to NaN."""
    return len(a) == len(b) and all(x == y or (x != x and y != y) for x, y in zip(a, b))


def run_case(case: CaseDump, device: torch.device, opts: Options) -> dict:
    fault = make_fault(opts.fault)
    cache = opts.cache_dir or case.folder / "compiled-cache"
    kept = False
    if not opts.eager:  # the eager control leaves the cache alone
        kept = fresh_cache_dir(cache, opts.reuse_cache)
    with inductor_settings(opts, cache, fault):
        traj, hooks, book = _recorded(case, device, opts)
        compile_block = None if opts.eager else ledger.summary(book, case.spec.model_count())
        dropped = fault.dropped if fault is not None else 0
        if fault is not None and dropped == 0:
            raise CaseError(f"--fault {opts.fault}: the compiled graphs hold no autocast cast to drop "
                            f"(a {case.spec.precision} case; the fault needs fp16 or bf16)")
        tp = None
        if opts.throughput_steps > 0:
            hooks.state.replays_masks = False  # timing only: no per-forward reseeding
            batches = [(x.to(device), y.to(device)) for x, y in zip(case.inputs, case.labels)]
            with ieee_fp32():
                tp = throughput(hooks.state, batches, opts.throughput_steps, opts.throughput_repetitions,
                                opts.throughput_warmup)
        hooks.state = None
        if compile_block is not None:
            compile_block["first_step_seconds_cold"] = hooks.clock.first
            compile_block["steady_step_seconds"] = hooks.clock.steady
            compile_block["fullgraph"] = (fullgraph.probe(case, device) if opts.fullgraph_check
                                          else {"ok": None, "reason": "not probed (--no-fullgraph-check)"})
            compile_block.update(_warm(case, device, opts, traj))
            compile_block["fault_casts_dropped"] = dropped
            compile_block["cache_emptied"] = not kept
    return {"schema": record.SCHEMA, "schema_version": record.VERSION, "case_id": case.spec.id,
            "mode": opts.record_mode, "compile_step": bool(opts.compile_step and not opts.eager),
            "emulate_precision_casts": opts.emulate_precision_casts, "fault": opts.fault,
            "torch_version": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
            **traj, "compile": compile_block, "throughput": tp}
