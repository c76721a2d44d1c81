"""The report's outline: which sections, tables and figures, in what order."""

from __future__ import annotations

from . import tables
from .anchors import verdict_heading
from .blocks import Bullets, Details, Heading, Image, Text
from .ceilings import has_achieved_flops, run_ceilings
from .engagement import engagement_tables
from .compiled import compiled_section
from .cpu_precision import half_precision_note
from .convergence import convergence_cases
from .implementations import implementation_line, implementation_pairs, implementation_section
from .gradients import health_cases
from .comparison_blocks import (change_heading, change_table, comparison_summary,
                                headline_side_by_side)
from .summary import headline_table, verdict_blocks

CURVE_SECTIONS = (  # (figure kind, heading) in reading order inside a run
    ("loss", "Loss curves"),
    ("deviation", "Deviation from the fp32 baseline"),
    ("scale", "fp16 loss scale"),
)
DDP_SECTION = ("ddp", "Distributed scaling")


def build_document(runs, figures, title: str = "ampbench report", preamble=()) -> list:
    # Answer first: the verdict and the headline numbers fill the first
    # screen; the environment that qualifies them follows in one line each.
    blocks = [Heading(1, title), *preamble, *_summary_section(runs), *_environment_section(runs)]
    if len(runs) > 1:
        blocks += _comparison_section(runs, [f for f in figures if f.run_tag is None])
    for run in runs:
        blocks += _run_section(run, [f for f in figures if f.run_tag == run.tag])
    return blocks


def _summary_section(runs) -> list:
    # Several files: the comparison is what the reader came for, so it leads.
    blocks = [Heading(2, "Summary"), *(comparison_summary(runs) if len(runs) > 1 else [])]
    blocks += [line for pair in implementation_pairs(runs) if (line := implementation_line(*pair))]
    for run in runs:
        blocks += verdict_blocks(run, compact=len(runs) > 1)
    if len(runs) == 1:
        return blocks + [Text("Headline per model and precision: samples/s and speedup of the plain "
                              "training loop (the headline case), the speedup over all timed cases, MFU "
                              "where the hardware ceilings were measured."),
                         headline_table(runs[0])]
    return blocks + [Text("Headline per model and precision, side by side: the plain training loop's "
                          "samples/s, its ratio to run1 with the ~95% interval from the repetitions, "
                          "speedup over fp32 and MFU of each run."),
                     headline_side_by_side(runs)]


def _environment_section(runs) -> list:
    return [Heading(2, "Environment"),
            Bullets(tuple(tables.env_line(r) for r in runs)),
            Details("Every recorded environment value", (tables.env_table(runs),))]


def _comparison_section(runs, figures) -> list:
    blocks = [Heading(2, "Comparison across result files"), *implementation_section(runs)]
    for other in runs[1:]:
        blocks += [Heading(3, change_heading(other)),
                   Text("Every case measured in both files, largest slowdown first. The interval and "
                        "p come from the repetitions (Mann-Whitney U, as ampbench gate); q is p "
                        "adjusted over the rows (Benjamini-Hochberg). A change counts when q < 0.05 "
                        "and the ratio is beyond the minimum effect. With one run per file, a "
                        "machine's run-to-run offset reads as a change too (on a shared 2-core VM, "
                        "back-to-back runs of one build differ by up to ~15%); for a verdict, gate "
                        "several interleaved runs per side (ampbench gate --paired)."),
                   *_images(f for f in figures if f.name == f"ratio_{other.tag}.png"),
                   change_table(runs, other)]
    blocks += [Heading(3, "Throughput per file"),
               Text("Throughput of the same case id in each file; ratios are relative to run1."),
               tables.compare_throughput_table(runs)]
    blocks += _images(f for f in figures if f.kind != "ratio")
    blocks += [Heading(3, "Cases whose verdict differs between files")]
    diff = tables.verdict_difference_table(runs)
    blocks.append(diff if diff.rows else Text("None: every case has the same status in every file."))
    return blocks


def _run_section(run, figures) -> list:
    level = 2
    blocks = [Heading(level, f"{run.label} (suite {run.results.suite})")]
    blocks += [Text(w, warning=True) for w in tables.run_warnings(run)]
    blocks += [Heading(level + 1, verdict_heading(run)), Bullets(tuple(tables.verdict_summary(run))),
               tables.verdict_table(run)]
    blocks += _engagement_section(run, level + 1)
    blocks += [Heading(level + 1, "Throughput")]
    if note := half_precision_note(run.env):
        blocks.append(Text(note))
    throughput = tables.throughput_table(run)
    blocks.append(throughput if throughput.rows else Text("No throughput was measured in this run."))
    by_precision = tables.precision_columns_table(run)
    if by_precision:
        blocks += [Text("Side by side per precision: median samples/s (× its fp32 baseline) and verdict."),
                   by_precision]
    blocks += _images(f for f in figures if f.kind == "throughput")
    # Optional sections (ceilings, utilisation, gradient health) are left out
    # entirely when the file predates them: a heading per missing feature
    # would bury the sections that do have data.
    blocks += _ceilings_section(run, level + 1)
    blocks += _utilisation_section(run, figures, level + 1)
    blocks += _convergence_section(run, figures, level + 1)
    for kind, heading in CURVE_SECTIONS:
        blocks += _figure_section(kind, heading, figures, level + 1)
    blocks += _scaler_section(run, figures, level + 1)  # right after the loss scale it explains
    blocks += _fp8_section(run, figures, level + 1)
    blocks += compiled_section(run, level + 1)
    blocks += _figure_section(*DDP_SECTION, figures, level + 1)
    return blocks


def _engagement_section(run, level) -> list:
    per_workload = engagement_tables(run)
    if not per_workload:
        return []  # schema 1 files record no engagement
    blocks = [Heading(level, "Engagement: what each mechanism did"),
              Text("A case whose mechanism never engages checks nothing: ampbench makes it an error. "
                   "'after clip / limit' is the largest gradient norm (clip_norm) or |gradient| "
                   "(clip_value) after clipping over the limit; above 1 the clip did not bound them.")]
    for workload, table in per_workload:
        blocks += [Heading(level + 1, workload), table]
    return blocks


def _figure_section(kind, heading, figures, level) -> list:
    chosen = [f for f in figures if f.kind == kind]
    return [Heading(level, heading), *(_images(chosen) or [Text(_absent_note(kind))])]


def _ceilings_section(run, level) -> list:
    ceilings = run_ceilings(run)
    if ceilings is None:
        return []
    return [Heading(level, "Hardware ceilings"),
            Text("Measured by ampbench qualify on the machine of this run: memory bandwidth from a large "
                 "device copy (bytes read + written per second), matmul rate from an n×n×n GEMM "
                 "per dtype (2n³ FLOP per product); medians of the repetitions."),
            tables.ceilings_table(ceilings)]


def _utilisation_section(run, figures, level) -> list:
    if not has_achieved_flops(run):
        return []
    return [Heading(level, "Utilisation"),
            Text("Achieved FLOP/s = median samples/s × analytic training FLOPs per sample. "
                 "MFU = achieved FLOP/s over the measured matmul ceiling of the case's precision "
                 "(fp32 → fp32, fp16 → fp16, bf16 → bf16, tf32 → tf32). The ceiling ratio is that "
                 "ceiling over the fp32 one: the speedup the matmul units alone would allow, to set against "
                 "the measured speedup."),
            tables.utilisation_table(run),
            *_images(f for f in figures if f.kind == "utilisation")]


def _convergence_section(run, figures, level) -> list:
    if not convergence_cases(run.cases):
        return []  # any other suite: its cases train a few dozen steps, with no seeds to average
    return [Heading(level, "Convergence to quality"),
            Text("Each converge case trains from every seed of the suite to the end of its schedule; the "
                 "verdicts above judge its seeds' steps to the target accuracy and final accuracy against "
                 "fp32's (docs/convergence.md). The figure draws each case's mean over its seeds at every "
                 "evaluation: a correct precision that converges like fp32 lies on fp32's line, inside "
                 "its band of seed-to-seed spread; a control the rule catches ends below the target, or "
                 "reaches it later than fp32."),
            *_images(f for f in figures if f.kind == "convergence")]


def _scaler_section(run, figures, level) -> list:
    if not health_cases(run):
        return []
    return [Heading(level, "Why the scaler matters"),
            Text("Fraction of gradient values below float16's smallest subnormal (2⁻²⁴ ≈ 6e-8), "
                 "which a cast to fp16 turns into 0: at scale 1 (training without a loss scaler) "
                 "and at the scale the scaler used. Means over optimizer steps; a step with "
                 "non-finite gradients is one the scaler skips."),
            tables.grad_health_table(run),
            *_images(f for f in figures if f.kind == "underflow")]


def _fp8_section(run, figures, level) -> list:
    chosen = [f for f in figures if f.kind == "fp8"]
    if not chosen:
        return []  # a run without FP8 cases
    blocks = [Heading(level, "FP8 scales"),
              Text("The scale each FP8 recipe multiplies a GEMM operand by before the cast to 8 bits "
                   "(fp8_max / amax), per step and converted Linear layer: tensorwise from the current "
                   "amax, delayed from the amax history of earlier steps. Rowwise scales are per row "
                   "and not drawn."),
              *_images(chosen)]
    ranges = tables.fp8_range_table(run)
    if ranges:
        blocks += [Text("What the casts lost to the 8-bit range over the recorded run, per converted layer: "
                        "the fraction of values past the largest finite value (clamped, or NaN/inf without "
                        "saturation) and of non-zero values flushed to zero."), ranges]
    return blocks


def _images(figures) -> list:
    return [Image(f.name, f.title) for f in figures]


def _absent_note(kind: str) -> str:
    return {
        "loss": "No loss trajectories in this run.",
        "deviation": "No fp16/bf16/tf32 checks against fp32 in this run.",
        "scale": "No fp16 cases with a loss-scale trajectory in this run.",
        "ddp": "No distributed (DDP / DataParallel) cases in this run.",
    }[kind]
