"""Graph breaks across an upgrade: for each case the compiled implementation
ran, the graph breaks torch.compile met on each side (the most over the
rounds: one round with a break is a break).  More breaks with the new torch
fail the upgrade, as `ampbench gate` fails a run that gained breaks; fewer
are reported, not judged."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BreakChange:
    case_id: str
    old: int | None   # None: the case did not run compiled on that side
    new: int | None
    old_reasons: tuple
    new_reasons: tuple

    @property
    def worse(self) -> bool:
        return self.old is not None and self.new is not None and self.new > self.old


def _most(runs, case_id) -> tuple:
    """(the most breaks over the rounds, that round's reasons) or (None, ())."""
    blocks = [b for r in runs if (c := r.case(case_id)) and (b := c.raw.get("compiled"))]
    if not blocks:
        return None, ()
    worst = max(blocks, key=lambda b: b.get("graph_break_count", 0))
    reasons = tuple(str(b.get("reason", b)) for b in worst.get("graph_breaks", []))
    return int(worst.get("graph_break_count", 0)), reasons


def graph_breaks(old_runs, new_runs, ids) -> list:
    rows = []
    for i in ids:
        old, old_reasons = _most(old_runs, i)
        new, new_reasons = _most(new_runs, i)
        if old is not None or new is not None:
            rows.append(BreakChange(i, old, new, old_reasons, new_reasons))
    return rows


def break_words(b: BreakChange) -> str:
    gained = [r for r in b.new_reasons if r not in b.old_reasons]
    return f"{b.case_id} {b.old} -> {b.new} graph breaks" + (f" ({gained[0]})" if gained else "")
