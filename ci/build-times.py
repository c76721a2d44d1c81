#!/usr/bin/env python3
"""Where a build's time went, from ninja's own log.

    ci/build-times.py [BUILD_DIR] [--top N]

Reads BUILD_DIR/.ninja_log (default build/) and prints, for the last ninja
invocation in it: the wall time, the sum of the job times (the CPU a cold
build needs), the number of jobs, and the N slowest jobs. A cold build's
figures need an empty ccache (CCACHE_DISABLE=1 or a fresh CCACHE_DIR):
otherwise the log times cache hits.
"""
import argparse
import pathlib
import sys


# An output may be written a few seconds before its job ends (ccache stores
# the precompiled header after the compiler wrote it: 2.9 s was seen), so
# only a larger jump in "mtime minus end" means another invocation.
JUMP_MS = 10_000


def read_log(path):
    """(start_ms, end_ms, output) per job of the log's last invocation.

    Ninja appends each job as it finishes, with its start and end counted
    from the start of its own invocation and the output's mtime in wall-clock
    nanoseconds: mtime minus end is that invocation's start, the same for
    all its jobs. A new invocation begins where it jumps (or, without an
    mtime, where an end time goes back)."""
    lines = path.read_text().splitlines()
    if not lines or not lines[0].startswith("# ninja log v"):
        raise ValueError(f"{path}: not a ninja log")
    jobs = []
    previous_end, previous_origin = -1, None
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != 5:
            continue
        start, end, mtime, output = int(fields[0]), int(fields[1]), int(fields[2]), fields[3]
        origin = mtime // 1_000_000 - end if mtime > 0 else None
        jumped = origin is not None and previous_origin is not None and abs(origin - previous_origin) > JUMP_MS
        if end < previous_end or jumped:
            jobs = []
        previous_end, previous_origin = end, origin if origin is not None else previous_origin
        jobs.append((start, end, output))
    # One job with several outputs is logged once per output.
    unique = {}
    for start, end, output in jobs:
        unique.setdefault((start, end), output)
    return [(s, e, o) for (s, e), o in unique.items()]


def summary(jobs, top):
    if not jobs:
        return "no jobs in the last invocation"
    wall = max(e for _, e, _ in jobs) - min(s for s, _, _ in jobs)
    total = sum(e - s for s, e, _ in jobs)
    rows = [f"wall {wall / 1000:.0f} s, sum of jobs {total / 1000:.0f} s, {len(jobs)} jobs",
            f"{'seconds':>8}  output"]
    for s, e, o in sorted(jobs, key=lambda j: j[0] - j[1])[:top]:
        rows.append(f"{(e - s) / 1000:8.1f}  {o}")
    return "\n".join(rows)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    if args.top < 1:
        parser.error(f"--top {args.top}: must be at least 1")
    log = pathlib.Path(args.build_dir) / ".ninja_log"
    try:
        text = summary(read_log(log), args.top)
    except (OSError, ValueError) as e:
        print(f"build-times: error: {e}", file=sys.stderr)
        return 2
    try:
        print(text)
    except BrokenPipeError:  # read by `head`: what it wanted was printed
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
