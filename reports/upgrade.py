"""One verdict for a torch upgrade: the same suite run with the old and the
new torch's ampbench, interleaved in rounds (round i of each side ran at the
same moment), read side by side.

- conformance per case on each side (the worst state over its rounds, as
  `ampbench gate` merges runs) and every case whose state changed;
- how each case's max_ratio (distance / bound, > 1 failed) moved: the median
  over rounds per side; "news" when the medians differ by NEWS_SHIFT of the
  bound or more and the two sides' ranges over rounds do not overlap (a
  case that wanders between rounds is not news for wandering);
- throughput per case: one ratio per round, the gate's paired test
  (upgrade_stats), Benjamini-Hochberg across the rows, the minimum effect;
- the environment difference: the torch stack is expected to differ,
  anything else is a confounder named as such;
- the autocast policy difference between the two versions' own tables.

The verdict fails on a throughput regression or a case whose conformance
changed for the worse (to FAIL or ERROR, newly skipped, or gone); a moved
max_ratio and a changed autocast policy are reported, not judged.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass

from .comparison import ALPHA, DEFAULT_MIN_EFFECT, bh_qvalues
from .upgrade_stats import log_ratio_interval, median, min_attainable_p, wilcoxon_p

NEWS_SHIFT = 0.25
# The most rounds read (ci/upgrade.sh's --pairs bound): the interval's Walsh
# averages grow with the square of the pairs.
MAX_ROUNDS = 1000
# env fields a test-only fault switch leaves, and the switch: such a run
# measured the fault, not the torch.
FAULT_SWITCHES = (("injected_slowdown", "--inject-slowdown"), ("injected_bitflip_step", "--inject-bitflip"),
                  ("injected_compile_fault", "--inject-compile-fault"))
# Fields of the environment fingerprint that belong to the torch build: they
# are what an upgrade changes. float32_math holds torch's process defaults.
TORCH_STACK = ("libtorch_version", "cudnn", "nccl", "cuda_runtime", "torch_build", "float32_math")
# Measured rates, not the machine's identity: they differ run to run.
NOT_COMPARED = ("ceilings",)

STATE_ORDER = {"ERROR": 3, "FAIL": 2, "ok": 1, "skipped": 0}
FAILING = ("FAIL", "ERROR")
REGRESSION, IMPROVEMENT, NO_CHANGE, TOO_FEW, ONE_SIDED = (
    "regression", "improvement", "no change", "too few pairs", "not in both")


class UpgradeInputError(Exception):
    """Results that cannot be read as an upgrade (exit 2)."""


def check_unicode(doc, path) -> None:
    """JSON's \\ud800 escapes parse to lone surrogates, which no UTF-8 output
    (the report, the terminal) can hold: refuse them at the door."""
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise UpgradeInputError(f"{path}: a string holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff "
                                f"escape): not valid Unicode") from None


def injected_faults(run) -> list:
    """The fault switches a run was made with, as "--inject-slowdown 0.2"."""
    return [f"{switch} {json.dumps(run.env[key])}" for key, switch in FAULT_SWITCHES if key in run.env]


def case_state(case) -> str:
    status = str(case.status)
    if status == "error":
        return "ERROR"
    if status == "skipped":
        return "skipped"
    return "ok" if case.conforms is True else "FAIL"


@dataclass(frozen=True)
class Conformance:
    case_id: str
    old: str           # ok | FAIL | ERROR | skipped | missing
    new: str
    old_detail: str    # "in K of N rounds" when the rounds disagree
    new_detail: str

    @property
    def changed(self) -> bool:
        return self.old != self.new

    @property
    def worse(self) -> bool:
        """A change the upgrade must not pass (as the gate judges one): to
        failing, newly skipped, or gone. FAIL <-> ERROR was failing already."""
        if not self.changed:
            return False
        if self.new in FAILING:
            return self.old not in FAILING
        return self.new == "missing" or (self.new == "skipped" and self.old in ("ok", "FAIL"))


def merged_state(runs, case_id) -> tuple:
    states = [case_state(c) for r in runs if (c := r.case(case_id))]
    if not states:
        return "missing", ""
    worst = max(states, key=STATE_ORDER.get)
    k = states.count(worst)
    detail = "" if k == len(runs) else f"in {k} of {len(runs)} rounds"
    return worst, detail


def conformance(old_runs, new_runs, ids) -> list:
    rows = []
    for i in ids:
        old, old_detail = merged_state(old_runs, i)
        new, new_detail = merged_state(new_runs, i)
        rows.append(Conformance(i, old, new, old_detail, new_detail))
    return rows


@dataclass(frozen=True)
class BoundMove:
    case_id: str
    old: float | None      # median max_ratio over the rounds
    new: float | None
    old_range: tuple
    new_range: tuple

    @property
    def delta(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    @property
    def news(self) -> bool:
        if self.delta is None or abs(self.delta) < NEWS_SHIFT:
            return False
        return self.old_range[1] < self.new_range[0] or self.new_range[1] < self.old_range[0]


def _ratios(runs, case_id) -> list:
    out = []
    for r in runs:
        c = r.case(case_id)
        if c and c.check and c.check.max_ratio is not None and math.isfinite(c.check.max_ratio):
            out.append(c.check.max_ratio)
    return out


def bound_moves(old_runs, new_runs, ids) -> list:
    rows = []
    for i in ids:
        a, b = _ratios(old_runs, i), _ratios(new_runs, i)
        if not a and not b:
            continue
        rows.append(BoundMove(i, median(a), median(b), (min(a), max(a)) if a else (),
                              (min(b), max(b)) if b else ()))
    return rows


@dataclass(frozen=True)
class Speed:
    case_id: str
    old: float | None       # median samples/s over the rounds
    new: float | None
    ratio: float | None     # median of the per-round ratios (the gate's change + 1)
    low: float | None       # ~95% interval of the ratio
    high: float | None
    pairs: int
    p: float | None
    q: float | None = None
    min_effect: float = DEFAULT_MIN_EFFECT
    verdict: str = ONE_SIDED


def _min_effect(run, case) -> float:
    sources = ((case.gate, f"case {case.id}"),) if case else ()
    for source, where in (*sources, (run.gate, "the suite")):
        if source and source.get("min_effect") is not None:
            effect = source["min_effect"]
            # NaN passes the schema's bounds (every comparison with it is
            # false) and would make every change "within the minimum effect".
            if not 0 < effect < 1:
                raise UpgradeInputError(f"{run.path}: gate.min_effect of {where} must be in (0, 1), got {effect}")
            return float(effect)
    return DEFAULT_MIN_EFFECT


def _median_tp(run, case_id):
    c = run.case(case_id)
    tp = c.throughput if c else None
    return tp.median if tp and tp.median > 0 else None, tp.input if tp else None


def _ratio(log_ratio: float) -> float:
    """exp, infinite past the largest float instead of raising."""
    return math.exp(log_ratio) if log_ratio < math.log(sys.float_info.max) else math.inf


def _speed(old_runs, new_runs, case_id) -> Speed:
    pairs, olds, news = [], [], []
    for a, b in zip(old_runs, new_runs):
        (x, xin), (y, yin) = _median_tp(a, case_id), _median_tp(b, case_id)
        olds += [x] if x else []
        news += [y] if y else []
        if x and y and xin == yin:
            # Not log(y / x): the quotient of two extreme medians underflows to 0.
            pairs.append(math.log(y) - math.log(x))
    effect = _min_effect(new_runs[-1], new_runs[-1].case(case_id))
    old, new = median(olds), median(news)
    if not pairs:
        return Speed(case_id, old, new, None, None, None, 0, None, min_effect=effect)
    ratio = median([_ratio(d) for d in pairs])
    low, high = (_ratio(v) for v in log_ratio_interval(pairs))
    if min_attainable_p(len(pairs)) >= ALPHA:
        return Speed(case_id, old, new, ratio, low, high, len(pairs), None, None, effect, TOO_FEW)
    return Speed(case_id, old, new, ratio, low, high, len(pairs), wilcoxon_p(pairs), None, effect, NO_CHANGE)


def throughput(old_runs, new_runs, ids) -> list:
    timed = [i for i in ids if any(_median_tp(r, i)[0] for r in (*old_runs, *new_runs))]
    rows = [_speed(old_runs, new_runs, i) for i in timed]
    judged = [k for k, r in enumerate(rows) if r.p is not None]
    for k, q in zip(judged, bh_qvalues([rows[k].p for k in judged])):
        r = rows[k]
        verdict = NO_CHANGE
        if q < ALPHA and r.ratio < 1 - r.min_effect:
            verdict = REGRESSION
        elif q < ALPHA and r.ratio > 1 + r.min_effect:
            verdict = IMPROVEMENT
        rows[k] = Speed(r.case_id, r.old, r.new, r.ratio, r.low, r.high, r.pairs, r.p, q, r.min_effect, verdict)
    return rows


def flatten(env, prefix="") -> dict:
    out = {}
    for key, value in (env or {}).items():
        name = f"{prefix}{key}"
        if not prefix and key in NOT_COMPARED:
            continue
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


@dataclass(frozen=True)
class EnvDiff:
    field: str
    old: object
    new: object
    torch_stack: bool   # False: a confounder


def env_diff(old_runs, new_runs) -> list:
    """Fields that differ between the sides, then fields that vary between
    the rounds of one side (a confounder whatever the field: the machine
    changed under the measurement)."""
    a, b = flatten(old_runs[0].env), flatten(new_runs[0].env)
    rows = [EnvDiff(k, a.get(k, "(absent)"), b.get(k, "(absent)"), k.split(".")[0] in TORCH_STACK)
            for k in sorted(set(a) | set(b)) if a.get(k, "(absent)") != b.get(k, "(absent)")]
    for runs in (old_runs, new_runs):
        values = [flatten(r.env) for r in runs]
        for k in sorted(set().union(*values)):
            seen = sorted({repr(v.get(k)) for v in values})
            if len(seen) > 1:
                rows.append(EnvDiff(k, f"varies between rounds of {runs[0].env.get('libtorch_version', '?')}",
                                    ", ".join(seen), False))
    return rows
