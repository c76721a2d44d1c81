"""Time as a result: the first step of a run (where compilation happens)
apart from the steps after it, and steady-state throughput measured as the
C++ harness measures it (runner.cpp measure_throughput: untimed warm-up
steps, then repetitions of a timed run of steps, samples/s each)."""

from __future__ import annotations

import statistics
import time

from ..bench import timed_seconds
from ..workloads import STEPS


class StepClock:
    """Seconds per step of a replay: start() in its on_state hook, tick() in
    its on_step hook."""

    def __init__(self):
        self.seconds: list[float] = []
        self._last = None

    def start(self, _state=None) -> None:
        self._last = time.perf_counter()

    def tick(self, _state=None, _step=None) -> None:
        now = time.perf_counter()
        self.seconds.append(now - self._last)
        self._last = now

    @property
    def first(self) -> float | None:
        return self.seconds[0] if self.seconds else None

    @property
    def steady(self) -> float | None:
        """The median step after the first."""
        return statistics.median(self.seconds[1:]) if len(self.seconds) > 1 else None


def throughput(state, batches: list, steps: int, repetitions: int, warmup: int) -> dict:
    """samples/s per repetition of `steps` steps on the case's first
    micro-batches held resident (the C++ "cached" input), the step index past
    the run so no inf is injected again.  `state` is the trained state of a
    recorded run: its compiled models are warm."""
    spec = state.spec
    step_fn, micro = STEPS[spec.workload], spec.micro_batches()
    resident = batches[:micro]
    state.step_index = spec.steps

    def one_step():
        state.optimizer_skipped = [False] * len(state.optimizers)
        step_fn(state, resident)

    for _ in range(warmup):
        one_step()
    samples = spec.effective_batch() * steps
    per_s = [samples / timed_seconds(state.device, steps, one_step) for _ in range(repetitions)]
    return {"unit": "samples/s", "input": "cached", "warmup_steps": warmup, "measured_steps": steps,
            "repetitions": repetitions, "samples_per_step": spec.effective_batch(), "samples_per_s": per_s,
            "median": statistics.median(per_s)}
