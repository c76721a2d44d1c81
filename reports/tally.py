"""What a run's cases came to, counted the way a reader means it.

A case's status alone misleads: a negative control's "fail" is the checker
doing its job, and a reported-only verdict (O3) is shown, not required. So
the cases are counted by what was expected of them: correct cases passed or
failed, negative controls caught or missed, reported-only cases, plus errors
and skips. `ampbench run` prints the same counts (harness/session/suite_run.h).
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.python.results_file import Expect, Status


@dataclass(frozen=True)
class Tally:
    correct_passed: int = 0
    correct_failed: int = 0
    controls_caught: int = 0
    controls_missed: int = 0
    reported: int = 0
    reported_unpassed: int = 0  # reported-only cases whose check failed: shown, not required
    errors: int = 0
    skipped: int = 0

    @property
    def controls(self) -> int:
        return self.controls_caught + self.controls_missed


def tally(cases) -> Tally:
    counts = dict.fromkeys(Tally.__dataclass_fields__, 0)
    for c in cases:
        if c.status is Status.SKIPPED:
            counts["skipped"] += 1
        elif c.status is Status.ERROR:
            counts["errors"] += 1  # whatever was expected: an error has no verdict
        elif c.expect is Expect.FAIL:
            counts["controls_caught" if c.status is Status.FAIL else "controls_missed"] += 1
        elif c.expect is Expect.REPORT:
            counts["reported"] += 1
            counts["reported_unpassed"] += c.status is Status.FAIL
        else:
            counts["correct_passed" if c.status is Status.PASS else "correct_failed"] += 1
    return Tally(**counts)


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def tally_phrase(t: Tally) -> str:
    """'152 correct cases passed; 9 of 9 negative controls caught; 2 reported
    only; 0 skipped': a failure, a missed control or an error is named only
    when there is one, so a clean run's line holds no "fail"."""
    correct = _n(t.correct_passed, "correct case passed", "correct cases passed")
    parts = [correct + (f", {t.correct_failed} FAILED" if t.correct_failed else "")]
    if t.controls:
        parts.append(f"{t.controls_caught} of {_n(t.controls, 'negative control', 'negative controls')} caught"
                     + (f", {t.controls_missed} MISSED" if t.controls_missed else ""))
    if t.reported:
        unpassed = f" ({t.reported_unpassed} did not pass its check: shown, not required)" if t.reported_unpassed else ""
        parts.append(f"{t.reported} reported only{unpassed}")
    if t.errors:
        parts.append(_n(t.errors, "error", "errors"))
    parts.append(f"{t.skipped} skipped")
    return "; ".join(parts)


def stated_summary(run) -> dict | None:
    """The "summary" `ampbench run` wrote when the run finished (the counts
    and teeth it printed, harness/session/suite_run.h), or None for a run
    without one (unfinished, or made before runs stated it)."""
    summary = run.results.raw.get("summary")
    return summary if isinstance(summary, dict) else None


def counts_phrase(run) -> str:
    """The run's counts as its terminal printed them; a run that states none
    is counted here by the same rule."""
    line = (stated_summary(run) or {}).get("counts_line")
    return line if isinstance(line, str) else tally_phrase(tally(run.cases))
