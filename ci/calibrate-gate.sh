#!/usr/bin/env bash
# Gate calibration on this machine: is the regression gate quiet on noise and
# loud on a real slowdown?
#
#   ci/calibrate-gate.sh [RUNS] [FRACTIONS]      (defaults: 11 "0.03 0.06 0.10")
#
# 1. A/A: RUNS runs of the calibration suite from the same build; the gate
#    compares run i with run i+1 (RUNS-1 comparisons). Every one must exit 0.
# 2. Slowdown: for each FRACTION, RUNS-1 runs with --inject-slowdown FRACTION
#    (busy work equal to that fraction of every timed step, so throughput
#    falls by FRACTION/(1+FRACTION)), each gated against one A run. Counts how
#    many the gate flags (exit 1).
# Writes OUT/summary.md (OUT defaults to results/calibration-<time>) and exits
# 1 when an A/A comparison was flagged or the 0.10 slowdown was missed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-11}"
FRACTIONS="${2:-0.03 0.06 0.10}"
OUT="${AMPBENCH_CALIBRATION_OUT:-$ROOT/results/calibration-$(date -u +%Y%m%dT%H%M%SZ)}"
BIN="${AMPBENCH_BIN:-$ROOT/build/ampbench}"
[[ "$RUNS" =~ ^[0-9]+$ && "$RUNS" -ge 2 ]] || { echo "calibrate-gate: RUNS must be an integer >= 2" >&2; exit 2; }
[[ -x "$BIN" ]] || AMPBENCH_QUIET=1 "$ROOT/ci/build.sh"
mkdir -p "$OUT"

run_suite() {  # DIR [extra args]
  local dir="$1"; shift
  "$BIN" run --suite calibration --device cpu --no-report --out "$dir" "$@" >"$dir.log" 2>&1 \
    || { echo "calibrate-gate: run failed, see $dir.log" >&2; exit 1; }
}

gate() {  # BASELINE CURRENT LOG -> prints the gate's exit status
  local rc=0
  "$BIN" gate --baseline "$1/results.json" --current "$2/results.json" >"$3" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { echo "calibrate-gate: gate exit $rc, see $3" >&2; exit 1; }
  echo "$rc"
}

started=$(date +%s)
echo "A/A: $RUNS runs of suite 'calibration' -> $OUT"
for ((i = 0; i < RUNS; i++)); do run_suite "$OUT/a$i"; done
aa_flagged=0
for ((i = 1; i < RUNS; i++)); do
  rc=$(gate "$OUT/a$((i - 1))" "$OUT/a$i" "$OUT/gate-aa-$i.txt")
  ((aa_flagged += rc))
done
echo "A/A: $aa_flagged of $((RUNS - 1)) comparisons flagged"

declare -A flagged
for f in $FRACTIONS; do
  flagged[$f]=0
  for ((i = 1; i < RUNS; i++)); do
    run_suite "$OUT/s$f-$i" --inject-slowdown "$f"
    rc=$(gate "$OUT/a$i" "$OUT/s$f-$i" "$OUT/gate-s$f-$i.txt")
    flagged[$f]=$((flagged[$f] + rc))
  done
  echo "slowdown $f: ${flagged[$f]} of $((RUNS - 1)) flagged"
done

{
  echo "# Gate calibration ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $((($(date +%s) - started) / 60)) min)"
  echo
  echo "suite \`calibration\` (4 cases, 8 repetitions each), min_effect 0.05, alpha 0.05"
  echo
  echo "| comparison | flagged |"
  echo "|---|---|"
  echo "| A/A (same build) | $aa_flagged / $((RUNS - 1)) |"
  for f in $FRACTIONS; do
    echo "| --inject-slowdown $f (throughput -$(awk "BEGIN{printf \"%.1f\", 100*$f/(1+$f)}")%) | ${flagged[$f]} / $((RUNS - 1)) |"
  done
} | tee "$OUT/summary.md"

status=0
((aa_flagged == 0)) || { echo "calibrate-gate: the gate flagged an A/A comparison" >&2; status=1; }
if [[ -n "${flagged[0.10]+x}" ]] && ((flagged[0.10] < RUNS - 1)); then
  echo "calibrate-gate: a 10% slowdown was missed" >&2; status=1
fi
exit $status
