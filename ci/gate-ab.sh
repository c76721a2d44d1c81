#!/usr/bin/env bash
# A/B throughput gate for CI: run a suite with two builds interleaved on one
# machine, then gate the current build against the baseline build with
# `ampbench gate --paired`.
#
#   ci/gate-ab.sh BASELINE_AMPBENCH CURRENT_AMPBENCH [PAIRS] [-- RUN-ARGS...]
#
# PAIRS defaults to 12: on the 2-core CI VM, 12 pairs of the smoke suite
# flagged a 10% slowdown 5 times in 5 and an A/A 0 times in 5, where 8 pairs
# flagged the slowdown 0 times (docs/ci-gate.md, "Calibration"); 6 is the fewest a
# Wilcoxon signed-rank test can judge at alpha 0.05 at all; RUN-ARGS default to "--suite smoke --device cpu --no-report".
# Each round runs both builds once, in random order, so a pair shares the
# machine's speed of the moment (ci/calibrate-gate.sh measures why this
# matters). Environment:
#   AMPBENCH_AB_OUT           where runs go (default results/ab-<UTC time>)
#   AMPBENCH_AB_CURRENT_ARGS  extra run arguments for the current build only
#                             (e.g. "--inject-slowdown 0.1" to see the gate fire,
#                             with --rehearsal in AMPBENCH_AB_GATE_ARGS)
#   AMPBENCH_AB_GATE_ARGS     extra gate arguments (--markdown F --junit F ...)
# Exit status: the gate's (0 clean, 1 regression, 2 unusable input); 2 also
# for bad usage or a run that wrote no results.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { echo "usage: ci/gate-ab.sh BASELINE_AMPBENCH CURRENT_AMPBENCH [PAIRS] [-- RUN-ARGS...]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
BASE_BIN="$1"; CUR_BIN="$2"; shift 2
PAIRS=12
if [[ $# -gt 0 && "$1" != "--" ]]; then PAIRS="$1"; shift; fi
if [[ $# -gt 0 ]]; then [[ "$1" == "--" ]] || usage; shift; fi
RUN_ARGS=("$@")
((${#RUN_ARGS[@]})) || RUN_ARGS=(--suite smoke --device cpu --no-report)
read -r -a CUR_EXTRA <<<"${AMPBENCH_AB_CURRENT_ARGS:-}"
read -r -a GATE_EXTRA <<<"${AMPBENCH_AB_GATE_ARGS:-}"
OUT="${AMPBENCH_AB_OUT:-$ROOT/results/ab-$(date -u +%Y%m%dT%H%M%SZ)}"

[[ "$PAIRS" =~ ^[0-9]+$ && "$PAIRS" -ge 2 ]] || { echo "gate-ab: error: PAIRS must be an integer >= 2, got '$PAIRS'" >&2; exit 2; }
for bin in "$BASE_BIN" "$CUR_BIN"; do
  [[ -x "$bin" ]] || { echo "gate-ab: error: $bin: not an executable ampbench" >&2; exit 2; }
done
mkdir -p "$OUT" || { echo "gate-ab: error: $OUT: cannot create the output folder" >&2; exit 2; }

run_side() {  # SIDE ROUND
  local side="$1" round="$2" dir rc=0 bin extra=()
  dir="$OUT/$side-$(printf '%02d' "$round")"
  if [[ "$side" == base ]]; then bin="$BASE_BIN"; else bin="$CUR_BIN"; extra=("${CUR_EXTRA[@]}"); fi
  "$bin" run "${RUN_ARGS[@]}" "${extra[@]}" --overwrite --out "$dir" >"$dir.log" 2>&1 || rc=$?
  # Exit 1 (a case does not conform) still leaves results for the gate to judge.
  if [[ $rc -gt 1 || ! -f "$dir/results.json" ]]; then
    echo "gate-ab: error: $side run $round exited $rc without results; see $dir.log" >&2
    exit 2
  fi
}

echo "gate-ab: $PAIRS rounds of $BASE_BIN and $CUR_BIN (${RUN_ARGS[*]}) -> $OUT" >&2
for ((round = 1; round <= PAIRS; round++)); do
  for side in $(printf 'base\ncur\n' | shuf); do run_side "$side" "$round"; done
done

base_files=(); cur_files=()
for ((round = 1; round <= PAIRS; round++)); do
  base_files+=("$OUT/base-$(printf '%02d' "$round")/results.json")
  cur_files+=("$OUT/cur-$(printf '%02d' "$round")/results.json")
done
rc=0
"$CUR_BIN" gate --paired --baseline "${base_files[@]}" --current "${cur_files[@]}" "${GATE_EXTRA[@]}" || rc=$?
exit $rc
