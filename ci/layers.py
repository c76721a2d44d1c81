#!/usr/bin/env python3
"""The include graph of harness/ and kernels/ flows one way: a file may include
its own layer or a lower one, never a higher one (docs/extending.md, "Layout").
Within a layer too, folders must not include each other both ways (a cycle
of folders, e.g. data/ -> models/ -> data/), and the modules of
reference/python must not import each other in a loop, lazily or not.

Tests (*_test.cpp, test_util.h), benchmarks and fuzz targets sit above every
layer: they may include anything.

Usage: ci/layers.py [ROOT]   (exit 1 and one line per upward include or cycle)
"""
import ast
import pathlib
import re
import sys

# Bottom to top; directories on one line are one layer. Data flows up:
# suite file -> CaseSpec (spec) -> Runner -> CaseRecord -> Checker -> results.
LAYERS = [
    ["amp", "io"],  # GradScaler, autocast; atomic files, JSON files
    ["core"],  # precision policy, statistics, distances, build info
    ["env", "kernels", "optim", "fp8"],  # environment fingerprint; CUDA kernels; loop/foreach/fused optimizers; FP8 Linear
    ["spec"],  # CaseSpec: one case, as parsed
    ["data"],  # synthetic batches, described by spec/model_family.h alone
    ["models"],  # the model families; the probe draws its batch from data/
    ["distributed"],  # process groups, reducer, launcher, gathers
    ["workloads"],  # the recipes and their registry
    ["suite"],  # suite files -> CaseSpecs (asks the workload registry)
    ["runner"],  # CaseSpec -> CaseRecord (training, timing, dumps, scaling)
    ["check"],  # CaseRecord -> verdict
    ["results"],  # records and verdicts -> results JSON
    ["session"],  # a run: plan, launch or join ranks, run, check, write, count, report
    ["gate"],  # results JSON -> regression verdicts (no LibTorch)
    ["cli"],  # the ampbench command
]
EXEMPT = re.compile(r"(_test\.cpp|_test\.h|test_util\.h|_bench\.cpp|^harness/fuzz/|^harness/pch/)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def layer_of(directory):
    for index, names in enumerate(LAYERS):
        if directory in names:
            return index
    return None


def source_files(root):
    for top in ("harness", "kernels"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix in (".h", ".cpp", ".cu", ".cuh") and path.is_file():
                yield path


def directory_of(root, path):
    rel = path.relative_to(root)
    # harness/<dir>/file, or kernels/file (the kernels layer)
    return rel.parts[1] if rel.parts[0] == "harness" else rel.parts[0]


def violations(root):
    """One message per include from a lower layer to a higher one, and per
    directory missing from LAYERS."""
    found = []
    for path in source_files(root):
        rel = path.relative_to(root).as_posix()
        if EXEMPT.search(rel):
            continue
        here = directory_of(root, path)
        own = layer_of(here)
        if own is None:
            found.append(f"{rel}: directory '{here}' is in no layer (add it to LAYERS in ci/layers.py)")
            continue
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            theirs = layer_of(target)
            if theirs is not None and theirs > own:
                found.append(f"{rel}: includes {target}/ (layer {theirs}: {', '.join(LAYERS[theirs])}) "
                             f"from layer {own} ({', '.join(LAYERS[own])})")
    return found


def cycles(graph):
    """Each strongly connected group of two or more nodes, as a sorted list:
    every node of a group reaches every other, so none of them comes first."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def describe_cycle(group, edges, kind):
    """'a -> b (file), b -> a (file)': the edges inside one group, each with a
    file that makes it, so the message says what to move."""
    inside = [f"{a} -> {b} ({edges[(a, b)]})" for (a, b) in sorted(edges) if a in group and b in group]
    return f"{kind} cycle {', '.join(group)}: " + "; ".join(inside)


def folder_cycles(root):
    """Folders of harness/ (and kernels/) that include each other in a loop."""
    graph, edges = {}, {}
    for path in source_files(root):
        rel = path.relative_to(root).as_posix()
        if EXEMPT.search(rel):
            continue
        here = directory_of(root, path)
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            if target != here and (root / "harness" / target).is_dir():
                graph.setdefault(here, set()).add(target)
                edges.setdefault((here, target), rel)
    return [describe_cycle(g, edges, "folder include") for g in cycles(graph)]


def imported_modules(tree, package):
    """Modules of `package` a module imports, at its top or inside a function
    (a lazy import is still a loop: it only hides it until the call)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level > 1 or (node.level == 0 and not base.startswith(package + ".")):
                continue
            base = base[len(package) + 1:] if node.level == 0 else base
            found |= {base.split(".")[0]} if base else {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name[len(package) + 1:].split(".")[0] for a in node.names if a.name.startswith(package + ".")}
    return found


def import_cycles(root, folder="reference/python"):
    """Modules of `folder` (its tests aside) that import each other in a loop."""
    package = folder.replace("/", ".")
    modules = {p.stem: p for p in sorted((root / folder).glob("*.py"))}
    graph, edges = {}, {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(errors="replace"), filename=str(path))
        for target in imported_modules(tree, package) & modules.keys() - {name}:
            graph.setdefault(name, set()).add(target)
            edges[(name, target)] = path.relative_to(root).as_posix()
    return [describe_cycle(g, edges, "python import") for g in cycles(graph)]


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = violations(root) + folder_cycles(root) + import_cycles(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) against the layers or cycle(s)", file=sys.stderr)
        return 1
    print(f"includes follow the {len(LAYERS)} layers; no folder or import cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
