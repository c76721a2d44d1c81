"""The fleet's input: one results folder per machine, read through the one
results loader, checked, and grouped by hardware and software.

What cannot be one fleet (another suite, another build, two folders claiming
one machine, results made with a test-only fault switch outside a
rehearsal) raises FleetInputError, which the CLI turns into exit 2; what is
one machine's problem (no results, an unfinished run, a run without
--deterministic or without fingerprints) stays with that machine as a
reason in the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reference.python.results_file import Results, ResultsError, Status, load_results

from .fleet_discovery import results_file

# The environment fields that must match for two machines to be expected
# to compute the same bits and run at the same speed. Left out on purpose:
# host and machine_id (the identity), os (kernel patch levels differ
# across a healthy fleet without changing a kernel's arithmetic) and
# cpu_cores (a deterministic run pins its thread count). cpu_id and the
# kernels' ceiling are in: a hypervisor may name two CPU generations alike,
# and a machine held to AVX2 takes other kernels.
GROUP_FIELDS = ("device", "cpu_model", "cpu_id", "cpu_capability", "onednn_max_cpu_isa", "gpu_name", "gpu_count", "compute_capability", "driver", "cuda_runtime",
                "cudnn", "nccl", "libtorch_version", "compiler", "git_commit", "git_dirty", "mkldnn_enabled",
                "deterministic", "implementation")
# Fields that make two runs different builds: never one fleet.
BUILD_FIELDS = ("git_commit", "git_dirty")
# `env` fields a test-only fault switch writes (`--inject-slowdown`,
# `--inject-bitflip`): results made under one measure the fault, not the
# machine. Any later `injected_*` field is such a switch too.
FAULT_PREFIX = "injected_"


class FleetInputError(Exception):
    """Input that is not one fleet: refused as a whole (exit 2)."""


@dataclass
class Machine:
    id: str
    folder: Path
    results: Results | None = None
    problems: list[str] = field(default_factory=list)  # why its results cannot be used as they are
    group: str | None = None
    faults: list[str] = field(default_factory=list)  # test-only fault switches its run was made with


def machine_id(results: Results) -> str:
    return str(results.env.get("machine_id") or results.env.get("host") or "")


def _load(folder: Path) -> Machine:
    path, problem = results_file(folder)
    if path is None:
        return Machine(folder.name, folder, problems=[f"results missing: {problem} in {folder}"])
    try:
        results = load_results(path)
    except ResultsError as exc:
        return Machine(folder.name, folder, problems=[f"results unreadable: {exc.reason} ({path})"])
    machine = Machine(machine_id(results) or folder.name, folder, results)
    if not results.complete:
        machine.problems.append("results incomplete: the run did not finish (complete=false)")
    if not results.env.get("deterministic"):
        machine.problems.append("run without --deterministic: no fingerprints to compare")
    machine.faults = [f"{k}={v}" for k, v in sorted(results.env.items())
                      if k.startswith(FAULT_PREFIX) and v is not None and v is not False]
    return machine


def load_machines(folders, expected=(), rehearsal=False) -> list[Machine]:
    """`folders`: one per machine (reports/fleet_discovery.py); `expected`:
    machine ids that must be there (a scheduler's node list): one without
    results is named even when it never made a folder. `rehearsal`: the
    user says faults were injected on purpose."""
    machines = [_load(folder) for folder in folders]
    _refuse_duplicates(machines)
    if not rehearsal:
        _refuse_faults(machines)
    present = {m.id for m in machines}
    machines += [Machine(i, Path("-"), problems=["results missing: expected, but no folder has its results"])
                 for i in dict.fromkeys(expected) if i not in present]
    _refuse_mixtures([m for m in machines if m.results is not None])
    _name_missing_cases(machines)
    _name_missing_fingerprints(machines)
    return machines


def _refuse_duplicates(machines) -> None:
    seen: dict[str, Path] = {}
    for m in machines:
        if m.id in seen:
            raise FleetInputError(f"machine {m.id!r} appears twice ({seen[m.id]} and {m.folder}): give each "
                                  "machine its own AMPBENCH_MACHINE_ID")
        seen[m.id] = m.folder


def _refuse_faults(machines) -> None:
    faulty = [f"{m.id} ({', '.join(m.faults)})" for m in machines if m.faults]
    if faulty:
        more = f" and {len(faulty) - 5} more" if len(faulty) > 5 else ""
        raise FleetInputError(f"results made with a test-only fault switch: {'; '.join(faulty[:5])}{more}: they "
                              "measure the fault, not the machine; pass --rehearsal if this is a rehearsal")


def _refuse_mixtures(loaded) -> None:
    if not loaded:
        raise FleetInputError("no machine has readable results")
    for what, value_of in (("suites", lambda r: r.suite),
                           ("builds", lambda r: tuple(r.env.get(f) for f in BUILD_FIELDS))):
        values: dict = {}
        for m in loaded:
            values.setdefault(value_of(m.results), []).append(m.id)
        if len(values) > 1:
            listed = "; ".join(f"{v}: {', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}"
                               for v, ids in values.items())
            raise FleetInputError(f"results of different {what} mixed ({listed}): qualify one build on one "
                                  "suite per report")


def _name_missing_cases(machines) -> None:
    """Every machine must have run every case some machine ran."""
    ran = {m.id: {c.id for c in m.results.cases} for m in machines if m.results is not None}
    union = set().union(*ran.values()) if ran else set()
    for m in machines:
        missing = sorted(union - ran.get(m.id, union))
        if missing:
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
            m.problems.append(f"results incomplete: {len(missing)} of {len(union)} cases missing ({shown})")


def _ran(machine: Machine) -> list:
    return [c for c in machine.results.cases if c.status in (Status.PASS, Status.FAIL)]


def _name_missing_fingerprints(machines) -> None:
    """A deterministic run fingerprints the cases that ran: a machine with
    none, or without one where others have it, was compared with nobody
    there, and agreement by silence is none. A case no machine fingerprints
    (a kind of case that records none) is no one's problem."""
    deterministic = [m for m in machines if m.results is not None and m.results.env.get("deterministic")]
    printed = {c.id for m in deterministic for c in _ran(m) if c.fingerprint}
    for m in deterministic:
        ran = _ran(m)
        bare = [c.id for c in ran if not c.fingerprint]
        if ran and len(bare) == len(ran):
            m.problems.append(f"no fingerprint in any of its {len(ran)} case(s) that ran although run with "
                              "--deterministic: compared with nobody")
        elif any(c in printed for c in bare):
            bare = [c for c in bare if c in printed]
            shown = ", ".join(bare[:3]) + (f" and {len(bare) - 3} more" if len(bare) > 3 else "")
            m.problems.append(f"no fingerprint in {len(bare)} case(s) the others fingerprinted ({shown}) although "
                              "run with --deterministic: not compared with its group there")


def group_key(results: Results) -> tuple:
    return tuple((f, _hashable(results.env.get(f))) for f in GROUP_FIELDS)


def _hashable(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def group_machines(machines) -> dict[str, list[Machine]]:
    """Machines with results, by hardware and software; named g1, g2, ...
    in order of size (then of first machine id) so a report reads the same
    every time."""
    by_key: dict[tuple, list[Machine]] = {}
    for m in machines:
        if m.results is not None:
            by_key.setdefault(group_key(m.results), []).append(m)
    ordered = sorted(by_key.values(), key=lambda ms: (-len(ms), min(m.id for m in ms)))
    groups = {}
    for i, members in enumerate(ordered, 1):
        name = f"g{i}"
        for m in members:
            m.group = name
        groups[name] = sorted(members, key=lambda m: m.id)
    return groups


def describe_key(results: Results) -> dict:
    return {f: results.env.get(f) for f in GROUP_FIELDS}
