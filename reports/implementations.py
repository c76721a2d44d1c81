"""C++ against Python, per architecture.

A results file from `python -m reference.python.bench` (the same suite's
loops written in Python, eager or torch.compile) beside an `ampbench run`
file from the same machine answers "what does the C++ harness buy on this
model?".  Files from different hardware or builds are never paired: their
ratio would measure the machines.  Ratios are C++ / Python with the ~95%
interval from the repetitions (the comparison's Hodges-Lehmann interval,
comparison.ratio_interval); above 1 C++ is faster.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.python.throughput_ratio import python_id

from .blocks import Heading, Text
from .comparison import geo_mean, ratio_interval, timed_samples
from .runs import env_fingerprint, implementation
from .summary import headline_rows
from .tables import DASH, fmt_rate, fmt_ratio, make_table

CPP = "C++"
COMPILED_TWIN = "#compiled"  # harness/session/compiled_case.h kCompiledIdSuffix


def implementation_pairs(runs) -> list:
    """[(C++ run, Python run)] measured on the same device and LibTorch, in
    command-line order."""
    cpp = [r for r in runs if implementation(r.env) == CPP]
    python = [r for r in runs if implementation(r.env) != CPP]
    return [(c, p) for c in cpp for p in python if env_fingerprint(c.env) == env_fingerprint(p.env)]


@dataclass(frozen=True)
class Pair:
    """One case timed by both: C++ / Python and its interval."""
    cpp: object      # Case
    python: object   # Case
    ratio: float
    low: float
    high: float


def _theirs(python, case_id: str):
    """The other side's case.  In a compiled run an fp32 case id is the eager
    C++ baseline; the compiled fp32 training is its "#compiled" twin."""
    pid = python_id(case_id)
    return python.case(pid + COMPILED_TWIN) or python.case(pid)


def _ratios(cpp, python) -> dict:
    """{C++ case id: Pair} for the cases both timed on the same input.  A
    CUDA-graph case is timed against Python's same case without the graph
    (the reference does not capture)."""
    out = {}
    for case in cpp.cases:
        theirs = _theirs(python, case.id)
        a, b = timed_samples(theirs), timed_samples(case)
        if a and b and case.throughput.input == theirs.throughput.input:
            low, high = ratio_interval(a, b)
            out[case.id] = Pair(case, theirs, case.throughput.median / theirs.throughput.median, low, high)
    return out


def per_model_ratios(cpp, python) -> dict:
    """{model: [C++/Python ratio of every case both timed]}, suite order."""
    ratios = _ratios(cpp, python)
    out: dict = {}
    for case in cpp.cases:
        if case.id in ratios:
            out.setdefault(case.model, []).append(ratios[case.id].ratio)
    return out


def implementation_line(cpp, python) -> Text | None:
    """One summary sentence: the geo-mean C++/Python per model."""
    per_model = per_model_ratios(cpp, python)
    if not per_model:
        return None
    every = [r for rs in per_model.values() for r in rs]
    models = ", ".join(f"{m} {fmt_ratio(geo_mean(rs))}" for m, rs in per_model.items())
    return Text(f"{cpp.tag} ({CPP}) against {python.tag} ({implementation(python.env)}) on the same "
                f"machine: C++ / Python {fmt_ratio(geo_mean(every))} (geo-mean over {len(every)} cases "
                f"timed by both); per model: {models}.")


def implementation_table(cpp, python):
    """Per model and precision: the headline case's samples/s on each side,
    C++/Python with its interval, and over every case both timed."""
    ratios = _ratios(cpp, python)
    data = []
    for (model, precision), row in headline_rows(cpp).items():
        lead = row["lead"]
        change = ratios.get(lead.id) if lead else None
        group = [ratios[c.id].ratio for c in cpp.cases
                 if c.model == model and c.precision == precision and c.id in ratios]
        if not group:
            continue
        data.append((model, precision,
                     fmt_rate(change.cpp.throughput.median) if change else DASH,
                     fmt_rate(change.python.throughput.median) if change else DASH,
                     _interval_cell(change),
                     f"{fmt_ratio(geo_mean(group))} ({min(group):.2f}–{max(group):.2f}, {len(group)} cases)"))
    headers = ("model", "precision", f"{cpp.tag} C++ samples/s", f"{python.tag} Python samples/s",
               "C++ / Python, headline case (interval)", "C++ / Python, all cases timed by both (geo-mean, range)")
    return make_table(headers, data)


def _interval_cell(change) -> str:
    if change is None:
        return DASH
    return f"{fmt_ratio(change.ratio)} ({change.low:.2f}–{change.high:.2f})"


def implementation_section(runs) -> list:
    blocks = []
    for cpp, python in implementation_pairs(runs):
        table = implementation_table(cpp, python)
        if not table.rows:
            continue
        blocks += [Heading(3, f"{CPP} against {implementation(python.env)}, per architecture: "
                              f"{cpp.tag} and {python.tag}"),
                   Text("The same suite's loops, timed on the same machine by the C++ harness and by "
                        "the Python reference. The headline case is the model's plain training "
                        "loop; the interval comes from the repetitions, as in the per-case change. "
                        "Above 1, C++ is faster. One run per side is one draw: for a figure to "
                        "publish, python -m reference.python.side_by_side alternates the two "
                        "over several rounds."),
                   table]
    return blocks
