#!/usr/bin/env bash
# envelope_configs_test.sh AMPBENCH OUTDIR [SUITE] [FILTER] [CONFIG]
#
# "Different hardware" on one CPU: other kernels round differently. The
# verdict must hold whichever rounding the machine does, because each run
# measures its own envelope. The suite (default smoke, conformance only) runs
# in three configurations besides the default one (cli.smoke_suite_conforms):
# one OpenMP thread (other reduction orders), oneDNN off (other matmul and
# convolution kernels), another seed (other weights, data and noise). The
# last two run at one thread as well, so each differs from the one-thread
# run in one thing, and each configuration holds one core: on 2 cores two
# processes spinning OpenMP threads slow each other tenfold. Each
# must exit 0: every correct case conforms, every negative control is caught.
# CONFIG (one-thread, no-mkldnn or seed-2) runs that one alone. With
# AMPBENCH_ENVELOPE_DUMP=1 each configuration also dumps its cases into
# OUTDIR/NAME-dump, for the Python oracle to replay (the CTest
# reference.crosscheck_smoke_seed-2 replays seed-2's instead of running the
# suite a second time).
set -uo pipefail
BIN="$1" OUT="$2" SUITE="${3:-smoke}" FILTER="${4:-}" ONLY="${5:-}"
case "$ONLY" in
  "" | one-thread | no-mkldnn | seed-2) ;;
  *) echo "envelope_configs_test: error: unknown configuration '$ONLY' (one-thread, no-mkldnn, seed-2)" >&2; exit 2 ;;
esac
rm -rf "$OUT" && mkdir -p "$OUT"
args=(run --suite "$SUITE" --device cpu --no-throughput --no-report)
[[ -n "$FILTER" ]] && args+=(--filter "$FILTER")
status=0
# run_config NAME THREADS [FLAG...]
run_config() {
  local name="$1" threads="$2"; shift 2
  [[ -z "$ONLY" || "$ONLY" == "$name" ]] || return 0
  local dump=()
  [[ "${AMPBENCH_ENVELOPE_DUMP:-0}" == 1 ]] && dump=(--dump "$OUT/$name-dump")
  env ${threads:+OMP_NUM_THREADS=$threads} "$BIN" "${args[@]}" "$@" "${dump[@]}" --out "$OUT/$name" >"$OUT/$name.log" 2>&1
  local rc=$?
  local totals teeth
  totals=$(grep -E "^verdicts: " "$OUT/$name.log" | tail -n 1)
  teeth=$(grep -E "^teeth:" "$OUT/$name.log" | tail -n 1)
  echo "$name: exit $rc: $totals"
  [[ -n "$teeth" ]] && echo "  $teeth"
  if ((rc != 0)); then
    grep -E " (FAIL|MISSED|error) " "$OUT/$name.log" | head -n 20
    status=1
  fi
}
run_config one-thread 1
run_config no-mkldnn 1 --no-mkldnn
run_config seed-2 1 --seed 2
exit $status
