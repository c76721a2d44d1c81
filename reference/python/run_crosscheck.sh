#!/usr/bin/env bash
# run_crosscheck.sh BUILD_DIR OUTDIR
#
# C++ vs Python cross-check: runs every mlp case of the smoke suite (each
# workload x precision, the explicit cases and every negative control, plus
# the fp32 baselines and the aligned fp32 re-runs the runner adds) with
# --dump, then replays each dumped case with the Python reference workloads
# (python -m reference.python.check) and compares.
#
# Exit: 0 the implementations agree on every case; 1 a case disagrees (the
# check names case, step and tensor); 2 unusable input (no binary, the run
# wrote no dump, a dump folder unreadable).  The smoke suite's own verdicts
# (conformance against fp32) are not this test's business: cli.smoke_suite_
# conforms covers them, so a non-conforming run still gets cross-checked.
set -uo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR OUTDIR" >&2
  exit 2
fi
BUILD="$1"
OUT="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PY="${AMPBENCH_PYTHON:-${AMPBENCH_HOME:-$HOME/.cache/ampbench}/venv/bin/python}"
FILTER="${AMPBENCH_CROSSCHECK_FILTER:-model=mlp,workload=plain|clip|accumulation|penalty|multi}"

if [[ ! -x "$BUILD/ampbench" ]]; then
  echo "run_crosscheck: error: $BUILD/ampbench is not an executable" >&2
  exit 2
fi
if [[ ! -x "$PY" ]]; then
  echo "run_crosscheck: error: no Python at $PY (set AMPBENCH_PYTHON)" >&2
  exit 2
fi
# One intra-op thread for both sides: the two processes then run the same
# kernels with the same partitioning (the check compares like with like),
# and the tiny mlp cases do not stall on OpenMP barriers when ctest -j runs
# other tests beside this one.  Override with AMPBENCH_CROSSCHECK_THREADS.
export OMP_NUM_THREADS="${AMPBENCH_CROSSCHECK_THREADS:-1}"
export MKL_NUM_THREADS="$OMP_NUM_THREADS"

rm -rf "$OUT/dump" "$OUT/run"
mkdir -p "$OUT"

"$BUILD/ampbench" run --suite smoke --device cpu --no-report --no-throughput \
  --filter "$FILTER" --dump "$OUT/dump" --out "$OUT/run" >"$OUT/run.log" 2>&1
rc=$?
if [[ $rc -ne 0 ]]; then
  tail -n 20 "$OUT/run.log" >&2
  if [[ $rc -ne 1 || ! -d "$OUT/dump" ]]; then
    echo "run_crosscheck: error: ampbench run exited $rc without a dump to check" >&2
    exit 2
  fi
  echo "run_crosscheck: warning: ampbench run exited 1 (a case does not conform); cross-checking anyway" >&2
fi

cd "$ROOT" && "$PY" -m reference.python.check "$OUT/dump"
