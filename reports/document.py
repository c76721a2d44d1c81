"""The report's outline: which sections, tables and figures, in what order."""

from __future__ import annotations

from . import tables
from .blocks import Bullets, Heading, Image, Text

SECTION_FIGURES = (  # (figure kind, heading) in reading order inside a run
    ("loss", "Loss curves"),
    ("deviation", "Deviation from the fp32 baseline"),
    ("scale", "fp16 loss scale"),
    ("ddp", "Distributed scaling"),
)


def build_document(runs, figures) -> list:
    blocks = [Heading(1, "ampbench report"),
              Text("Result files: " + ", ".join(f"{r.tag} = {r.path.name}" for r in runs) + "."),
              Heading(2, "Environment"),
              tables.env_table(runs)]
    if len(runs) > 1:
        blocks += _comparison_section(runs, [f for f in figures if f.run_tag is None])
    for run in runs:
        blocks += _run_section(run, [f for f in figures if f.run_tag == run.tag])
    return blocks


def _comparison_section(runs, figures) -> list:
    blocks = [Heading(2, "Comparison across result files"),
              Text("Throughput of the same case id in each file; ratios are relative to run1."),
              tables.compare_throughput_table(runs)]
    blocks += _images(figures)
    blocks += [Heading(3, "Cases whose verdict differs between files")]
    diff = tables.verdict_difference_table(runs)
    blocks.append(diff if diff.rows else Text("None: every case has the same status in every file."))
    return blocks


def _run_section(run, figures) -> list:
    level = 2
    blocks = [Heading(level, f"{run.label} (suite {run.data['suite']})")]
    blocks += [Text(w, warning=True) for w in tables.run_warnings(run)]
    blocks += [Heading(level + 1, "Verdicts"), Bullets(tuple(tables.verdict_summary(run))),
               tables.verdict_table(run)]
    blocks += [Heading(level + 1, "Throughput")]
    throughput = tables.throughput_table(run)
    blocks.append(throughput if throughput.rows else Text("No throughput was measured in this run."))
    blocks += _images(f for f in figures if f.kind == "throughput")
    for kind, heading in SECTION_FIGURES:
        chosen = [f for f in figures if f.kind == kind]
        blocks.append(Heading(level + 1, heading))
        blocks += _images(chosen) or [Text(_absent_note(kind))]
    return blocks


def _images(figures) -> list:
    return [Image(f.name, f.title) for f in figures]


def _absent_note(kind: str) -> str:
    return {
        "loss": "No loss trajectories in this run.",
        "deviation": "No fp16/bf16 checks against fp32 in this run.",
        "scale": "No fp16 cases with a loss-scale trajectory in this run.",
        "ddp": "No distributed (DDP / DataParallel) cases in this run.",
    }[kind]
