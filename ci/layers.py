#!/usr/bin/env python3
"""The include graph of harness/ and kernels/ flows one way: a file may include
its own layer or a lower one, never a higher one (docs/extending.md, "Layout").

Tests (*_test.cpp, test_util.h), benchmarks and fuzz targets sit above every
layer: they may include anything.

Usage: ci/layers.py [ROOT]   (exit 1 and one line per upward include)
"""
import pathlib
import re
import sys

# Bottom to top; directories on one line are one layer. Data flows up:
# suite file -> CaseSpec (spec) -> Runner -> CaseRecord -> Checker -> results.
LAYERS = [
    ["amp", "io"],  # GradScaler, autocast; atomic files, JSON files
    ["core"],  # precision policy, statistics, distances, build info
    ["env", "kernels", "optim"],  # environment fingerprint; CUDA kernels; loop/foreach/fused optimizers
    ["spec"],  # CaseSpec: one case, as parsed
    ["models", "data"],
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


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) against the layers", file=sys.stderr)
        return 1
    print(f"includes follow the {len(LAYERS)} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
