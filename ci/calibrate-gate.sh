#!/usr/bin/env bash
# Gate calibration on this machine: how quiet is the regression gate on noise
# and how loud on a real slowdown, for each minimum effect size?
#
#   ci/calibrate-gate.sh [RUNS] [FRACTIONS] [MIN_EFFECTS]
#   defaults: 11  "0.03 0.06 0.10 0.20 0.30"  "0.05 0.10 0.15 0.20"
#
# 1. A/A: RUNS runs of the `calibration` suite from the same build; the gate
#    compares run i with run i+1 (RUNS-1 comparisons).
# 2. Slowdown: for each FRACTION, RUNS-1 runs with --inject-slowdown FRACTION
#    (busy work equal to that fraction of every timed step: throughput falls
#    by FRACTION/(1+FRACTION)), each gated against one A run.
# Every comparison is gated at every MIN_EFFECT (`ampbench gate --min-effect`;
# the calibration suite sets none of its own). A comparison is "flagged" when
# the gate exits 1. OMP_NUM_THREADS defaults to 1 (AMPBENCH_CALIBRATION_THREADS):
# on a shared 2-core VM two OpenMP threads more than double the run-to-run
# spread.
# Writes OUT/summary.md (OUT: results/calibration-<time>, or
# AMPBENCH_CALIBRATION_OUT) and exits 0 when some minimum effect gives no A/A
# alarm while flagging every 10% slowdown, 1 otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-11}"
FRACTIONS="${2:-0.03 0.06 0.10 0.20 0.30}"
MIN_EFFECTS="${3:-0.05 0.10 0.15 0.20}"
OUT="${AMPBENCH_CALIBRATION_OUT:-$ROOT/results/calibration-$(date -u +%Y%m%dT%H%M%SZ)}"
BIN="${AMPBENCH_BIN:-$ROOT/build/ampbench}"
export OMP_NUM_THREADS="${AMPBENCH_CALIBRATION_THREADS:-1}"
[[ "$RUNS" =~ ^[0-9]+$ && "$RUNS" -ge 2 ]] || { echo "calibrate-gate: RUNS must be an integer >= 2" >&2; exit 2; }
[[ -x "$BIN" ]] || AMPBENCH_QUIET=1 "$ROOT/ci/build.sh"
mkdir -p "$OUT"

run_suite() {  # DIR [extra args]
  local dir="$1"; shift
  "$BIN" run --suite calibration --device cpu --no-report --out "$dir" "$@" >"$dir.log" 2>&1 \
    || { echo "calibrate-gate: run failed, see $dir.log" >&2; exit 1; }
}

flagged() {  # BASELINE CURRENT MIN_EFFECT LOG -> 1 when the gate found a regression
  local rc=0
  "$BIN" gate --baseline "$1/results.json" --current "$2/results.json" --min-effect "$3" >"$4" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { echo "calibrate-gate: gate exit $rc, see $4" >&2; exit 1; }
  echo "$rc"
}

started=$(date +%s)
echo "calibration: $RUNS A runs + $((RUNS - 1)) per slowdown ($FRACTIONS), $OMP_NUM_THREADS thread(s) -> $OUT"
for ((i = 0; i < RUNS; i++)); do run_suite "$OUT/a$i"; done
for f in $FRACTIONS; do
  for ((i = 1; i < RUNS; i++)); do run_suite "$OUT/s$f-$i" --inject-slowdown "$f"; done
done

declare -A count
for m in $MIN_EFFECTS; do
  n=0
  for ((i = 1; i < RUNS; i++)); do
    n=$((n + $(flagged "$OUT/a$((i - 1))" "$OUT/a$i" "$m" "$OUT/gate-m$m-aa-$i.txt")))
  done
  count[$m,aa]=$n
  for f in $FRACTIONS; do
    n=0
    for ((i = 1; i < RUNS; i++)); do
      n=$((n + $(flagged "$OUT/a$i" "$OUT/s$f-$i" "$m" "$OUT/gate-m$m-s$f-$i.txt")))
    done
    count[$m,$f]=$n
  done
done

status=1
{
  echo "# Gate calibration ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc --all) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS, $((($(date +%s) - started) / 60)) min)"
  echo
  echo "suite \`calibration\`, alpha 0.05; comparisons flagged as a regression, of $((RUNS - 1)):"
  echo
  header="| min effect | A/A |"; rule="|---|---|"
  for f in $FRACTIONS; do
    header+=" slowdown $f (-$(awk "BEGIN{printf \"%.1f\", 100*$f/(1+$f)}")%) |"; rule+="---|"
  done
  echo "$header"; echo "$rule"
  for m in $MIN_EFFECTS; do
    row="| $m | ${count[$m,aa]} |"
    for f in $FRACTIONS; do row+=" ${count[$m,$f]} |"; done
    echo "$row"
  done
} | tee "$OUT/summary.md"
for m in $MIN_EFFECTS; do
  if [[ ${count[$m,aa]} -eq 0 && -n "${count[$m,0.10]+x}" && ${count[$m,0.10]} -eq $((RUNS - 1)) ]]; then status=0; fi
done
((status == 0)) || echo "calibrate-gate: no minimum effect separates A/A noise from a 10% slowdown here" >&2
exit $status
