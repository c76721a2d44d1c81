"""From loaded machines to the fleet report's content: per group, each
case's majority fingerprint and dissenters, the throughput outliers, and a
verdict with reasons for every machine (reports/fleet_stats.py holds the
rules)."""

from __future__ import annotations

import math

from .fleet_input import Machine, describe_key, group_machines
from .fleet_stats import INVESTIGATE, REJECT, Rule, Verdict, agreement, flag_slow, speed

MIN_GROUP_FOR_SPEED = 3  # with two machines, which one is the outlier is undecidable


def _shown(items, limit=3) -> str:
    items = list(items)
    return "; ".join(items[:limit]) + (f"; and {len(items) - limit} more" if len(items) > limit else "")


def _own_problems(m: Machine, verdict: Verdict) -> None:
    for problem in m.problems:
        verdict.add(INVESTIGATE, problem)
    if m.results is None:
        return
    failed = [f"{c.id} ({c.status})" for c in m.results.cases if c.conforms is False]
    if failed:
        verdict.add(REJECT, f"{len(failed)} case(s) did not conform on this machine: {_shown(failed)}")


def _agreement(members, verdicts) -> dict:
    """Per case: the majority hash and who differs."""
    per_case = {}
    case_ids = sorted({c.id for m in members for c in m.results.cases if c.fingerprint})
    dissent: dict[str, list[str]] = {}
    no_majority: dict[str, list[str]] = {}
    for case_id in case_ids:
        prints = {m.id: m.results.case(case_id).fingerprint for m in members
                  if m.results.case(case_id) is not None and m.results.case(case_id).fingerprint}
        a = agreement(prints)
        per_case[case_id] = {"majority_hash": a.majority, "agree": len(a.agree), "machines": len(prints),
                             "disagree": {m: parts for m, parts in a.disagree.items()}}
        for m, parts in a.disagree.items():
            dissent.setdefault(m, []).append(f"{case_id} (differs in {', '.join(parts) or 'the combined hash'})")
        if a.majority is None and len(prints) > 1:
            for m in prints:
                no_majority.setdefault(m, []).append(case_id)
    for m, cases in dissent.items():
        verdicts[m].add(REJECT, f"silent data corruption suspect: fingerprint differs from the group's majority in "
                                f"{len(cases)} of {len(case_ids)} case(s): {_shown(cases)}")
    for m, cases in no_majority.items():
        verdicts[m].add(INVESTIGATE, f"no majority fingerprint among the group in {len(cases)} case(s) "
                                     f"({_shown(cases)}): the group cannot tell which machine is right")
    return per_case


def _speed(members, verdicts, rule: Rule) -> dict:
    """Per case with throughput on enough machines: the group's median and
    the machines flagged slow."""
    samples: dict[str, dict[str, float]] = {}
    for m in members:
        for c in m.results.cases:
            if c.throughput is not None and 0 < c.throughput.median < math.inf:
                samples.setdefault(c.id, {})[m.id] = c.throughput.median
    speeds = {case: speed(v, rule) for case, v in sorted(samples.items()) if len(v) >= MIN_GROUP_FOR_SPEED}
    flag_slow(speeds, rule)
    slow: dict[str, list[str]] = {}
    for case, s in speeds.items():
        for m in s.slow:
            slow.setdefault(m, []).append(f"{case} at {1 + s.relative[m]:.2f}x the group median "
                                          f"(p={s.p_values[m]:.1e})")
    for m, cases in slow.items():
        verdicts[m].add(INVESTIGATE, f"throughput outlier: slower than the group in {len(cases)} of {len(speeds)} "
                                     f"timed case(s): {_shown(cases)}")
    return {case: {"median_samples_per_s": s.median, "sigma": s.sigma, "slow": sorted(s.slow),
                   "relative": {m: r for m, r in sorted(s.relative.items())}} for case, s in speeds.items()}


def analyse(machines: list[Machine], rule: Rule, skipped=(), rehearsal=False) -> dict:
    """The report's content as plain data (written as fleet.json as is).
    skipped: what discovery passed over, and why; rehearsal: the user said
    faults were injected on purpose (which machines had one is listed)."""
    groups = group_machines(machines)
    verdicts = {m.id: Verdict() for m in machines}
    for m in machines:
        _own_problems(m, verdicts[m.id])
    group_out = []
    for name, members in groups.items():
        if len(members) == 1:
            verdicts[members[0].id].add(INVESTIGATE, f"the only machine of its hardware and software (group {name}): "
                                                     "nothing to agree with or to compare speed against")
        group_out.append({"id": name, "key": describe_key(members[0].results),
                          "machines": [m.id for m in members],
                          "cases": _agreement(members, verdicts), "throughput": _speed(members, verdicts, rule)})
    first = next(m.results for m in machines if m.results is not None)
    out_machines = [{"id": m.id, "group": m.group, "folder": str(m.folder), "verdict": verdicts[m.id].verdict,
                     "reasons": verdicts[m.id].reasons} for m in sorted(machines, key=lambda m: m.id)]
    counts = {v: sum(1 for m in out_machines if m["verdict"] == v) for v in ("accept", INVESTIGATE, REJECT)}
    return {"schema": "ampbench.fleet", "schema_version": 1, "suite": first.suite,
            "build": {"git_commit": first.env.get("git_commit"), "git_dirty": first.env.get("git_dirty")},
            "rule": {"fdr": rule.fdr, "min_effect": rule.min_effect, "mad_floor": rule.mad_floor,
                     "false_alarm": false_alarm_sentence(rule)},
            "rehearsal": {"declared": rehearsal, "faults": {m.id: m.faults for m in machines if m.faults}},
            "skipped": list(skipped), "counts": counts, "machines": out_machines, "groups": group_out}


def false_alarm_sentence(rule: Rule) -> str:
    return (f"Throughput: Benjamini-Hochberg at FDR {rule.fdr:g} over each group's machine x case tests "
            f"(one-sided, median and MAD of the group, sigma at least {rule.mad_floor:g} of the median): a group "
            f"of healthy machines has at most a {rule.fdr:.0%} chance of any throughput flag under the normal "
            f"model, and a flag also needs a machine {rule.min_effect:.0%} or more below the median. "
            "Fingerprints: no statistics; any difference from the group's strict majority is named.")
