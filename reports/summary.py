"""The answer first: what a reader of the report came for, in a few lines.

Conforming or not (the failing cases named and linked to their rows), how
many negative controls were caught and by what margin, and a headline table
per model and precision.  Everything here is also in the sections below; the
summary only chooses and links.
"""

from __future__ import annotations

import math

from reference.python.results_file import Expect, Status

from .anchors import case_link
from .blocks import Bullets, Text
from .ceilings import utilisation
from .runs import group_by, precision_key, speedup
from .tally import counts_phrase, stated_summary
from .tables import DASH, make_table, fmt_percent, fmt_rate, fmt_ratio

HEADLINE_WORKLOAD = "plain"   # the plain training loop: what "samples/s of a model" means


def bound_ratio(case):
    """Distance over bound of the case's worst metric: > 1 failed the check.
    Schema 2 writes it; schema 1 has only the loss deviation and its tolerance."""
    check = case.check
    if not check:
        return None
    if check.max_ratio is not None:
        return check.max_ratio
    deviation = check.metrics.get("max_loss_rel_dev")
    tolerance = check.tolerances.get("loss_rel")
    return deviation / tolerance if deviation is not None and tolerance else None


# -- the verdict ------------------------------------------------------------------

def verdict_blocks(run, compact: bool = False) -> list:
    """The run's verdict line and its evidence (controls, margins), linked.
    compact: one line per run, for a comparison whose summary must leave
    room for the headline; the run's own section has the details."""
    bad = [c for c in run.cases if c.conforms is False]
    counts = counts_phrase(run)
    if bad:
        line = Text((f"{run.tag}: NOT CONFORMING: {len(bad)} of {len(run.cases)} cases do not conform "
                     f"to their expectation: ", *_joined(run, [c.id for c in bad]),
                     f". ({counts})"), tone="bad")
    elif not run.cases:
        line = Text(f"{run.tag}: no case has finished yet.", warning=True)
    else:
        line = Text(f"{run.tag}: CONFORMING: every case that ran conforms to its expectation ({counts}).",
                    tone="ok")
    if compact:
        return [Text((line.text if isinstance(line.text, tuple) else (line.text,)) + (_teeth_short(run),),
                     warning=line.warning, tone=line.tone)]
    evidence = tuple(filter(None, [_controls_line(run), _margin_line(run), _rule_line(run)])) if run.cases else ()
    return [line, Bullets(evidence)] if evidence else [line]


def _ran_controls(run) -> list:
    return [c for c in run.cases if c.expect is Expect.FAIL and c.status is not Status.SKIPPED]


def _teeth_short(run) -> str:
    """The verdict line counts the controls already: only the margin is left."""
    margin = _teeth_margin(run)
    return f" Teeth margin {margin:.3g}×." if margin else ""


def _teeth_margin(run):
    """The teeth margin `ampbench run` printed and stated in results.json; a
    run that states none gets it from its cases by the same rule."""
    stated = stated_summary(run)
    if stated is not None:
        margin = (stated.get("teeth") or {}).get("margin")
        return margin if isinstance(margin, (int, float)) else None
    return teeth_margin_of(run.cases)


def teeth_margin_of(cases):
    """Mildest control caught by a bound over the conforming case nearest its
    bound (SuiteRunSummary::teeth_margin): a control the scale audit caught is
    caught by a rule, not a bound, whatever its distance."""
    correct = [bound_ratio(c) for c in cases if c.expect is Expect.PASS and c.status is Status.PASS
               and bound_ratio(c) is not None]
    caught = [bound_ratio(c) for c in cases if c.expect is Expect.FAIL and c.status is Status.FAIL
              and 1 < (bound_ratio(c) or 0) < math.inf and not (c.check and c.check.scale_audit_failed)]
    return min(caught) / max(correct) if caught and correct and max(correct) > 0 else None


def _joined(run, ids) -> list:
    parts = []
    for k, case_id in enumerate(ids):
        parts += [", "] if k else []
        parts.append(case_link(run, case_id))
    return parts


def _controls_line(run):
    controls = _ran_controls(run)
    if not controls:
        return "No negative controls ran: nothing shows the checker can fail a wrong recipe."
    caught = [c for c in controls if c.status is Status.FAIL]
    parts = [f"Negative controls: {len(caught)} of {len(controls)} caught"]
    def by_rule(c):  # a scale audit is exact: it decides whatever the distances say
        return (c.check is not None and c.check.scale_audit_failed) or (bound_ratio(c) or 0) <= 1

    by_bound = [(bound_ratio(c), c.id) for c in caught if not by_rule(c)]
    if by_bound:
        ratio, case_id = min(by_bound)
        parts += [f"; {len(by_bound)} by a bound, the closest call exceeding it {ratio:.3g}× (",
                  case_link(run, case_id), ")"]
    # Caught by a rule without a ratio (the scale audit, skipped steps): say which.
    other = [c for c in caught if by_rule(c)]
    if other:
        parts += [f"; {len(other)} by another rule: ", *_joined(run, [c.id for c in other])]
        reason = _first_failure(other[0])
        parts += [f" (\"{reason}\")"] if reason else []
    missed = [c.id for c in controls if c.status is not Status.FAIL]
    if missed:
        parts += ["; MISSED: ", *_joined(run, missed)]
    return tuple(parts)


def _rule_line(run):
    """How borderline verdicts were decided (harness/check/confirmation.h),
    what that promises a correct case, and what this run spent on it."""
    rule = run.results.raw.get("verdict_rule")
    if not rule or not rule.get("confirmation_seeds"):
        return None
    seeds, grey = rule["confirmation_seeds"], rule["grey_limit"]
    parts = [f"Decision rule: a case at most {grey:g}× beyond its bound runs again from up to {seeds} fresh "
             f"seed(s) and fails only if each fails too; a correct case fails with probability "
             f"≤ {rule['per_case_false_alarm']:.2g} (single-seed rate {rule['calibrated_exceed_rate']:.2g}). "]
    confirmed = [c for c in run.cases if c.check and c.raw.get("check", {}).get("confirmations")]
    if not confirmed:
        return tuple(parts) + ("No case was borderline.",)
    cleared = [c.id for c in confirmed if c.status is Status.PASS]
    runs = sum(len(c.raw["check"]["confirmations"]) for c in confirmed)
    parts.append(f"{len(confirmed)} borderline, {runs} fresh-seed run(s)")
    if cleared:
        parts += ["; cleared: ", *_joined(run, cleared)]
    return tuple(parts) + (".",)


def _first_failure(case) -> str:
    failures = case.check.failures if case.check else ()
    return str(failures[0] if failures else case.reason or "")


def _margin_line(run):
    """How close the correct cases came to their bounds, and the teeth
    margin: the mildest control caught by a bound over that (as `ampbench
    run` prints it)."""
    rated = [(bound_ratio(c), c.id) for c in run.cases
             if c.expect is Expect.PASS and c.status is Status.PASS and bound_ratio(c) is not None]
    if not rated:
        return None
    ratio, case_id = max(rated)
    parts = [f"Margin: the conforming case nearest its bound used {100 * ratio:.3g}% of it (",
             case_link(run, case_id), f"), of {len(rated)} checked against fp32"]
    margin = _teeth_margin(run)
    if margin:
        parts.append(f"; teeth margin {margin:.3g}× (mildest control over nearest correct case)")
    return tuple(parts) + (".",)


# -- the headline table --------------------------------------------------------------

def headline_rows(run) -> dict:
    """{(model, precision): HeadlineRow-like dict} over single-device, correct cases."""
    eligible = [c for c in run.cases if c.expect is not Expect.FAIL and not c.ddp and c.world_size == 1]
    rows = {}
    for (model, precision), cases in _by_model_precision(eligible).items():
        timed = [c for c in cases if c.throughput]
        lead = _lead_case(timed)
        ratios = [r for r in (speedup(run, c) for c in timed) if r]
        ran = [c for c in cases if c.status is not Status.SKIPPED]
        use = utilisation(run, lead) if lead else None
        rows[(model, precision)] = {
            "lead": lead, "speedup": speedup(run, lead) if lead else None,
            "ratios": ratios, "mfu": use.mfu if use else None,
            "conform": (sum(1 for c in ran if c.conforms), len(ran))}
    return rows


def _by_model_precision(cases) -> dict:
    groups = {}
    for model, model_cases in group_by(cases, "model").items():
        for precision in sorted({c.precision for c in model_cases}, key=precision_key):
            groups[(model, precision)] = [c for c in model_cases if c.precision == precision]
    return groups


def _lead_case(timed):
    """The plain loop's case if the suite has one, else the first timed one."""
    plain = [c for c in timed if c.workload == HEADLINE_WORKLOAD and not c.tag]
    return (plain or timed or [None])[0]


def headline_table(run):
    rows = headline_rows(run)
    with_mfu = any(row["mfu"] is not None for row in rows.values())  # MFU needs measured ceilings
    data = []
    for (model, precision), row in rows.items():
        lead = row["lead"]
        cells = [model, precision,
                 case_link(run, lead.id) if lead else DASH,
                 fmt_rate(lead.throughput.median) if lead else DASH,
                 fmt_ratio(row["speedup"]) if precision != "fp32" else "1 (baseline)",
                 _geo_range(row["ratios"]) if precision != "fp32" else DASH]
        cells += [fmt_percent(row["mfu"])] if with_mfu else []
        data.append((*cells, f"{row['conform'][0]} of {row['conform'][1]}"))
    headers = ["model", "precision", "headline case", "samples/s", "speedup over fp32",
               "speedup, all timed cases (geo-mean, range)"]
    headers += ["MFU"] if with_mfu else []
    return make_table(headers + ["cases conforming"], data)


def _geo_range(ratios) -> str:
    if not ratios:
        return DASH
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    return f"{geo:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}, {len(ratios)} cases)"
