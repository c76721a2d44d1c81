"""Which figures a report gets, their file names, and drawing them.

Figure count is bounded by workloads, not cases: one figure per workload and
kind (panels per model), so a ~100-case suite stays readable and fast.
Each drawing function returns None when it has nothing to show (no fp16
cases, no DDP block, one file only); that figure is then simply absent.

Figures are independent, so they are drawn in parallel worker processes;
matplotlib spends ~0.4 s of CPU per figure and a two-file comparison of a
full suite has ~50 of them.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

from ..convergence import convergence_cases
from ..runs import group_by
from .compare import compare_figure, compare_workloads
from .implementations import implementation_figure, implementation_pairs
from .ratio import ratio_figure
from .convergence import convergence_caption, convergence_figure
from .curves import deviation_figure, loss_figure, scale_figure
from .ddp import ddp_figure
from .fp8_scales import fp8_scale_figure
from .style import plain_text, save
from .throughput import throughput_figure
from .underflow import underflow_figure
from .utilisation import utilisation_figure

MAX_WORKERS = 8


@dataclass(frozen=True)
class FigureFile:
    name: str          # file name inside the report folder (relative link)
    kind: str          # throughput | utilisation | convergence | loss | deviation | scale | underflow | fp8 | ddp | compare | ratio
    title: str
    run_tag: str | None = None   # None for figures spanning several runs


@dataclass(frozen=True)
class Job:
    spec: FigureFile
    draw: object       # module-level function (picklable) returning Figure or None
    args: tuple


# (kind, title prefix, drawing function) for the per-workload curve figures.
CURVE_KINDS = (
    ("loss", "Loss curves", loss_figure),
    ("deviation", "Deviation from fp32", deviation_figure),
    ("scale", "fp16 loss scale", scale_figure),
)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def render_figures(runs, out_dir: Path, jobs: int | None = None) -> list:
    """Draw every planned figure into out_dir; return the FigureFiles written,
    in reading order."""
    plan = comparison_jobs(runs) + [job for run in runs for job in run_jobs(run)]
    workers = _worker_count(jobs, len(plan))
    if workers <= 1:
        written = [_draw_and_save(job, out_dir) for job in plan]
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            written = list(pool.map(_draw_and_save, plan, repeat(out_dir)))
    return [spec for spec in written if spec is not None]


def run_jobs(run) -> list:
    tag = run.tag
    jobs = [Job(FigureFile(f"{tag}_throughput.png", "throughput", "Throughput", tag),
                throughput_figure, (run,)),
            Job(FigureFile(f"{tag}_utilisation.png", "utilisation", "Model FLOP utilisation", tag),
                utilisation_figure, (run,))]
    for workload, cases in group_by(run.cases, "workload").items():
        jobs += convergence_jobs(run, workload, cases)
        for kind, title, draw in CURVE_KINDS:
            spec = FigureFile(f"{tag}_{kind}_{slug(workload)}.png", kind, f"{title}: {workload}", tag)
            jobs.append(Job(spec, draw, (run, workload, cases)))
    jobs.append(Job(FigureFile(f"{tag}_underflow.png", "underflow",
                               "fp16 gradient underflow without and with the scaler", tag),
                    underflow_figure, (run,)))
    jobs.append(Job(FigureFile(f"{tag}_fp8_scales.png", "fp8", "FP8 scales per step", tag),
                    fp8_scale_figure, (run,)))
    jobs.append(Job(FigureFile(f"{tag}_ddp.png", "ddp", "Distributed scaling", tag), ddp_figure, (run,)))
    return jobs


def convergence_jobs(run, workload, cases) -> list:
    """Only for a workload whose cases recorded their seeds' runs; the
    caption is worded from their rule (how the band is trimmed)."""
    shown = convergence_cases(cases)
    if not shown:
        return []
    title = convergence_caption(workload, shown)
    return [Job(FigureFile(f"{run.tag}_convergence_{slug(workload)}.png", "convergence", title, run.tag),
                convergence_figure, (run, workload, cases))]


def comparison_jobs(runs) -> list:
    if len(runs) < 2:
        return []
    jobs = [Job(FigureFile(f"ratio_{run.tag}.png", "ratio", f"{run.tag} against {runs[0].tag}, per case"),
                ratio_figure, (runs, k))
            for k, run in enumerate(runs) if k > 0]
    jobs += [Job(FigureFile(f"compare_{slug(w)}.png", "compare", f"Across files: {w}"),
                compare_figure, (runs, w))
            for w in compare_workloads(runs)]
    if implementation_pairs(runs):
        jobs.append(Job(FigureFile("implementations.png", "compare", "C++ against Python, per case"),
                        implementation_figure, (runs,)))
    return jobs


def _draw_and_save(job: Job, out_dir: Path):
    with plain_text():
        fig = job.draw(*job.args)
        if fig is None:
            return None
        save(fig, Path(out_dir) / job.spec.name)
    return job.spec


def _worker_count(requested: int | None, job_count: int) -> int:
    """Processes to use: the request, else the CPUs this process may run on.
    fork is required: spawn would re-import matplotlib per worker (~1 s)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    wanted = requested if requested is not None else min(available or 1, MAX_WORKERS)
    return max(1, min(wanted, job_count))
