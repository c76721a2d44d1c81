#!/usr/bin/env python3
"""Identities are types, resolved when input is read: a model family, a
device, a workload's control, an optimizer, a precision, a case's status or
expectation. No C++ source outside the files that parse or print them
compares one with a string literal (`x == "cuda"`), because each such
comparison is a place a new family or status would have to be found.

Lists every comparison it finds, one line each, and exits 1 if there is any.
The names come from where the harness defines them, so a new one is
checked without editing this script.

Usage: ci/identity-compares.py [ROOT]
"""
import pathlib
import re
import sys

# Files whose job is turning names into types or types into names.
PARSE_AND_PRINT = {
    "harness/core/precision.cpp": "PrecisionPolicy::parse",
    "harness/spec/device_kind.h": "parse_device_kind",
    "harness/amp/autocast_policy.cpp": "reads the op list file",
}
EXEMPT = re.compile(r"(_test\.cpp|_test\.h|test_util\.h|_bench\.cpp|^harness/fuzz/)")
COMPARISON = re.compile(r'(?:==|!=)\s*"([A-Za-z0-9_+]+)"|"([A-Za-z0-9_+]+)"\s*(?:==|!=)')

# (file, pattern): every name its first group captures is an identity.
SOURCES = [
    ("harness/models", r'f\.name = "(\w+)"'),                         # model families
    ("harness/spec/control.cpp", r'\{Control::k\w+, "(\w+)"\}'),      # variants
    ("harness/spec/workload_traits.cpp", r'WorkloadTraits\("(\w+)"\)'),
    ("harness/core/precision.cpp", r'name == "(\w+)"'),                # precisions
    ("harness/spec/device_kind.h", r'name == "(\w+)"'),                # devices
    ("harness/optim/impl.cpp", r'"(sgd|adamw|loop|foreach|fused)"'),  # optimizers, implementations
    ("harness/results/case_status.h", r'return "(\w+)";'),             # case statuses
    ("harness/spec/expect.h", r'return "(\w+)";'),                     # expectations
    ("harness/amp/autocast_compare.cpp", r'case OpStatus::k\w+: return "(\w+)";'),
]


def identity_names(root):
    names = set()
    for where, pattern in SOURCES:
        path = root / where
        files = sorted(path.rglob("*.cpp")) if path.is_dir() else [path]
        found = {m for f in files for m in re.findall(pattern, f.read_text())}
        if not found:
            sys.exit(f"ci/identity-compares.py: no names found in {where} (pattern {pattern!r}): update SOURCES")
        names |= found
    return names


def comparisons(root, names):
    for path in sorted((root / "harness").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.suffix not in (".h", ".cpp") or EXEMPT.search(rel) or rel in PARSE_AND_PRINT:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for m in COMPARISON.finditer(line):
                if (m.group(1) or m.group(2)) in names:
                    yield f"{rel}:{number}: {line.strip()}"


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    names = identity_names(root)
    found = list(comparisons(root, names))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} comparison(s) of an identity with a string literal: compare the enum or the "
              "registered handle instead (parse the name where the input is read)", file=sys.stderr)
        return 1
    print(f"no identity is compared as a string ({len(names)} names checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
