"""`--filter` for dumped cases, in the two forms `ampbench run --filter`
takes (harness/runner/case_filter.h), so that a replay selects with the same
words as the run that wrote the dump:

- fields: "workload=clip,precision=fp16|bf16" (keys workload, variant,
  model, precision, optimizer, optimizer_impl, tag; every key must match,
  '|' separates accepted values, workload=clip matches clip_norm and
  clip_value), matched against each case's case.json spec;
- otherwise a regular expression searched in the case folder's name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

FIELDS = ("workload", "variant", "model", "precision", "optimizer", "optimizer_impl", "tag")
_FIELD_TERM = re.compile(r"[a-z_]+=[^=,]+")

# (folder name, its case.json spec or None when unreadable) -> selected
SpecMatcher = Callable[[str, "Mapping[str, Any] | None"], bool]


class FilterError(ValueError):
    """The filter, and what is wrong with it."""


def is_field_filter(text: str) -> bool:
    return all(_FIELD_TERM.fullmatch(term) for term in text.split(","))


def parse_case_filter(text: str) -> SpecMatcher:
    """Raises FilterError naming the filter: an unknown field, a bad regex."""
    if is_field_filter(text):
        return _field_matcher(text)
    try:
        rx = re.compile(text)
    except re.error as e:
        raise FilterError(f"--filter '{text}': {e}") from None
    return lambda folder, spec: rx.search(folder) is not None


def _field_matcher(text: str) -> SpecMatcher:
    wanted: dict[str, list[str]] = {}
    for term in text.split(","):
        key, values = term.split("=")
        if key not in FIELDS:
            raise FilterError(f"--filter '{text}': unknown field '{key}' (known: {', '.join(FIELDS)})")
        wanted.setdefault(key, []).extend(values.split("|"))

    def matches(folder: str, spec: Mapping[str, Any] | None) -> bool:
        if spec is None:
            return True  # kept, so that the replay names what is wrong with it
        return all(any(_value_matches(key, _field(spec, key), v) for v in values) for key, values in wanted.items())
    return matches


def _field(spec: Mapping[str, Any], key: str) -> str:
    if key == "tag" and "tag" not in spec:
        # case.json names the tag only in the id: "plain/mlp/fp16/sgd@tag",
        # an aligned re-run's "...@tag#aligned-to:..." carrying its baseline's.
        ident = str(spec.get("id", "")).split("#")[0]
        return ident.split("@", 1)[1] if "@" in ident else ""
    return str(spec.get(key) or "")


def _value_matches(key: str, actual: str, wanted: str) -> bool:
    return actual == wanted or (key == "workload" and actual.startswith(wanted + "_"))
