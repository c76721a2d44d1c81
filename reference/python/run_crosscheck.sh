#!/usr/bin/env bash
# run_crosscheck.sh BUILD_DIR OUTDIR
#
# C++ vs Python cross-check: runs the cases of a suite with --dump (by
# default every single-process case of the smoke suite: each workload x
# model x precision, the explicit cases and every negative control, plus the
# fp32 baselines and the aligned fp32 re-runs the runner adds), then
# replays each dumped case with the Python reference workloads (python -m
# reference.python.check) and compares.
#
# Environment:
#   AMPBENCH_CROSSCHECK_SUITE   suite name or path [smoke]
#   AMPBENCH_CROSSCHECK_FILTER  --filter for the run [every case of the
#                               single-process workloads]
#   AMPBENCH_CROSSCHECK_THREADS intra-op threads on both sides [1]
#   AMPBENCH_CROSSCHECK_DUMP    replay this dump, written by another run of
#                               the suite (check.envelope_holds_seed-2), with
#                               the filter, instead of running it again
#   AMPBENCH_PYTHON             the Python with torch [$AMPBENCH_HOME/venv]
#   AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING  1: a run that does not conform
#                               (exit 1) fails this check too, after the
#                               cross-check has run [0]
#   AMPBENCH_CROSSCHECK_BITWISE 1: every case must replay bit for bit
#                               (check --bitwise) [0]
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
SUITE="${AMPBENCH_CROSSCHECK_SUITE:-smoke}"
# The Python oracle covers the single-process workloads only (DataParallel
# and DDP are checked by the C++ harness against its own single-process
# runs), so the default filter leaves those out and keeps every model.
DEFAULT_FILTER="workload=plain|clip|accumulation|penalty|multi"
FILTER="${AMPBENCH_CROSSCHECK_FILTER:-$DEFAULT_FILTER}"

# A switch is 0 or 1 and the thread count a positive integer: a typo would
# otherwise quietly check less than was asked.
for switch in AMPBENCH_CROSSCHECK_BITWISE AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING; do
  if [[ ! "${!switch:-0}" =~ ^[01]$ ]]; then
    echo "run_crosscheck: error: $switch='${!switch}' (expected 0 or 1)" >&2
    exit 2
  fi
done
if [[ ! "${AMPBENCH_CROSSCHECK_THREADS:-1}" =~ ^[1-9][0-9]{0,3}$ ]]; then
  echo "run_crosscheck: error: AMPBENCH_CROSSCHECK_THREADS='${AMPBENCH_CROSSCHECK_THREADS}' (expected a positive integer)" >&2
  exit 2
fi
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
CHECK_ARGS=()
[[ "${AMPBENCH_CROSSCHECK_BITWISE:-0}" == 1 ]] && CHECK_ARGS+=(--bitwise)

if [[ -n "${AMPBENCH_CROSSCHECK_DUMP:-}" ]]; then
  if [[ ! -d "$AMPBENCH_CROSSCHECK_DUMP" ]]; then
    echo "run_crosscheck: error: AMPBENCH_CROSSCHECK_DUMP=$AMPBENCH_CROSSCHECK_DUMP is not a folder" >&2
    exit 2
  fi
  echo "run_crosscheck: replaying $AMPBENCH_CROSSCHECK_DUMP, filter $FILTER" >&2
  cd "$ROOT" && exec "$PY" -m reference.python.check "$AMPBENCH_CROSSCHECK_DUMP" --filter "$FILTER" "${CHECK_ARGS[@]}"
fi

rm -rf "$OUT/dump" "$OUT/run"
mkdir -p "$OUT"

echo "run_crosscheck: suite $SUITE, filter $FILTER" >&2
"$BUILD/ampbench" run --suite "$SUITE" --device cpu --no-report --no-throughput \
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

cd "$ROOT" && "$PY" -m reference.python.check "$OUT/dump" "${CHECK_ARGS[@]}"
check=$?
if [[ $check -eq 0 && $rc -eq 1 && "${AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING:-0}" == 1 ]]; then
  echo "run_crosscheck: error: the run does not conform (AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING=1)" >&2
  exit 1
fi
exit $check
