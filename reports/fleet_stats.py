"""The fleet's judgement of one group of like machines: which agree on each
case's fingerprint, which run a case slower than the group, and a verdict
per machine.

Agreement: machines of one hardware and software kind running a
deterministic case must produce the same bits. The hash most machines of
the group produced (a strict majority) is taken as right; every machine
with another hash computed something else: a silent-corruption suspect.

Speed: per case, each machine's median samples/s against the group's median,
in units of the group's MAD (scaled by 1.4826 to estimate a standard
deviation, floored at MAD_FLOOR of the median so a perfectly even fleet does
not turn a 0.1% wobble into an infinite z). A one-sided normal p-value per
machine and case, Benjamini-Hochberg over all of the group's machine x case
tests at FDR q: when every machine is healthy, the chance that the group
flags any machine at all is at most q (under the normal model, with
independent machines); when some are slow, at most a fraction q of the
flags are expected to be false. A flag also needs the machine to be at
least MIN_EFFECT slower than the median: statistically clear but
practically irrelevant differences are not a reason to pull a node.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

MAD_TO_SIGMA = 1.4826
DEFAULT_FDR = 0.01
DEFAULT_MIN_EFFECT = 0.10
MAD_FLOOR = 0.01

ACCEPT, INVESTIGATE, REJECT = "accept", "investigate", "reject"
_SEVERITY = {ACCEPT: 0, INVESTIGATE: 1, REJECT: 2}


@dataclass(frozen=True)
class Rule:
    fdr: float = DEFAULT_FDR
    min_effect: float = DEFAULT_MIN_EFFECT
    mad_floor: float = MAD_FLOOR


@dataclass
class CaseAgreement:
    majority: str | None          # None: no strict majority
    agree: list[str]
    disagree: dict[str, list[str]]  # machine -> the fingerprint parts that differ


@dataclass
class CaseSpeed:
    median: float
    sigma: float
    relative: dict[str, float]    # machine -> samples/s over the group's median, minus 1
    p_values: dict[str, float]
    slow: list[str] = field(default_factory=list)


def strict_majority(values: dict[str, str]) -> str | None:
    if not values:
        return None
    value, count = Counter(values.values()).most_common(1)[0]
    return value if 2 * count > len(values) else None


def agreement(fingerprints: dict[str, dict]) -> CaseAgreement:
    """One case across a group: machine -> its fingerprint object."""
    majority = strict_majority({m: f["hash"] for m, f in fingerprints.items()})
    reference = next((f for f in fingerprints.values() if f["hash"] == majority), None)
    agree, disagree = [], {}
    for m, f in sorted(fingerprints.items()):
        if majority is not None and f["hash"] == majority:
            agree.append(m)
        elif reference is not None:
            disagree[m] = [p for p in ("loss", "final_params", "optimizer_state") if f.get(p) != reference.get(p)]
    return CaseAgreement(majority, agree, disagree)


def median(values) -> float:
    s = sorted(values)
    n = len(s)
    # Halved before adding: two rates near the largest double sum to infinity.
    return s[n // 2] if n % 2 else 0.5 * s[n // 2 - 1] + 0.5 * s[n // 2]


def lower_tail_p(z: float) -> float:
    """P(Z <= z) for a standard normal: small when a machine is slow."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def speed(samples_per_s: dict[str, float], rule: Rule) -> CaseSpeed:
    med = median(samples_per_s.values())
    mad = median(abs(v - med) for v in samples_per_s.values())
    sigma = max(MAD_TO_SIGMA * mad, rule.mad_floor * med, 1e-300)
    return CaseSpeed(med, sigma, {m: v / med - 1.0 for m, v in samples_per_s.items()},
                     {m: lower_tail_p((v - med) / sigma) for m, v in samples_per_s.items()})


def benjamini_hochberg(p_values: list[float], q: float) -> list[bool]:
    """Which hypotheses BH rejects at false discovery rate q."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    cutoff = -1
    for rank, i in enumerate(order, 1):
        if p_values[i] <= q * rank / len(p_values):
            cutoff = rank
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order, 1):
        rejected[i] = rank <= cutoff
    return rejected


def flag_slow(speeds: dict[str, CaseSpeed], rule: Rule) -> None:
    """BH over every machine x case of the group, then the effect floor."""
    tests = [(case, m, p) for case, s in speeds.items() for m, p in s.p_values.items()]
    rejected = benjamini_hochberg([p for _, _, p in tests], rule.fdr)
    for (case, m, _), hit in zip(tests, rejected):
        if hit and speeds[case].relative[m] <= -rule.min_effect:
            speeds[case].slow.append(m)


@dataclass
class Verdict:
    verdict: str = ACCEPT
    reasons: list[str] = field(default_factory=list)

    def add(self, level: str, reason: str) -> None:
        if _SEVERITY[level] > _SEVERITY[self.verdict]:
            self.verdict = level
        self.reasons.append(f"{level}: {reason}")
