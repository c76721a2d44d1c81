"""The autocast policy of two torch versions, each from its own
`ampbench autocast-ops` table (autocast-ops.json), compared op by op: which
(op, dtype) rows one version has and the other has not, and which the two
cast differently (another output dtype, another autocast list, or one
raises where the other computes).

Both tables of a file are compared: "got", what LibTorch's C++ autocast did,
and "expected", what Python's torch.autocast did, each against the same
table of the other version. An error's text is not compared: messages are
reworded between releases without the policy changing.
"""

from __future__ import annotations

from dataclasses import dataclass

TABLES = (("got", "LibTorch (C++ autocast)"), ("expected", "torch.autocast (Python)"))


def outcome(entry: dict) -> str:
    for key, label in (("cannot_call", "cannot call"), ("skipped", "skipped"), ("error", "raises")):
        if entry.get(key):
            return label
    return str(entry.get("output_dtype", "?"))


def policy_problem(doc: dict) -> str | None:
    """Why a table of an autocast-ops.json cannot be compared, or None."""
    for table, _ in TABLES:
        t = doc.get(table)
        if t is not None and not (isinstance(t, dict) and isinstance(t.get("ops", []), (list, type(None)))):
            return f"\"{table}\" must be an object with an \"ops\" list"
    return None


def policy_rows(doc: dict, table: str) -> dict:
    """(op, dtype) -> (list, outcome) for one table of an autocast-ops.json."""
    ops = (doc.get(table) or {}).get("ops") or []
    return {(str(e.get("op")), str(e.get("dtype"))): (str(e.get("list", "")), outcome(e))
            for e in ops if isinstance(e, dict)}


@dataclass(frozen=True)
class PolicyDiff:
    table: str           # label of the table compared
    rows: int            # rows the two versions share
    added: tuple         # (op, dtype, list, outcome) only the new version has
    removed: tuple       # (op, dtype, list, outcome) only the old version has
    changed: tuple       # (op, dtype, old "list: outcome", new "list: outcome")

    @property
    def equal(self) -> bool:
        return not (self.added or self.removed or self.changed)


def policy_diff(old_doc: dict, new_doc: dict) -> list:
    """One PolicyDiff per table both files hold."""
    out = []
    for table, label in TABLES:
        old, new = policy_rows(old_doc, table), policy_rows(new_doc, table)
        if not old and not new:
            continue
        shared = sorted(set(old) & set(new))
        out.append(PolicyDiff(
            label, len(shared),
            tuple((*k, *new[k]) for k in sorted(set(new) - set(old))),
            tuple((*k, *old[k]) for k in sorted(set(old) - set(new))),
            tuple((*k, ": ".join(old[k]), ": ".join(new[k])) for k in shared if old[k] != new[k])))
    return out


def policy_lines(diffs: list, old_version: str, new_version: str) -> list:
    """One summary line per table, for the report's bullets."""
    if not diffs:
        return ["the autocast policy was not compared (no autocast-ops table of either side)"]
    lines = []
    for d in diffs:
        if d.equal:
            lines.append(f"{d.table}: compared, equal ({d.rows} op/dtype rows in both {old_version} "
                         f"and {new_version})")
        else:
            lines.append(f"{d.table}: {len(d.added)} added, {len(d.removed)} removed, {len(d.changed)} cast "
                         f"differently ({d.rows} rows in both)")
    return lines


def policy_table_rows(diffs: list) -> list:
    """(table, change, op, dtype, old, new) per differing row."""
    rows = []
    for d in diffs:
        rows += [(d.table, "added", op, dt, "-", f"{lst}: {out}") for op, dt, lst, out in d.added]
        rows += [(d.table, "removed", op, dt, f"{lst}: {out}", "-") for op, dt, lst, out in d.removed]
        rows += [(d.table, "cast differently", op, dt, old, new) for op, dt, old, new in d.changed]
    return rows
