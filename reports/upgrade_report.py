"""The upgrade report: the verdict line, then conformance, max_ratio moves,
throughput, the autocast policy and the environment, as report blocks
(rendered to Markdown and into the HTML comparison report) and as JUnit."""

from __future__ import annotations

from dataclasses import dataclass

from reference.python.results_file import load_results

from . import upgrade as up
from .blocks import Bullets, Heading, Table, Text
from .upgrade_breaks import break_words, graph_breaks
from .upgrade_junit import junit_document, testcase
from .runs import ordered_unique
from .upgrade_policy import policy_diff, policy_lines, policy_table_rows


@dataclass(frozen=True)
class Upgrade:
    old_version: str
    new_version: str
    suite: str
    rounds: int
    conformance: list
    bounds: list
    speeds: list
    env: list
    policy: list
    gate_only: tuple = ()   # (case id, check) the gate failed and this reading did not
    faults: tuple = ()      # "FILE: --inject-slowdown 0.2" per run made with a fault switch
    rehearsal: bool = False  # --rehearsal: the verdict rehearses, it measures nothing
    breaks: tuple = ()       # BreakChange per case run compiled (upgrade_breaks.py)


def load_side(paths, version: str, side: str, rehearsal: bool) -> list:
    runs = [load_results(p) for p in paths]
    for r in runs:
        up.check_unicode(r.raw, r.path)
        got = str(r.env.get("libtorch_version", "")).split("+")[0]
        if got != version:
            raise up.UpgradeInputError(f"{r.path}: ran torch {got or '(unknown)'}, not {version}")
        faults = up.injected_faults(r)
        # A slowdown injected on purpose must never become a verdict unasked.
        if faults and not rehearsal:
            raise up.UpgradeInputError(f"{r.path} ({side} side, torch {version}): was made with {faults[0]}, a "
                                       f"test-only fault switch: it is not a measurement; pass --rehearsal to "
                                       f"rehearse the verdict")
    return runs


def _faults(runs) -> tuple:
    return tuple(f"{r.path}: {', '.join(f)}" for r in runs if (f := up.injected_faults(r)))


def analyse(old_paths, new_paths, old_version, new_version, old_policy=None, new_policy=None,
            rehearsal: bool = False) -> Upgrade:
    if not old_paths or len(old_paths) != len(new_paths):
        raise up.UpgradeInputError(f"{len(old_paths)} run(s) of {old_version} and {len(new_paths)} of "
                                   f"{new_version}: the rounds pair run i with run i, so they must match")
    if len(old_paths) > up.MAX_ROUNDS:
        raise up.UpgradeInputError(f"{len(old_paths)} rounds: at most {up.MAX_ROUNDS} are read")
    old = load_side(old_paths, old_version, "old", rehearsal)
    new = load_side(new_paths, new_version, "new", rehearsal)
    suites = sorted({r.suite for r in old + new})
    if len(suites) > 1:
        raise up.UpgradeInputError(f"the runs are of different suites ({', '.join(suites)})")
    ids = ordered_unique(c.id for r in old + new for c in r.cases)
    policy = policy_diff(old_policy, new_policy) if old_policy and new_policy else []
    return Upgrade(old_version, new_version, suites[0], len(old), up.conformance(old, new, ids),
                   up.bound_moves(old, new, ids), up.throughput(old, new, ids), up.env_diff(old, new), policy,
                   faults=_faults(old + new), rehearsal=rehearsal, breaks=tuple(graph_breaks(old, new, ids)))


def _pct(ratio) -> str:
    return "-" if ratio is None else f"{(ratio - 1) * 100:+.1f}%"


def _interval(s) -> str:
    return "-" if s.low is None else f"[{_pct(s.low)}, {_pct(s.high)}]"


def _speed_words(s) -> str:
    return f"{s.case_id} {_pct(s.ratio)} {_interval(s)} over {s.pairs} pairs"


def verdict(u: Upgrade) -> tuple:
    """(passed, the one line that says so)."""
    worse = [c for c in u.conformance if c.worse]
    slower = [s for s in u.speeds if s.verdict == up.REGRESSION]
    broken = [b for b in u.breaks if b.worse]
    rehearsal = ", a REHEARSAL: not a measurement" if u.rehearsal else ""
    head = f"upgrade {u.old_version} -> {u.new_version} ({u.suite}, {u.rounds} rounds{rehearsal})"
    if not worse and not slower and not broken and not u.gate_only:
        conforming = sum(c.new == "ok" for c in u.conformance)
        judged = sum(s.p is not None for s in u.speeds)
        unsure = [s for s in u.speeds if s.verdict == up.NO_CHANGE and abs(s.ratio - 1) > s.min_effect]
        # A PASS must not hide a large move the rounds were too few to confirm.
        hint = (f"; {len(unsure)} row(s) moved beyond their minimum effect without reaching q < 0.05 "
                f"(more pairs would tell)" if unsure else "")
        return True, (f"{head}: PASS: no case changed for the worse ({conforming} of {len(u.conformance)} "
                      f"conform with {u.new_version}), no throughput regression ({judged} rows judged){hint}")
    parts = []
    if worse:
        parts.append(f"{len(worse)} case(s) changed for the worse: " +
                     "; ".join(f"{c.case_id} {c.old} -> {c.new}" for c in worse[:5]) +
                     ("; ..." if len(worse) > 5 else ""))
    if slower:
        slower.sort(key=lambda s: s.ratio)
        parts.append(f"{len(slower)} throughput regression(s): " +
                     "; ".join(_speed_words(s) for s in slower[:5]) + ("; ..." if len(slower) > 5 else ""))
    if broken:
        parts.append(f"{len(broken)} compiled case(s) gained graph breaks: " +
                     "; ".join(break_words(b) for b in broken[:5]) + ("; ..." if len(broken) > 5 else ""))
    if u.gate_only:
        parts.append("ampbench gate --paired also failed " + "; ".join(f"{i} [{c}]" for i, c in u.gate_only))
    return False, f"{head}: FAIL: " + "; ".join(parts)


def _conformance_blocks(u: Upgrade) -> list:
    def count(side):
        states = [getattr(c, side) for c in u.conformance]
        return ", ".join(f"{states.count(s)} {s}" for s in ("ok", "FAIL", "ERROR", "skipped", "missing")
                         if states.count(s))
    blocks = [Heading(2, "Conformance"),
              Bullets((f"{u.old_version}: {count('old')}", f"{u.new_version}: {count('new')}"))]
    changed = [c for c in u.conformance if c.changed]
    if not changed:
        return blocks + [Text("No case changed its verdict.")]
    rows = [(c.case_id, f"{c.old} {c.old_detail}".strip(), f"{c.new} {c.new_detail}".strip(),
             "worse" if c.worse else "better or neutral") for c in changed]
    return blocks + [Table(("case", u.old_version, u.new_version, "change"), rows, (1, 2))]


def _bound_blocks(u: Upgrade) -> list:
    news = [b for b in u.bounds if b.news]
    intro = (f"max_ratio is a case's largest distance over its bound (> 1 fails); the median over the rounds "
             f"of each side. News: the medians differ by {up.NEWS_SHIFT:g} of the bound or more and the "
             f"sides' ranges over the rounds do not overlap. {len(news)} of {len(u.bounds)} cases are news.")
    fmt = lambda v: "-" if v is None else f"{v:.3f}"
    rows = [(b.case_id, fmt(b.old), fmt(b.new), "-" if b.delta is None else f"{b.delta:+.3f}",
             "NEWS" if b.news else "") for b in sorted(u.bounds, key=lambda b: -abs(b.delta or 0))]
    return [Heading(2, "Distance to the bound (max_ratio)"), Text(intro),
            Table(("case", u.old_version, u.new_version, "moved", "news"), rows, ())]


def _speed_blocks(u: Upgrade) -> list:
    intro = ("Per case: median samples/s per side, the median of the per-round ratios (new / old) and its "
             "~95% interval (Wilcoxon signed-rank inverted), p of the paired test as ampbench gate --paired "
             "computes it, q adjusted over the rows (Benjamini-Hochberg). A row is a regression or an "
             "improvement when q < 0.05 and the ratio is beyond the case's minimum effect. Largest "
             "slowdown first.")
    fmt = lambda v, spec: "-" if v is None else format(v, spec)
    rows = [(s.case_id, fmt(s.old, ".1f"), fmt(s.new, ".1f"), _pct(s.ratio), _interval(s), str(s.pairs),
             fmt(s.p, ".3g"), fmt(s.q, ".3g"), s.verdict)
            for s in sorted(u.speeds, key=lambda s: s.ratio if s.ratio is not None else 9e9)]
    return [Heading(2, "Throughput"), Text(intro),
            Table(("case", f"{u.old_version} samples/s", f"{u.new_version} samples/s", "change", "interval",
                   "pairs", "p", "q", "verdict"), rows, (8,))]


def _break_blocks(u: Upgrade) -> list:
    if not u.breaks:
        return []
    fmt = lambda v: "-" if v is None else str(v)
    rows = [(b.case_id, fmt(b.old), fmt(b.new), "; ".join(b.new_reasons) or "-",
             "worse" if b.worse else "") for b in u.breaks]
    intro = ("Cases trained by torch.compile (--implementation compiled): the graph breaks on each side, the "
             "most over the rounds. More breaks with the new torch fail the upgrade.")
    return [Heading(2, "Graph breaks (compiled)"), Text(intro),
            Table(("case", u.old_version, u.new_version, f"reasons ({u.new_version})", "change"), rows, (4,))]


def _policy_blocks(u: Upgrade) -> list:
    blocks = [Heading(2, "Autocast policy"), Bullets(tuple(policy_lines(u.policy, u.old_version,
                                                                         u.new_version)))]
    rows = policy_table_rows(u.policy)
    if rows:
        blocks.append(Table(("table", "change", "op", "dtype", u.old_version, u.new_version), rows, ()))
    return blocks


def _env_blocks(u: Upgrade) -> list:
    stack = [e for e in u.env if e.torch_stack]
    other = [e for e in u.env if not e.torch_stack]
    lines = [f"torch stack: {e.field}: {e.old} -> {e.new}" for e in stack] or ["torch stack: no field differs"]
    lines += [f"CONFOUNDER: {e.field}: {e.old} -> {e.new}" for e in other] or \
        ["no confounder: every field outside the torch stack is the same on both sides and in every round"]
    return [Heading(2, "Environment"), Bullets(tuple(lines))]


def _rehearsal_words(u: Upgrade) -> str:
    made = (f"{len(u.faults)} run(s) were made with a test-only fault switch ({u.faults[0]}"
            f"{', ...' if len(u.faults) > 1 else ''})" if u.faults else "no run was made with a fault switch")
    return f"rehearsal (--rehearsal): this verdict rehearses the upgrade gate and measures nothing; {made}"


def report_blocks(u: Upgrade, title: bool = True) -> list:
    passed, line = verdict(u)
    blocks = [Heading(1, f"ampbench upgrade {u.old_version} -> {u.new_version}")] if title else []
    confounders = [e.field for e in u.env if not e.torch_stack]
    blocks.append(Text(line, tone="ok" if passed else "bad"))
    if u.rehearsal:
        blocks.append(Text(_rehearsal_words(u), warning=True))
    if confounders:
        blocks.append(Text(f"the sides differ in more than torch: {', '.join(confounders)}", warning=True))
    return (blocks + _conformance_blocks(u) + _bound_blocks(u) + _speed_blocks(u) + _break_blocks(u)
            + _policy_blocks(u) + _env_blocks(u))


def junit(u: Upgrade) -> str:
    passed, line = verdict(u)
    cases = [testcase(c.case_id, "conformance",
                      failure=f"{c.old} -> {c.new}" if c.worse else None,
                      out=f"{c.old} -> {c.new}" if c.changed and not c.worse else None)
             for c in u.conformance]
    for s in u.speeds:
        words = f"{_pct(s.ratio)} {_interval(s)}, p={s.p}, q={s.q}, {s.pairs} pairs"
        cases.append(testcase(s.case_id, "throughput",
                              failure=f"regression: {words}" if s.verdict == up.REGRESSION else None,
                              skipped=s.verdict if s.verdict in (up.TOO_FEW, up.ONE_SIDED) else None,
                              out=f"{s.verdict}: {words}"))
    cases += [testcase(b.case_id, "graph_breaks", failure=break_words(b) if b.worse else None,
                       out=break_words(b)) for b in u.breaks]
    notes = [line] + ([_rehearsal_words(u)] if u.rehearsal else [])
    notes += [f"max_ratio news: {b.case_id} {b.old:.3f} -> {b.new:.3f}" for b in u.bounds if b.news]
    notes += policy_lines(u.policy, u.old_version, u.new_version)
    notes += [f"{'torch stack' if e.torch_stack else 'CONFOUNDER'}: {e.field}: {e.old} -> {e.new}" for e in u.env]
    name = f"ampbench upgrade {u.old_version} -> {u.new_version}{' (rehearsal)' if u.rehearsal else ''}"
    return junit_document(name, cases, notes)
