"""Paired throughput statistics for an upgrade: one ratio per round (the new
torch's run over the old torch's run of the same round), tested as
`ampbench gate --paired` tests them (harness/gate/README.md): the Wilcoxon
signed-rank test on the log ratios, as scipy.stats.wilcoxon computes it with
its defaults (zero differences dropped; exact up to 50 pairs without ties,
else the normal approximation with tie correction and no continuity
correction).  The interval is that test inverted (Hodges-Lehmann): order
statistics of the Walsh averages of the log ratios, so it says how large a
change the rounds are consistent with, on the scale of the ratio.
"""

from __future__ import annotations

import math
from functools import lru_cache

EXACT_MAX = 50
Z_975 = 1.959963984540054


@lru_cache(maxsize=None)
def _w_counts(n: int) -> tuple:
    """Number of sign assignments giving W+ = 0 .. n(n+1)/2."""
    counts = [1]
    for k in range(1, n + 1):
        grown = [0] * (len(counts) + k)
        for w, c in enumerate(counts):
            grown[w] += c        # rank k negative
            grown[w + k] += c    # rank k positive
        counts = grown
    return tuple(counts)


def _abs_ranks(d) -> list:
    """Average ranks (1-based) of |d|."""
    order = sorted(range(len(d)), key=lambda i: abs(d[i]))
    ranks, i = [0.0] * len(d), 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def wilcoxon_p(differences) -> float:
    """Two-sided p of the signed-rank test; 1 when every difference is zero."""
    d = [x for x in differences if x != 0]
    n = len(d)
    if n == 0:
        return 1.0
    ranks = _abs_ranks(d)
    w_plus = sum(r for r, x in zip(ranks, d) if x > 0)
    w = min(w_plus, n * (n + 1) / 2 - w_plus)
    ties = len(set(abs(x) for x in d)) < n
    if n <= EXACT_MAX and not ties:
        counts = _w_counts(n)
        return min(1.0, 2 * sum(counts[: int(round(w)) + 1]) / 2 ** n)
    mean = n * (n + 1) / 4
    tie_term = sum(t ** 3 - t for t in _tie_sizes([abs(x) for x in d])) / 48
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - tie_term)
    if sigma == 0:
        return 1.0
    return min(1.0, math.erfc(abs(w - mean) / sigma / math.sqrt(2)))


def _tie_sizes(values) -> list:
    seen = {}
    for v in values:
        seen[v] = seen.get(v, 0) + 1
    return [t for t in seen.values() if t > 1]


def min_attainable_p(n: int) -> float:
    """The smallest two-sided p n pairs can give: every pair the same way."""
    return min(1.0, 2 / 2 ** n) if n else 1.0


def log_ratio_interval(log_ratios, alpha: float = 0.05):
    """(low, high) of the pseudo-median log ratio at about 1 - alpha: the
    k-th smallest and largest Walsh average, k from the signed-rank null.
    With too few pairs for that level, the full range of Walsh averages."""
    d = sorted(log_ratios)
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    k = _interval_rank(n, alpha)
    if k <= 0:
        return walsh[0], walsh[-1]
    return walsh[k - 1], walsh[-k]


def _interval_rank(n: int, alpha: float) -> int:
    """Largest k with P(W+ < k) <= alpha / 2."""
    if n <= EXACT_MAX:
        counts, total, below, k = _w_counts(n), 2 ** n, 0, 0
        while below + counts[k] <= alpha / 2 * total:
            below += counts[k]
            k += 1
        return k
    m = n * (n + 1) / 4
    return max(0, int(math.floor(m - Z_975 * math.sqrt(n * (n + 1) * (2 * n + 1) / 24))))


def median(values):
    s = sorted(values)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
