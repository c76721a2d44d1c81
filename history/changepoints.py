"""E-divisive change-point detection (Matteson and James, 2014), as MongoDB's
signal-processing-algorithms and Apache Otava (Hunter) use it in CI.

For a segment Z and a split at tau, with X = Z[:tau] and Y = Z[tau:] (sizes
m and n), the divergence statistic with exponent 1 is

    q(tau) = m n / (m + n) * (2/(m n) sum|X_i - Y_j| - sum_{i<k}|X_i - X_k| / C(m,2)
                                                     - sum_{j<k}|Y_j - Y_k| / C(n,2))

The candidate change point is the split with the largest q over every current
segment (the right end of each segment fixed, as those implementations fix
kappa). It is kept when a permutation test finds it significant: the
observations of each segment are shuffled within their segment R times, and
p = (1 + #{permuted max q >= observed}) / (R + 1) must be at most the
significance level. Kept points split their segments, and the search goes on
until a candidate is not significant. The random generator is seeded, so the
same series always gives the same change points.

The permutation test makes a false alarm on a series without a change at most
`significance` likely at the first candidate, whatever the noise's
distribution, as long as the runs are exchangeable; `false_alarm_rate`
measures it (docs/history.md states the figures).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIGNIFICANCE = 0.01
PERMUTATIONS = 199   # p can reach 1/200 = 0.005 < SIGNIFICANCE
MIN_SEGMENT = 3      # a change needs three runs on each side
SEED = 20140101


@dataclass(frozen=True)
class Settings:
    significance: float = SIGNIFICANCE
    permutations: int = PERMUTATIONS
    min_segment: int = MIN_SEGMENT
    seed: int = SEED


@dataclass(frozen=True)
class ChangePoint:
    index: int        # the first observation after the change (0-based)
    p_value: float
    q: float


def _block_sums(prefix, a, b, c, d):
    """Sum of D[a:b, c:d] from 2-D prefix sums, batched over the first axis."""
    return prefix[:, b, d] - prefix[:, a, d] - prefix[:, b, c] + prefix[:, a, c]


def _best_split(distances, start: int, end: int, min_segment: int):
    """(best q, its split) in [start, end) for each matrix of the batch
    `distances` (R x N x N, already restricted to that segment's order)."""
    size = end - start
    if size < 2 * min_segment:
        return None
    block = distances[:, start:end, start:end]
    prefix = np.zeros((block.shape[0], size + 1, size + 1))
    prefix[:, 1:, 1:] = block.cumsum(axis=1).cumsum(axis=2)
    taus = np.arange(min_segment, size - min_segment + 1)
    m, n = taus.astype(float), (size - taus).astype(float)
    first, last = np.zeros_like(taus), np.full_like(taus, size)
    within_x = _block_sums(prefix, first, taus, first, taus) / 2
    within_y = _block_sums(prefix, taus, last, taus, last) / 2
    between = _block_sums(prefix, first, taus, taus, last)
    energy = 2 * between / (m * n) - within_x / (m * (m - 1) / 2) - within_y / (n * (n - 1) / 2)
    q = m * n / (m + n) * energy
    best = q.argmax(axis=1)
    return q[np.arange(q.shape[0]), best], start + taus[best]


def _max_over_segments(distances, bounds, min_segment):
    """Per matrix of the batch: the largest q over all segments and where."""
    batch = distances.shape[0]
    best_q, best_at = np.full(batch, -np.inf), np.full(batch, -1)
    for start, end in zip(bounds[:-1], bounds[1:]):
        found = _best_split(distances, start, end, min_segment)
        if found is None:
            continue
        q, at = found
        better = q > best_q
        best_q, best_at = np.where(better, q, best_q), np.where(better, at, best_at)
    return best_q, best_at


def _permuted(values, bounds, count, rng):
    """`count` distance matrices of `values` shuffled within each segment."""
    orders = np.tile(np.arange(len(values)), (count, 1))
    for start, end in zip(bounds[:-1], bounds[1:]):
        orders[:, start:end] = rng.permuted(orders[:, start:end], axis=1)
    shuffled = values[orders]
    return np.abs(shuffled[:, :, None] - shuffled[:, None, :])


def detect(values, settings: Settings = Settings()) -> list[ChangePoint]:
    """Change points of one series, in order of position."""
    z = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(z)):
        raise ValueError("a series holds a non-finite value")
    rng = np.random.default_rng(settings.seed)
    observed = np.abs(z[None, :, None] - z[None, None, :])
    bounds, found = [0, len(z)], []
    while True:
        q, at = _max_over_segments(observed, bounds, settings.min_segment)
        if at[0] < 0:
            break
        permuted_q, _ = _max_over_segments(_permuted(z, bounds, settings.permutations, rng), bounds,
                                           settings.min_segment)
        p = (1 + np.count_nonzero(permuted_q >= q[0] - 1e-12 * abs(q[0]))) / (settings.permutations + 1)
        if p > settings.significance:
            break
        found.append(ChangePoint(int(at[0]), float(p), float(q[0])))
        bounds = sorted(bounds + [int(at[0])])
    return sorted(found, key=lambda c: c.index)


def false_alarm_rate(length: int, trials: int, cv: float = 0.05, seed: int = 1,
                     settings: Settings = Settings()) -> float:
    """The fraction of noise-only series (`trials` of them, `length` runs,
    log-normal noise of coefficient of variation `cv`, as run-to-run
    throughput is) in which `detect` finds any change point."""
    rng = np.random.default_rng(seed)
    alarms = 0
    for trial in range(trials):
        series = 1000.0 * rng.lognormal(0.0, cv, size=length)
        alarms += bool(detect(series, Settings(settings.significance, settings.permutations,
                                               settings.min_segment, settings.seed + trial)))
    return alarms / trials
