#!/usr/bin/env python3
"""Mutation testing as a habit: apply each one-line mutant of ci/mutants.txt
to a scratch copy of the working tree, rebuild incrementally, run the tests
it names, and print killed/survived.

    ci/mutants.sh [NAME ...]          # all mutants, or those named

AMPBENCH_MUTANT_DIR (default /tmp/ampbench-mutants) holds the copy and its
build (ccache makes the first build mostly hits). Exit 0 when every mutant
was killed, 1 when one survived, 2 on unusable input (a mutant whose text is
not found exactly once, a build that fails before any mutant).
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_mutants(path):
    mutants = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(" ::: ")
        if len(fields) != 5:
            sys.exit(f"mutants: error: {path}:{number}: expected 5 fields separated by ' ::: '")
        name, file, old, new, tests = (f.strip() for f in fields)
        old, new = old.replace("\\n", "\n"), new.replace("\\n", "\n")  # a mutant spanning lines
        mutants.append({"name": name, "file": file, "old": old, "new": new, "tests": tests})
    return mutants


def copy_tree(dest):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split("\n")
    for f in filter(None, files):
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)


def build(src, build_dir):
    # ci/test.sh's configuration (CUDA on), so that ccache serves the copy.
    env = dict(os.environ, AMPBENCH_BUILD_DIR=str(build_dir), AMPBENCH_QUIET="1", AMPBENCH_WITH_CUDA="ON")
    return subprocess.run([str(src / "ci/build.sh")], env=env, capture_output=True, text=True)


def run_tests(build_dir, regex):
    r = subprocess.run(["ctest", "--test-dir", str(build_dir), "-R", regex, "--timeout", "600", "-j", "2"],
                       capture_output=True, text=True)
    # Only the tests listed under "The following tests FAILED:" (not the
    # skipped ones ctest lists under "did not run").
    failed_section = r.stdout.split("The following tests FAILED:", 1)[1] if "tests FAILED:" in r.stdout else ""
    failed = [l.split(" - ", 1)[1].split(" (")[0] for l in failed_section.splitlines()
              if l.strip()[:1].isdigit() and " - " in l]
    ran = "No tests were found" not in r.stdout + r.stderr
    return r.returncode, failed, ran


def main(names):
    mutants = read_mutants(ROOT / "ci/mutants.txt")
    if names:
        unknown = set(names) - {m["name"] for m in mutants}
        if unknown:
            sys.exit(f"mutants: error: unknown mutant(s): {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["name"] in names]
    work = Path(os.environ.get("AMPBENCH_MUTANT_DIR", "/tmp/ampbench-mutants"))
    src, build_dir = work / "src", work / "build"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    copy_tree(src)
    for m in mutants:
        count = (src / m["file"]).read_text().count(m["old"])
        if count != 1:
            print(f"mutants: error: {m['name']}: text found {count} times in {m['file']}", file=sys.stderr)
            return 2
    print(f"mutants: building the unmutated copy in {build_dir}", flush=True)
    if build(src, build_dir).returncode != 0:
        print("mutants: error: the unmutated copy does not build", file=sys.stderr)
        return 2
    rows, survived = [], 0
    for m in mutants:
        path = src / m["file"]
        original = path.read_text()
        path.write_text(original.replace(m["old"], m["new"]))
        began = time.time()
        try:
            b = build(src, build_dir)
            if b.returncode != 0:
                verdict, detail = "invalid", "does not compile"
            else:
                code, failed, ran = run_tests(build_dir, m["tests"])
                if not ran:
                    print(f"mutants: error: {m['name']}: no test matches {m['tests']!r}", file=sys.stderr)
                    return 2
                verdict = "killed" if code != 0 else "SURVIVED"
                detail = ", ".join(failed[:4]) + (" ..." if len(failed) > 4 else "")
        finally:
            path.write_text(original)
        survived += verdict == "SURVIVED"
        rows.append((m["name"], m["file"], verdict, detail, time.time() - began))
        print(f"{m['name']:36s} {verdict:9s} {time.time() - began:6.0f}s  {detail}", flush=True)
    build(src, build_dir)  # leave the copy built unmutated
    print("\n| mutant | file | verdict | killed by |\n|---|---|---|---|")
    for name, file, verdict, detail, _ in rows:
        print(f"| `{name}` | `{file}` | {verdict} | {detail} |")
    print(f"\n{len(rows) - survived} of {len(rows)} killed")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
