"""Two or more runs of one suite, case by case: how much faster or slower,
and how sure.

Each later run is compared with run1 the way `ampbench gate` compares one
run with another (harness/gate/README.md): the repetitions of a case on each
side, a two-sided Mann-Whitney U test, Benjamini-Hochberg across the rows
of one comparison, and a minimum effect (the case's, else the suite's
`gate.min_effect`, else 5%).  The ratio's confidence interval comes from the
same test inverted (Hodges-Lehmann): the order statistics of all pairwise
ratios that the U distribution allows at the chosen level.

Unlike the gate, differing environments are compared anyway: two GPUs or two
LibTorch versions are what a comparison report is for.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .runs import ordered_unique

ALPHA = 0.05
DEFAULT_MIN_EFFECT = 0.05
EXACT_MAX_SMALLER = 8        # the gate's rule: exact U distribution up to here, without ties

REGRESSION, IMPROVEMENT, UNCHANGED, INSUFFICIENT, ONE_SIDED = (
    "regression", "improvement", "no significant change", "too few repetitions", "not in both")


@dataclass(frozen=True)
class CaseChange:
    case_id: str
    base: object           # run1's Case or None
    other: object          # the later run's Case or None
    ratio: float | None    # median(other) / median(base)
    low: float | None      # confidence interval of the ratio
    high: float | None
    p: float | None
    q: float | None = None
    min_effect: float = DEFAULT_MIN_EFFECT
    verdict: str = ONE_SIDED


def compare_runs(base_run, other_run) -> list:
    """[CaseChange] for every case id with throughput in either run, suite order."""
    ids = ordered_unique(c.id for r in (base_run, other_run) for c in r.cases if c.throughput)
    rows = [_measure(base_run, other_run, i) for i in ids]
    judged = [k for k, r in enumerate(rows) if r.p is not None]
    qs = bh_qvalues([rows[k].p for k in judged])
    for k, q in zip(judged, qs):
        rows[k] = _judge(rows[k], q)
    return rows


def _measure(base_run, other_run, case_id) -> CaseChange:
    base, other = base_run.case(case_id), other_run.case(case_id)
    a = timed_samples(base)
    b = timed_samples(other)
    effect = _min_effect(other_run, other) if other else DEFAULT_MIN_EFFECT
    if not a or not b or base.throughput.input != other.throughput.input:
        return CaseChange(case_id, base, other, None, None, None, None, min_effect=effect)
    ratio = other.throughput.median / base.throughput.median
    low, high = ratio_interval(a, b)
    sufficient = min_attainable_p(len(a), len(b)) < ALPHA
    return CaseChange(case_id, base, other, ratio, low, high, mann_whitney_p(a, b) if sufficient else None,
                      min_effect=effect, verdict=UNCHANGED if sufficient else INSUFFICIENT)


def _judge(row: CaseChange, q: float) -> CaseChange:
    verdict = UNCHANGED
    if q < ALPHA and row.ratio < 1 - row.min_effect:
        verdict = REGRESSION
    elif q < ALPHA and row.ratio > 1 + row.min_effect:
        verdict = IMPROVEMENT
    return CaseChange(row.case_id, row.base, row.other, row.ratio, row.low, row.high, row.p, q,
                      row.min_effect, verdict)


def timed_samples(case) -> list:
    """A case's timed samples/s (none for a missing or untimed case)."""
    tp = case.throughput if case else None
    # NaN passes the schema's "> 0"; it would poison the ranks.
    return [s for s in tp.samples_per_s if s > 0] if tp else []


def geo_mean(values):
    """The geometric mean of positive ratios; None for none."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _min_effect(run, case) -> float:
    for source in (case.gate if case else None, run.results.gate):
        if source and source.get("min_effect") is not None:
            return float(source["min_effect"])
    return DEFAULT_MIN_EFFECT


# -- statistics -------------------------------------------------------------------

def mann_whitney_p(a, b) -> float:
    """Two-sided p of the U test, as scipy.stats.mannwhitneyu computes it by default."""
    n1, n2 = len(a), len(b)
    pooled = sorted(list(a) + list(b))
    ranks = _ranks(pooled)
    u1 = sum(ranks[x] for x in a) - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    ties = len(set(pooled)) < len(pooled)
    if not ties and min(n1, n2) <= EXACT_MAX_SMALLER:
        counts = _u_counts(n1, n2)
        tail = sum(counts[int(round(u)):]) / sum(counts)
        return min(1.0, 2 * tail)
    n = n1 + n2
    tie_term = sum(t ** 3 - t for t in _tie_sizes(pooled)) / (n * (n - 1))
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term))
    if sigma == 0:
        return 1.0
    z = (u - n1 * n2 / 2 - 0.5) / sigma
    return min(1.0, math.erfc(z / math.sqrt(2)))


def _ranks(pooled) -> dict:
    """value -> average rank (1-based) in the pooled sample."""
    ranks, i = {}, 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1] == pooled[i]:
            j += 1
        ranks[pooled[i]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _tie_sizes(pooled) -> list:
    return [t for t in Counter(pooled).values() if t > 1]


@lru_cache(maxsize=None)
def _u_counts(n1: int, n2: int) -> tuple:
    """Number of arrangements giving U = 0 .. n1*n2 (no ties)."""
    if n1 == 0 or n2 == 0:
        return (1,)
    with_last_of_1 = _u_counts(n1 - 1, n2)   # the largest value is from sample 1: U grows by n2
    with_last_of_2 = _u_counts(n1, n2 - 1)
    counts = [0] * (n1 * n2 + 1)
    for u, c in enumerate(with_last_of_1):
        counts[u + n2] += c
    for u, c in enumerate(with_last_of_2):
        counts[u] += c
    return tuple(counts)


def min_attainable_p(n1: int, n2: int) -> float:
    """The smallest two-sided p the exact test can give at these sizes."""
    return 2 / math.comb(n1 + n2, n1) if n1 and n2 else 1.0


def ratio_interval(a, b, alpha: float = ALPHA):
    """Distribution-free interval of median(b)/median(a) at about 1 - alpha:
    the U test inverted on all pairwise log ratios.  With too few repetitions
    for that level, the full range of pairwise ratios."""
    logs = sorted(math.log(y) - math.log(x) for x in a for y in b)
    k = _interval_rank(len(a), len(b), alpha)
    if k <= 0:
        return math.exp(logs[0]), math.exp(logs[-1])
    return math.exp(logs[k - 1]), math.exp(logs[-k])


def _interval_rank(n1: int, n2: int, alpha: float) -> int:
    """Largest k with P(U < k) <= alpha / 2."""
    if min(n1, n2) <= EXACT_MAX_SMALLER and n1 * n2 <= 10000:
        counts = _u_counts(n1, n2)
        total, below, k = sum(counts), 0, 0
        while below + counts[k] <= alpha / 2 * total:
            below += counts[k]
            k += 1
        return k
    z = 1.959963984540054  # alpha 0.05; the normal quantile
    return max(0, int(math.floor(n1 * n2 / 2 - z * math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12))))


def bh_qvalues(ps) -> list:
    """Benjamini-Hochberg adjusted p-values (statsmodels' fdr_bh), input order."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    qs, running = [0.0] * m, 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, ps[i] * m / rank)
        qs[i] = min(1.0, running)
    return qs
