#!/usr/bin/env bash
# Verdict calibration: how often does a correct case exceed its bound under
# a seed other than the suite's, and how close does each negative control
# come to passing? Runs SUITE once per seed (no throughput, no report) and
# tabulates every run with `python -m reports.calibration`.
#
#   ci/calibrate-verdict.sh SUITE FIRST_SEED LAST_SEED [OUT] [-- run args...]
#   e.g. ci/calibrate-verdict.sh smoke 1 20
#
# OUT defaults to results/calibration-SUITE; seeds whose results already
# exist there are kept (AMPBENCH_CALIBRATION_REUSE=0 re-runs them). Writes
# OUT/calibration.md and exits with the tabulator's status: 0 when every
# correct case passed on every seed and every control was caught on every
# seed with margin >= 3.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -ge 3 ]] || { echo "usage: $0 SUITE FIRST_SEED LAST_SEED [OUT] [-- run args...]" >&2; exit 2; }
SUITE="$1"; FIRST="$2"; LAST="$3"; shift 3
OUT="results/calibration-$(basename "$SUITE" .json)"
if [[ $# -gt 0 && "$1" != "--" ]]; then OUT="$1"; shift; fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
[[ "$FIRST" =~ ^[0-9]+$ && "$LAST" =~ ^[0-9]+$ && "$FIRST" -le "$LAST" ]] ||
  { echo "calibrate-verdict: seeds must be whole numbers with FIRST <= LAST (got '$FIRST' '$LAST')" >&2; exit 2; }
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"  # the tabulator runs from the repository root
for seed in $(seq "$FIRST" "$LAST"); do
  dir="$OUT/seed-$seed"
  if [[ "${AMPBENCH_CALIBRATION_REUSE:-1}" == 1 && -f "$dir/results.json" ]]; then continue; fi
  # A folder left by an earlier run is reused through --overwrite, which
  # refuses any folder ampbench did not write: nothing of the user's is removed.
  again=(); [[ -e "$dir" ]] && again=(--overwrite)
  echo "calibrate-verdict: $SUITE, seed $seed" >&2
  # A case that does not conform exits 1: that is what is being counted.
  "${AMPBENCH_BIN:-$ROOT/ampbench}" run --suite "$SUITE" --seed "$seed" --no-throughput --no-report --out "$dir" \
    ${again[@]+"${again[@]}"} "$@" \
    > "$dir.log" 2>&1 || [[ $? -eq 1 ]] || { echo "calibrate-verdict: seed $seed did not complete ($dir.log)" >&2; exit 3; }
done
# shellcheck source=ci/torch-env.sh
source "$ROOT/ci/torch-env.sh"  # VENV: the interpreter the reports run with
cd "$ROOT"
exec "${AMPBENCH_PYTHON:-$VENV/bin/python}" -m reports.calibration "$OUT" --markdown "$OUT/calibration.md"
