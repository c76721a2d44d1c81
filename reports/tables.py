"""Tables and summary lines of the report, as plain strings.

Number formats live here and nowhere else, so the Markdown, the HTML and the
tests all see the same text for the same JSON value.
"""

from __future__ import annotations

from reference.python.results_file import Expect, Status

from . import gradients
from .blocks import Fold, Table
from .ceilings import matmul_ceilings, utilisation
from .anchors import case_anchor
from .runs import ordered_unique, precision_key, speedup, verdict_text
from .tally import counts_phrase

ENV_ROWS = ("host", "os", "cpu_model", "cpu_id", "cpu_cores", "device", "gpu_name",
            "compute_capability", "driver", "cuda_runtime", "cudnn", "nccl",
            "libtorch_version", "torch_build", "compiler", "git_commit", "git_dirty")
# env keys with a table of their own; as one-liners they would be unreadable.
ENV_OWN_TABLES = ("ceilings",)
DASH = "—"
FOLD_AT = 80   # characters: longer environment values fold (the float32 math state is ~600)


def make_table(headers, rows, verdict_columns=(), row_ids=()) -> Table:
    return Table(tuple(headers), [tuple(r) for r in rows], tuple(verdict_columns), tuple(row_ids))



# -- number formats ---------------------------------------------------------

def fmt_rate(value) -> str:
    """samples/s: one decimal is plenty above 10, keep 4 significant below."""
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.4g}"


def fmt_ratio(value) -> str:
    return DASH if value is None else f"{value:.2f}×"


def fmt_small(value) -> str:
    return DASH if value is None else f"{value:.3g}"


def fmt_bytes(value) -> str:
    return "n/a" if value is None else f"{value / 2**20:.1f} MiB"


def fmt_measure(value) -> str:
    """GB/s, TFLOP/s, GFLOP/s: three significant digits, no exponent above 100."""
    if value is None:
        return DASH
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def fmt_percent(fraction) -> str:
    return DASH if fraction is None else f"{100 * fraction:.3g}%"


def fmt_value(value) -> str:
    if isinstance(value, dict):  # torch_build, ceilings: compact one-liners
        return ", ".join(f"{k}={fmt_value(v)}" for k, v in value.items()) or DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    return DASH if value is None else str(value)


# -- environment --------------------------------------------------------------

def env_table(runs):
    meta = [("file", lambda r: r.path.name), ("suite", lambda r: r.results.suite),
            ("started (UTC)", lambda r: r.results.started_utc),
            ("finished (UTC)", lambda r: r.results.finished_utc),
            ("complete", lambda r: r.results.complete), ("cases", lambda r: len(r.cases))]
    rows = [(name, *(fmt_value(get(r)) for r in runs)) for name, get in meta]
    rows += [(key, *(_folded(fmt_value(r.env.get(key))) for r in runs)) for key in _env_keys(runs)]
    return make_table(["", *(r.tag for r in runs)], rows)


def _folded(text: str):
    return Fold(text) if len(text) > FOLD_AT else text


def env_line(run) -> str:
    """The environment in one line: what a reader needs to place the numbers."""
    results, env = run.results, run.env
    commit = env.get("git_commit") or "?"
    dirty = " (uncommitted changes)" if env.get("git_dirty") is True else ""
    span = " – ".join(str(t) for t in (results.started_utc, results.finished_utc) if t)
    state = "" if results.complete else ", INCOMPLETE"
    return (f"{run.label}; suite {results.suite}, {len(run.cases)} cases{state}; "
            f"commit {commit}{dirty}; {span or 'time not recorded'}; file {run.path.name}")


def _env_keys(runs) -> list:
    """Known keys in a fixed order, then any newer keys a writer added."""
    extra = ordered_unique(k for r in runs for k in r.env
                           if k not in ENV_ROWS and k not in ENV_OWN_TABLES)
    return list(ENV_ROWS) + extra


# -- verdicts -------------------------------------------------------------------

def run_warnings(run) -> list:
    warnings = []
    if not run.results.complete:
        warnings.append(f"{run.path.name} is incomplete (run interrupted or still running): "
                        f"only the {len(run.cases)} finished cases are shown.")
    # `ampbench run` printed the same WARNING (harness/amp/float32_math.h).
    math = run.env.get("float32_math")
    if isinstance(math, dict) and math.get("fp32_is_ieee") is False:
        reasons = "; ".join(math.get("fp32_not_ieee_reasons") or []) or "no reason recorded"
        warnings.append(f"{run.path.name}: fp32 is not IEEE float32 in this run, so the fp32 baselines "
                        f"are not the reference they claim to be: {reasons}.")
    return warnings


def verdict_summary(run) -> list:
    lines = [f"{len(run.cases)} cases: " + counts_phrase(run)]
    lines.append(negative_control_line(run.cases))
    reported = [c for c in run.cases
                if c.expect is Expect.REPORT and c.status in (Status.PASS, Status.FAIL)]
    if reported:
        failed = sum(1 for c in reported if c.status is Status.FAIL)
        lines.append(f"{len(reported)} verdict(s) reported, not required (O3): {len(reported) - failed} pass, "
                     f"{failed} fail")
    bad = [c.id for c in run.cases if c.conforms is False]
    lines.append(f"{len(bad)} case(s) do not conform to their expectation: {', '.join(bad)}"
                 if bad else "Every case that ran conforms to its expectation.")
    return lines


def negative_control_line(cases) -> str:
    """Kill count: a negative control is caught when the checker failed it."""
    controls = [c for c in cases if c.expect is Expect.FAIL]
    if not controls:
        return "No negative controls in this run."
    caught = sum(1 for c in controls if c.status is Status.FAIL)
    skipped = sum(1 for c in controls if c.status is Status.SKIPPED)
    note = f" ({skipped} skipped)" if skipped else ""
    return f"{caught} of {len(controls)} negative controls caught{note}"


def verdict_table(run):
    headers = ("case", "expect", "status", "conforms", "max loss dev / tol",
               "distance / bound (metric, step)", "first crossing step", "reason / failures")
    return make_table(headers, [_verdict_row(c) for c in run.cases], verdict_columns=(2,),
                  row_ids=[case_anchor(run, c.id) for c in run.cases])


def _verdict_row(case) -> tuple:
    check = case.check
    conforms = DASH if case.conforms is None else fmt_value(case.conforms)
    if check is None:
        deviation, ratio, crossing = DASH, DASH, DASH
    else:
        deviation = f"{fmt_small(_max_deviation(check))} / {fmt_small(check.tolerances['loss_rel'])}"
        ratio = _worst_ratio(check)
        crossing = DASH if check.first_crossing_step is None else str(check.first_crossing_step)
    return (case.id, str(case.expect), verdict_text(case), conforms, deviation, ratio, crossing,
            _reason(case))


def _worst_ratio(check) -> str:
    """Schema 2: the metric that came closest to (or went furthest past) its
    bound, max(c x envelope, floor); schema 1 files have no bounds."""
    rated = [(b["max_ratio"], name, b["peak_step"]) for name, b in check.bounds.items()
             if b.get("max_ratio") is not None]
    if not rated:
        return DASH
    ratio, name, step = max(rated)
    where = f", step {step}" if name == "loss_rel" else ""
    return f"{ratio:.2f} ({name}{where})"


def _max_deviation(check):
    reported = check.metrics.get("max_loss_rel_dev")
    if reported is not None:
        return reported
    finite = [v for v in check.deviation_per_step if v is not None]
    return max(finite) if finite else None


def _reason(case) -> str:
    parts = [case.reason] if case.reason else []
    if case.check:
        parts += [f for f in case.check.failures if f not in parts]
    if not parts and case.precision == "fp32" and case.baseline_id is None:
        parts = ["fp32 baseline"]
    return "; ".join(str(p) for p in parts)


# -- throughput -------------------------------------------------------------------

def throughput_table(run):
    headers = ("case", "precision", "input", "median (samples/s)", "min – max", "IQR",
               "reps", "speedup vs fp32", "peak memory")
    rows = [_throughput_row(run, c) for c in run.cases if c.throughput]
    return make_table(headers, rows)


def _throughput_row(run, case) -> tuple:
    tp = case.throughput
    return (case.id, case.precision, tp.input, fmt_rate(tp.median),
            f"{fmt_rate(tp.min)} – {fmt_rate(tp.max)}", DASH if tp.iqr is None else fmt_rate(tp.iqr),
            str(tp.repetitions), fmt_ratio(speedup(run, case)), fmt_bytes(tp.peak_memory_bytes))


def precision_columns_table(run):
    """One row per workload/model/optimizer, one column per precision that
    measured throughput (fp16 is Apex O1; O2 and O3 beside it): median
    samples/s, x fp32, and the verdict. None with fewer than two precisions."""
    timed = [c for c in run.cases if c.throughput and c.expect is not Expect.FAIL]
    precisions = sorted({c.precision for c in timed}, key=precision_key)
    if len(precisions) < 2:
        return None
    cells: dict = {}
    for c in timed:
        row = "/".join(part for part in c.id.split("/") if part != c.precision)
        cells.setdefault(row, {})[c.precision] = (
            f"{fmt_rate(c.throughput.median)} ({fmt_ratio(speedup(run, c))}) {verdict_text(c)}")
    headers = ("case", *(("fp16 (O1)" if p == "fp16" else p) for p in precisions))
    return make_table(headers, [(row, *(by.get(p, DASH) for p in precisions)) for row, by in cells.items()])


# -- hardware ceilings and utilisation ---------------------------------------------

def ceilings_table(ceilings: dict):
    """One file's env.ceilings as (what, value) rows."""
    rows = [("device", fmt_value(ceilings.get("device"))),
            ("memory bandwidth (GB/s)", fmt_measure(ceilings.get("memory_bandwidth_gbs")))]
    rows += [(f"matmul {dtype} (TFLOP/s)", _ceiling_cell(rate, note))
             for dtype, rate, note in matmul_ceilings(ceilings)]
    copy_bytes = ceilings.get("copy_bytes")
    rows += [("GEMM size n (n×n×n)", fmt_value(ceilings.get("gemm_size"))),
             ("copy size", DASH if copy_bytes is None else fmt_bytes(copy_bytes)),
             ("repetitions (median reported)", fmt_value(ceilings.get("repetitions")))]
    return make_table(("ceiling", "value"), rows)


def _ceiling_cell(rate, note) -> str:
    # A null rate means the device has no such mode; the note says why.
    text = "n/a" if rate is None else fmt_measure(rate)
    return f"{text} ({note})" if note else text


def utilisation_table(run):
    headers = ("case", "precision", "achieved GFLOP/s", "MFU (% of matmul ceiling)",
               "speedup vs fp32", "ceiling ratio vs fp32")
    rows = []
    for case in run.cases:
        use = utilisation(run, case)
        if use is None:
            continue
        gflops = None if use.achieved_flops_per_s is None else use.achieved_flops_per_s / 1e9
        rows.append((case.id, case.precision, fmt_measure(gflops), fmt_percent(use.mfu),
                     fmt_ratio(use.speedup), fmt_ratio(use.ceiling_ratio)))
    return make_table(headers, rows)


# -- gradient health -------------------------------------------------------------------

def grad_health_table(run):
    headers = ("case", "precision", "mean underflow fraction at scale 1",
               "mean underflow fraction at the scaler's scale", "steps with non-finite gradients")
    rows = []
    for case in gradients.health_cases(run):
        steps = gradients.nonfinite_steps(case)
        rows.append((case.id, case.precision,
                     fmt_small(gradients.mean_fraction(case, gradients.AT_SCALE_1)),
                     fmt_small(gradients.mean_fraction(case, gradients.AT_SCALE)),
                     DASH if steps is None else str(steps)))
    return make_table(headers, rows)


FP8_OPERANDS = (("input", "input"), ("weight", "weight"), ("grad_output", "output gradient"))


def fp8_range_table(run):
    """Per FP8 case and converted layer: the fraction of each operand's cast
    values past the format's range / flushed to zero over the run (None when
    no case recorded range counts)."""
    rows = []
    for case in run.cases:
        for layer in ((case.fp8 or {}).get("layers") or ()):
            if layer.get("converted") and layer.get("range"):
                rows.append((case.id, layer["name"],
                             *(_range_cell(layer["range"].get(key)) for key, _ in FP8_OPERANDS)))
    if not rows:
        return None
    headers = ("case", "layer", *(f"{name}: past range / flushed" for _, name in FP8_OPERANDS))
    return make_table(headers, rows)


def _range_cell(counts) -> str:
    if not counts or not counts.get("elements"):
        return DASH
    n = counts["elements"]
    return f"{fmt_small(counts['saturated'] / n)} / {fmt_small(counts['flushed'] / n)}"


# -- several files -------------------------------------------------------------------

def compare_throughput_table(runs):
    ids = ordered_unique(c.id for r in runs for c in r.cases if c.throughput)
    headers = ["case", *(f"{r.tag} median (samples/s)" for r in runs),
               *(f"{r.tag} / {runs[0].tag}" for r in runs[1:])]
    return make_table(headers, [_compare_row(runs, case_id) for case_id in ids])


def _compare_row(runs, case_id) -> tuple:
    medians = []
    for run in runs:
        case = run.case(case_id)
        medians.append(case.throughput.median if case and case.throughput else None)
    cells = [DASH if m is None else fmt_rate(m) for m in medians]
    first = medians[0]
    ratios = [fmt_ratio(m / first if m is not None and first else None) for m in medians[1:]]
    return (case_id, *cells, *ratios)


def verdict_difference_table(runs):
    ids = ordered_unique(c.id for r in runs for c in r.cases)
    rows = []
    for case_id in ids:
        statuses = [str(run.case(case_id).status) if run.case(case_id) else DASH for run in runs]
        if len(set(statuses)) > 1:
            rows.append((case_id, *statuses))
    return make_table(["case", *(r.tag for r in runs)], rows,
                  verdict_columns=range(1, len(runs) + 1))
