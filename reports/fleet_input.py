"""The fleet's input: one results folder per machine, read through the one
results loader, checked, and grouped by hardware and software.

What cannot be one fleet (another suite, another build, two folders claiming
one machine) raises FleetInputError, which the CLI turns into exit 2; what
is one machine's problem (no results, an unfinished run, a run without
--deterministic) stays with that machine as a reason in the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reference.python.results_file import Results, ResultsError, load_results

# The environment fields that must match for two machines to be expected
# to compute the same bits and run at the same speed. Left out on purpose:
# host and machine_id (the identity), os (kernel patch levels differ
# across a healthy fleet without changing a kernel's arithmetic) and
# cpu_cores (a deterministic run pins its thread count).
GROUP_FIELDS = ("device", "cpu_model", "gpu_name", "gpu_count", "compute_capability", "driver", "cuda_runtime",
                "cudnn", "nccl", "libtorch_version", "compiler", "git_commit", "git_dirty", "mkldnn_enabled",
                "deterministic")
# Fields that make two runs different builds: never one fleet.
BUILD_FIELDS = ("git_commit", "git_dirty")


class FleetInputError(Exception):
    """Input that is not one fleet: refused as a whole (exit 2)."""


@dataclass
class Machine:
    id: str
    folder: Path
    results: Results | None = None
    problems: list[str] = field(default_factory=list)  # why its results cannot be used as they are
    group: str | None = None


def machine_id(results: Results) -> str:
    return str(results.env.get("machine_id") or results.env.get("host") or "")


def _results_file(folder: Path) -> tuple[Path | None, str | None]:
    """The folder's results.json: its own, or the shallowest one below (a
    run's output folder inside the machine's); rank folders' copies are
    rank 0's and never the run's."""
    if (folder / "results.json").is_file():
        return folder / "results.json", None
    found = sorted((p for p in folder.rglob("results.json") if "ddp-ranks" not in p.parts),
                   key=lambda p: (len(p.parts), str(p)))
    if not found:
        return None, "no results.json"
    top = [p for p in found if len(p.parts) == len(found[0].parts)]
    if len(top) > 1:
        return None, "several results.json, cannot tell which is this machine's: " + ", ".join(map(str, top))
    return found[0], None


def _machine_folders(paths) -> list[Path]:
    """A folder with a results file is one machine; any other folder is a
    collection whose subfolders are machines (the shared folder a job array
    writes into)."""
    folders = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            folders.append(path.parent)
        elif not path.is_dir():
            raise FleetInputError(f"{path}: no such file or folder")
        elif (path / "results.json").is_file():
            folders.append(path)
        else:
            subfolders = sorted(p for p in path.iterdir() if p.is_dir())
            if not subfolders:
                raise FleetInputError(f"{path}: neither a results folder nor a folder of machines' folders")
            folders.extend(subfolders)
    return folders


def _load(folder: Path) -> Machine:
    path, problem = _results_file(folder)
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
    return machine


def load_machines(paths, expected=()) -> list[Machine]:
    """`expected`: machine ids that must be there (a scheduler's node list):
    one without results is named even when it never made a folder."""
    machines = [_load(folder) for folder in _machine_folders(paths)]
    _refuse_duplicates(machines)
    present = {m.id for m in machines}
    machines += [Machine(i, Path("-"), problems=["results missing: expected, but no folder has its results"])
                 for i in dict.fromkeys(expected) if i not in present]
    _refuse_mixtures([m for m in machines if m.results is not None])
    _name_missing_cases(machines)
    return machines


def _refuse_duplicates(machines) -> None:
    seen: dict[str, Path] = {}
    for m in machines:
        if m.id in seen:
            raise FleetInputError(f"machine {m.id!r} appears twice ({seen[m.id]} and {m.folder}): give each "
                                  "machine its own AMPBENCH_MACHINE_ID")
        seen[m.id] = m.folder


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
