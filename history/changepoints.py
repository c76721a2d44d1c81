"""E-divisive change-point detection (Matteson and James, 2014), as MongoDB's
signal-processing-algorithms and Apache Otava (Hunter) use it in CI.

For a segment Z and a split at tau, with X = Z[:tau] and Y = Z[tau:] (sizes
m and n), the divergence statistic with exponent 1 is

    q(tau) = m n / (m + n) * (2/(m n) sum|X_i - Y_j| - sum_{i<k}|X_i - X_k| / C(m,2)
                                                     - sum_{j<k}|Y_j - Y_k| / C(n,2))

Y need not run to the segment's end: Y = Z[tau:kappa], and the candidate
change point is the tau of the largest q over every tau and kappa of every
current segment, so a dip that recovers (a regression fixed later) is found
as two changes. It is kept when a permutation test finds it significant: the
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
_BATCH_CELLS = 2_000_000  # permutations x tau x kappa per batch


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


def _best_split(distances, start: int, end: int, min_segment: int):
    """(best q, its split) in [start, end) for each matrix of the batch
    `distances` (R x N x N), searching every tau and kappa."""
    size = end - start
    if size < 2 * min_segment:
        return None
    block = distances[:, start:end, start:end]
    s = np.zeros((block.shape[0], size + 1, size + 1))
    s[:, 1:, 1:] = block.cumsum(axis=1).cumsum(axis=2)
    tau = np.arange(min_segment, size - min_segment + 1)[:, None]      # X = Z[:tau]
    kappa = np.arange(2 * min_segment, size + 1)[None, :]               # Y = Z[tau:kappa]
    valid = kappa - tau >= min_segment
    t, k = np.broadcast_arrays(tau, np.where(valid, kappa, size))
    m, n = t.astype(float), np.maximum(k - t, min_segment).astype(float)
    within_x = s[:, t, t] / 2
    within_y = (s[:, k, k] - s[:, t, k] - s[:, k, t] + s[:, t, t]) / 2
    between = s[:, t, k] - s[:, t, t]
    energy = 2 * between / (m * n) - within_x / (m * (m - 1) / 2) - within_y / (n * (n - 1) / 2)
    q = np.where(valid, m * n / (m + n) * energy, -np.inf).reshape(block.shape[0], -1)
    best = q.argmax(axis=1)
    return q[np.arange(q.shape[0]), best], start + t.reshape(-1)[best]


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


def _permuted_max(values, bounds, settings: Settings, rng):
    """The largest q of each permutation, in batches that bound the memory
    the R x tau x kappa arrays take on long series."""
    per_batch = max(1, _BATCH_CELLS // max(1, len(values)) ** 2)
    out = []
    for first in range(0, settings.permutations, per_batch):
        count = min(per_batch, settings.permutations - first)
        q, _ = _max_over_segments(_permuted(values, bounds, count, rng), bounds, settings.min_segment)
        out.append(q)
    return np.concatenate(out)


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
        permuted_q = _permuted_max(z, bounds, settings, rng)
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


def main(argv=None) -> int:
    """python -m history.changepoints --length 20 --trials 1000: the false-alarm rate."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m history.changepoints", description=main.__doc__)
    p.add_argument("--length", type=int, default=20)
    p.add_argument("--trials", type=int, default=1000)
    p.add_argument("--cv", type=float, default=0.05)
    args = p.parse_args(argv)
    rate = false_alarm_rate(args.length, args.trials, args.cv)
    print(f"false alarms: {rate:.4f} of {args.trials} noise-only series of {args.length} runs (cv {args.cv}, "
          f"significance {SIGNIFICANCE}, {PERMUTATIONS} permutations)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
