#!/usr/bin/env bash
# Gate calibration on this machine: how quiet is the regression gate on noise
# and how loud on a real slowdown, per comparison protocol and minimum effect?
#
#   ci/calibrate-gate.sh [COMPARISONS] [PAIRS] [FRACTIONS] [MIN_EFFECTS]
#   defaults: 10  12  "0.05 0.10"  "0.03 0.05 0.10"
#
# Each comparison is PAIRS rounds. A round runs the `calibration` suite once
# per arm, in shuffled order: A and A' (the same build twice) and, for each
# FRACTION, S_f (--inject-slowdown f: busy work equal to that fraction of every
# timed step, so throughput falls by f/(1+f)). Every comparison is then gated
# three ways at every MIN_EFFECT:
#   single   run 1 of A vs run 1 of the other arm (repetitions, U test): one
#            results file per side, what a naive CI job does;
#   runs     the PAIRS runs of each side, per-run medians (U test);
#   paired   the same runs with --paired (Wilcoxon signed-rank on the ratios
#            of the runs of one round, which share the machine's speed).
# A comparison is "flagged" when the gate exits 1. AMPBENCH_CALIBRATION_SUITE
# calibrates another suite (default `calibration`; more cases mean more
# chances for a false alarm). OMP_NUM_THREADS defaults to
# 1 (AMPBENCH_CALIBRATION_THREADS): on a shared 2-core VM two OpenMP threads
# more than double the spread.
# AMPBENCH_CALIBRATION_REUSE=1 keeps runs already in OUT (re-gating after a
# gate change costs minutes instead of the runs' time).
# Writes OUT/summary.md (OUT: results/calibration-<time>, or
# AMPBENCH_CALIBRATION_OUT) and exits 0 when, in the paired protocol, some
# minimum effect gives no A/A alarm while flagging every 10% slowdown.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMPARISONS="${1:-10}"
PAIRS="${2:-12}"
FRACTIONS="${3:-0.05 0.10}"
MIN_EFFECTS="${4:-0.03 0.05 0.10}"
OUT="${AMPBENCH_CALIBRATION_OUT:-$ROOT/results/calibration-$(date -u +%Y%m%dT%H%M%SZ)}"
BIN="${AMPBENCH_BIN:-$ROOT/build/ampbench}"
SUITE="${AMPBENCH_CALIBRATION_SUITE:-calibration}"
export OMP_NUM_THREADS="${AMPBENCH_CALIBRATION_THREADS:-1}"
for n in "$COMPARISONS" "$PAIRS"; do
  [[ "$n" =~ ^[0-9]+$ && "$n" -ge 1 ]] || { echo "calibrate-gate: COMPARISONS and PAIRS must be integers >= 1" >&2; exit 2; }
done
[[ -x "$BIN" ]] || AMPBENCH_QUIET=1 "$ROOT/ci/build.sh"
mkdir -p "$OUT"

arms=(a b)
for f in $FRACTIONS; do arms+=("s$f"); done

run_arm() {  # DIR ARM
  local dir="$1" arm="$2" extra=()
  [[ "${AMPBENCH_CALIBRATION_REUSE:-0}" == 1 && -f "$dir/results.json" ]] && return 0
  [[ "$arm" == s* ]] && extra=(--inject-slowdown "${arm#s}")
  "$BIN" run --suite "$SUITE" --device cpu --no-report --overwrite --out "$dir" "${extra[@]}" >"$dir.log" 2>&1 \
    || { echo "calibrate-gate: run failed, see $dir.log" >&2; exit 1; }
}

files() {  # COMPARISON ARM [PAIR] -> results files of that arm, in round order
  local c="$1" arm="$2" p
  if [[ $# -eq 3 ]]; then echo "$OUT/c$c/p$3/$arm/results.json"; return; fi
  for ((p = 1; p <= PAIRS; p++)); do echo "$OUT/c$c/p$p/$arm/results.json"; done
}

flagged() {  # LOG GATE-ARGS... -> 1 when the gate found a regression
  local log="$1" rc=0; shift
  # The slowed arms are made with --inject-slowdown on purpose.
  "$BIN" gate --rehearsal "$@" >"$log" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { echo "calibrate-gate: gate exit $rc, see $log" >&2; exit 1; }
  echo "$rc"
}

started=$(date +%s)
total=$((COMPARISONS * PAIRS * ${#arms[@]}))
echo "calibration: $COMPARISONS comparisons x $PAIRS rounds x ${#arms[@]} arms (${arms[*]}) = $total runs, $OMP_NUM_THREADS thread(s) -> $OUT"
for ((c = 1; c <= COMPARISONS; c++)); do
  for ((p = 1; p <= PAIRS; p++)); do
    mkdir -p "$OUT/c$c/p$p"
    for arm in $(printf '%s\n' "${arms[@]}" | shuf); do run_arm "$OUT/c$c/p$p/$arm" "$arm"; done
  done
  echo "  comparison $c/$COMPARISONS done after $(($(date +%s) - started)) s"
done

declare -A count
for mode in single runs paired; do
  for m in $MIN_EFFECTS; do
    for arm in "${arms[@]:1}"; do
      n=0
      for ((c = 1; c <= COMPARISONS; c++)); do
        log="$OUT/gate-$mode-m$m-$arm-c$c.txt"
        case "$mode" in
          single) args=(--baseline $(files "$c" a 1) --current $(files "$c" "$arm" 1)) ;;
          runs) args=(--baseline $(files "$c" a) --current $(files "$c" "$arm")) ;;
          paired) args=(--baseline $(files "$c" a) --current $(files "$c" "$arm") --paired) ;;
        esac
        n=$((n + $(flagged "$log" "${args[@]}" --min-effect "$m")))
      done
      count[$mode,$m,$arm]=$n
    done
  done
done

status=1
{
  echo "# Gate calibration ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc --all) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS, $((($(date +%s) - started) / 60)) min)"
  echo
  echo "suite \`$SUITE\`, alpha 0.05, $COMPARISONS comparisons of $PAIRS interleaved rounds each;"
  echo "comparisons flagged as a regression, of $COMPARISONS:"
  echo
  header="| protocol | min effect | A/A |"; rule="|---|---|---|"
  for f in $FRACTIONS; do
    header+=" slowdown $f (-$(awk "BEGIN{printf \"%.1f\", 100*$f/(1+$f)}")%) |"; rule+="---|"
  done
  echo "$header"; echo "$rule"
  for mode in single runs paired; do
    for m in $MIN_EFFECTS; do
      row="| $mode | $m | ${count[$mode,$m,b]} |"
      for f in $FRACTIONS; do row+=" ${count[$mode,$m,s$f]} |"; done
      echo "$row"
    done
  done
} | tee "$OUT/summary.md"
for m in $MIN_EFFECTS; do
  if [[ ${count[paired,$m,b]} -eq 0 && -n "${count[paired,$m,s0.10]+x}" && ${count[paired,$m,s0.10]} -eq $COMPARISONS ]]; then
    status=0
  fi
done
((status == 0)) || echo "calibrate-gate: no minimum effect separates A/A noise from a 10% slowdown in the paired protocol" >&2
exit $status
