"""The one Python reader of results.json, for reports/, reference/python,
harness/schema and ci/.

results.json is written by the C++ harness (harness/results/results_writer.cpp)
and by `python -m reference.python.bench`. Its contract is
harness/schema/results.schema.json (the prose is harness/results/SCHEMA.md):
a file is read with the bounded reader's limits, validated against that
schema plus the rules a JSON schema cannot state (unique case ids, min <=
median <= max), and returned as typed objects. Readers compare Status and
Expect members rather than strings, so a misspelt verdict is an
AttributeError instead of a comparison that is silently never true.

Imports the standard library and jsonschema only: reports/ and ci/ use it
without loading torch.
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from .bounded_json import JsonInputError, read_bounded_json

SCHEMA_NAME = "ampbench.results"
# The version writers write, the C++ kResultsSchemaVersion (harness/results/).
SCHEMA_VERSION = 2
# Version 2 only added blocks (check.envelope/bounds/max_ratio, engagement),
# so version 1 files still read, as in the C++ readers.
OLDEST_READABLE_VERSION = 1
READABLE_VERSIONS = tuple(range(OLDEST_READABLE_VERSION, SCHEMA_VERSION + 1))
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "harness" / "schema" / "results.schema.json"

# A JSON message quotes the offending value; a whole case would swamp the line.
_MAX_MESSAGE = 200


class JsonName(str, Enum):
    """An enum of JSON strings that prints as its string (as StrEnum, which
    Python 3.10 lacks)."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class Status(JsonName):
    """A case's verdict; the schema's `status` enum."""
    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    ERROR = "error"


class Expect(JsonName):
    """What a case should do; the schema's `expect` enum. REPORT: the verdict
    is shown, not required (O3)."""
    PASS = "pass"
    FAIL = "fail"
    REPORT = "report"


class ResultsError(Exception):
    """A results file that cannot be used. `reason` is one line (the CLIs
    print one line per file); `problems` holds every schema violation, and is
    empty when the file is not readable JSON at all."""

    def __init__(self, path, reason: str, problems: tuple[str, ...] = ()):
        self.path = str(path)
        self.reason = " ".join(str(reason).split())
        self.problems = tuple(problems)
        super().__init__(f"{self.path}: {self.reason}")


# --- typed view -----------------------------------------------------------

@dataclass(frozen=True)
class Trajectory:
    loss: tuple[float | None, ...]  # None: a non-finite loss (JSON has no NaN)
    scale: tuple[float, ...]
    skipped: tuple[bool, ...]


@dataclass(frozen=True)
class Throughput:
    unit: str
    timing: str
    input: str  # "cached" or "host": never divide one by the other
    warmup_steps: int
    measured_steps: int
    repetitions: int
    samples_per_s: tuple[float, ...]
    median: float
    min: float
    max: float
    stddev: float
    cv: float
    step_time_ms: float
    peak_memory_bytes: int | None
    training_flops_per_sample: float
    achieved_flops_per_s: float
    speedup_vs_fp32: float | None
    iqr: float | None = None
    model_flop_utilization: float | None = None
    ceiling_speedup_vs_fp32: float | None = None


@dataclass(frozen=True)
class Check:
    metrics: Mapping[str, float | None]
    tolerances: Mapping[str, float]
    deviation_per_step: tuple[float | None, ...]
    first_crossing_step: int | None
    failures: tuple[str, ...]
    # Version 2: the measured equivalence envelope (docs/checks.md).
    envelope: Mapping[str, Any] | None = None
    bounds: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    max_ratio: float | None = None
    # Caught by an exact rule (GradScaler's update, an FP8 recipe's scales),
    # whatever the distances say.
    scale_audit_failed: bool = False


@dataclass(frozen=True)
class Ddp:
    per_rank_samples_per_s: tuple[float, ...]
    aggregate_samples_per_s: float
    scaling_efficiency: float
    replicas: int
    backend: str


# eq=False: cases compare by identity, so two runs' equal cases stay apart.
@dataclass(frozen=True, eq=False)
class Case:
    id: str
    workload: str
    variant: str
    model: str
    precision: str
    optimizer: str
    device: str
    world_size: int
    batch_size: int
    steps: int
    seed: int
    expect: Expect
    status: Status
    conforms: bool | None
    reason: str | None
    baseline_id: str | None  # None: an fp32 baseline
    trajectory: Trajectory
    check: Check | None
    throughput: Throughput | None
    ddp: Ddp | None
    # Optional keys, absent in older files.
    tag: str = ""
    scaler_enabled: bool | None = None
    optimizer_impl: str | None = None
    grad_health: Mapping[str, Any] | None = None
    # FP8 precisions: the recipe and each Linear layer's choice (and scales).
    fp8: Mapping[str, Any] | None = None
    engagement: Mapping[str, Any] | None = None
    gate: Mapping[str, Any] | None = None
    # `ampbench run --deterministic` only: the run's hashes (reports/fleet.py).
    fingerprint: Mapping[str, str] | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)  # the case's JSON object


@dataclass(frozen=True, eq=False)
class Results:
    path: str
    schema_version: int
    suite: str
    suite_file: str
    started_utc: str
    finished_utc: str | None  # None while the run is in progress
    complete: bool
    env: Mapping[str, Any]
    cases: tuple[Case, ...]
    gate: Mapping[str, Any] | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    _by_id: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_by_id", {c.id: c for c in self.cases})

    def case(self, case_id: str | None) -> Case | None:
        return self._by_id.get(case_id)


def _build(cls, obj: Mapping[str, Any]):
    """A dataclass from a validated JSON object: arrays become tuples; a key
    the class gives a default may be absent (older files) or null."""
    values = {}
    for f in fields(cls):
        optional = f.default is not MISSING or f.default_factory is not MISSING
        if not f.init or (optional and obj.get(f.name) is None):
            continue
        value = obj[f.name]
        values[f.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def _case(raw: Mapping[str, Any]) -> Case:
    def block(cls, key):
        return None if raw.get(key) is None else _build(cls, raw[key])

    return Case(
        id=raw["id"], workload=raw["workload"], variant=raw["variant"], model=raw["model"],
        precision=raw["precision"], optimizer=raw["optimizer"], device=raw["device"],
        world_size=raw["world_size"], batch_size=raw["batch_size"], steps=raw["steps"], seed=raw["seed"],
        expect=Expect(raw["expect"]), status=Status(raw["status"]), conforms=raw["conforms"],
        reason=raw["reason"], baseline_id=raw["baseline_id"],
        trajectory=_build(Trajectory, raw["trajectory"]), check=block(Check, "check"),
        throughput=block(Throughput, "throughput"), ddp=block(Ddp, "ddp"),
        tag=raw.get("tag") or "", scaler_enabled=raw.get("scaler_enabled"),
        optimizer_impl=raw.get("optimizer_impl"), grad_health=raw.get("grad_health"), fp8=raw.get("fp8"),
        engagement=raw.get("engagement"), gate=raw.get("gate"), fingerprint=raw.get("fingerprint"), raw=raw)


def _results(doc: Mapping[str, Any], path) -> Results:
    return Results(path=str(path), schema_version=doc["schema_version"], suite=doc["suite"],
                   suite_file=doc["suite_file"], started_utc=doc["started_utc"],
                   finished_utc=doc["finished_utc"], complete=doc["complete"], env=doc["env"],
                   cases=tuple(_case(c) for c in doc["cases"]), gate=doc.get("gate"), raw=doc)


# --- reading and validation ------------------------------------------------

def load_results(path) -> Results:
    """Read, validate and type one results file; ResultsError names the file
    and the first problem."""
    try:
        doc = read_bounded_json(path)
    except JsonInputError as exc:
        raise ResultsError(path, exc.reason) from None
    return parse_results(doc, path)


def parse_results(doc: Any, path="<results>") -> Results:
    """Validate and type an already parsed document."""
    problems = violations(doc)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ResultsError(path, problems[0] + more, problems)
    return _results(doc, path)


@lru_cache(maxsize=1)
def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@lru_cache(maxsize=1)
def _validator():
    # Imported here so that a script that only needs the constants or the
    # enums (bench.py writing a file) does not need jsonschema.
    try:
        import jsonschema
    except ImportError as exc:
        raise ImportError("reading results.json needs jsonschema (ci/requirements.txt): run this with "
                          "the venv's Python, $AMPBENCH_HOME/venv/bin/python") from exc
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def violations(doc: Any) -> list[str]:
    """Every problem as 'PATH (case ID): message', in document order; []
    when the document is a valid results file."""
    identity = _identity_problem(doc)
    if identity:
        return [identity]
    from jsonschema.exceptions import best_match
    # Array indices compare as numbers, so cases[12] comes before cases[100].
    errors = sorted(_validator().iter_errors(doc),
                    key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, p) for p in e.absolute_path])
    # best_match descends into oneOf/anyOf to the branch that fits the value:
    # "throughput.median: missing" rather than "not valid under any schema".
    found = [_describe(best_match([e]), doc) for e in errors]
    return found or _beyond_the_schema(doc)


def _identity_problem(doc: Any) -> str | None:
    """A foreign or newer file is named as such, not as a list of missing keys."""
    if not isinstance(doc, dict):
        return "(top level): not a JSON object"
    if doc.get("schema") != SCHEMA_NAME:
        return f".schema: is {doc.get('schema')!r}, expected {SCHEMA_NAME!r}"
    version = doc.get("schema_version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        return (f".schema_version: is {version!r}; this reader reads versions "
                f"{', '.join(map(str, READABLE_VERSIONS))} (writers write {SCHEMA_VERSION})")
    return None


def _describe(error, doc) -> str:
    path = list(error.absolute_path)
    message = error.message
    if error.validator == "required":
        # One error per missing key; only its message says which.
        path += [k for k in error.validator_value if error.message == f"{k!r} is a required property"][:1]
        message = "missing required key"
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE - 3] + "..."
    return f"{_where(path, doc)}: {message}"


def _where(path: list, doc) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "(top level)"
    if len(path) >= 2 and path[0] == "cases":
        case = doc["cases"][path[1]]
        if isinstance(case, dict) and isinstance(case.get("id"), str):
            text += f" (case {case['id']})"
    return text


def _beyond_the_schema(doc) -> list[str]:
    """What a JSON schema cannot say: ids are the join key of gate and report,
    and the figures draw min..max around the median."""
    found, first_index = [], {}
    for i, case in enumerate(doc["cases"]):
        if case["id"] in first_index:
            found.append(f"{_where(['cases', i, 'id'], doc)}: duplicate case id, "
                         f"also cases[{first_index[case['id']]}]")
        first_index.setdefault(case["id"], i)
        tp = case["throughput"]
        if tp is None:
            continue
        low, mid, high = tp["min"], tp["median"], tp["max"]
        where = _where(["cases", i, "throughput"], doc)
        # NaN passes the schema's "> 0": every comparison with it is false.
        if not all(math.isfinite(v) for v in (low, mid, high)):
            found.append(f"{where}: min/median/max must be finite, got {low}/{mid}/{high}")
        elif not low <= mid <= high:
            found.append(f"{where}: min <= median <= max does not hold: {low}/{mid}/{high}")
    return found


def inconsistencies(results: Results) -> list[str]:
    """Derived throughput figures that disagree with the file's own data:
    median against samples_per_s, and speedup_vs_fp32 against the two
    medians (and null where both medians exist). Not a reason to refuse a
    file, so load_results leaves them to harness/schema/validate_results.py."""
    out, medians = [], {}
    for i, case in enumerate(results.cases):
        tp = case.throughput
        if tp is None:
            continue
        expected = statistics.median(tp.samples_per_s)
        if not math.isclose(tp.median, expected, rel_tol=1e-9):
            out.append(f".cases[{i}].throughput (case {case.id}): median {tp.median} is not the median "
                       f"of samples_per_s ({expected})")
        medians[case.id] = tp.median
    for i, case in enumerate(results.cases):
        tp, where = case.throughput, f".cases[{i}].throughput (case {case.id})"
        base = medians.get(case.baseline_id) if case.baseline_id != case.id else None
        if tp is None or not base:
            continue
        if tp.speedup_vs_fp32 is None:
            out.append(f"{where}: speedup_vs_fp32 is null, though the case and its fp32 baseline "
                       f"{case.baseline_id} were both measured")
        elif not math.isclose(tp.speedup_vs_fp32, tp.median / base, rel_tol=1e-9):
            out.append(f"{where}: speedup_vs_fp32 {tp.speedup_vs_fp32} is not median / the fp32 "
                       f"baseline's median ({tp.median / base})")
    return out
