#!/usr/bin/env bash
# A simulated fleet on one host: MACHINES runs of `ampbench run
# --deterministic`, one process and one results folder each, each with its
# own AMPBENCH_MACHINE_ID, then `python -m reports.fleet` over them. Faults
# are injected on chosen machines, so the report's verdicts can be checked
# against what was done (ci/fleet/simulate-test.sh).
#
#   ci/fleet/simulate.sh AMPBENCH PYTHON OUT [RUN-ARGS...]
#
# Environment: MACHINES (16), SLOW (machine index given --inject-slowdown
# SLOWDOWN, default 1.0 = half speed; "" for none), BITFLIP (machine index
# given --inject-bitflip BITFLIP_STEP, default step 2; "" for none),
# SUITE (ci/fleet/fleet-sim.json: one small fp32 mlp case), FILTER (all),
# FLEET_ARGS (to reports.fleet), JOBS (1: how many machines run side by
# side, one per core; never more than the cores, or their runs would time
# each other: 2 cores shared by more runs made every machine an outlier).
set -euo pipefail
AMPBENCH="$1" PYTHON="$2" OUT="$3"
shift 3
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MACHINES="${MACHINES:-16}" SLOW="${SLOW-3}" BITFLIP="${BITFLIP-9}"
SUITE="${SUITE:-$ROOT/ci/fleet/fleet-sim.json}" FILTER="${FILTER:-.}"
mkdir -p "$OUT/machines"
JOBS="${JOBS:-1}"
# run_machine INDEX: one machine's run; exit 1 (a case not conforming) is the
# report's to name, other codes are the run's own failure.
run_machine() {
  local i="$1" id rc=0
  id="$(printf 'sim-%02d' "$i")"
  local fault=()
  [[ "$i" == "$SLOW" ]] && fault=(--inject-slowdown "${SLOWDOWN:-1.0}")
  [[ "$i" == "$BITFLIP" ]] && fault=(--inject-bitflip "${BITFLIP_STEP:-2}")
  AMPBENCH_MACHINE_ID="$id" OMP_NUM_THREADS=1 "$AMPBENCH" run --suite "$SUITE" --device cpu --deterministic \
    --filter "$FILTER" --no-report --overwrite --out "$OUT/machines/$id" "${fault[@]}" "${RUN_ARGS[@]}" \
    > "$OUT/machines/$id.log" 2>&1 || rc=$?
  [[ "$rc" -le 1 ]] || { echo "simulate: $id: ampbench run exited $rc (log: $OUT/machines/$id.log)" >&2; return "$rc"; }
  echo "simulate: $id done${fault[*]:+ (${fault[*]})}"
}
RUN_ARGS=("$@")
for ((i = 0; i < MACHINES; i += JOBS)); do
  pids=()
  for ((j = i; j < i + JOBS && j < MACHINES; j++)); do
    run_machine "$j" &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do wait "$pid" || exit "$?"; done
done
# The logs sit beside the folders, not in them: the report reads folders only.
mkdir -p "$OUT/logs" && mv "$OUT"/machines/*.log "$OUT/logs/"
rc=0
# A simulated fleet is a rehearsal: its faults are injected on purpose, and
# the report refuses results made with a fault switch unless told so.
# shellcheck disable=SC2086  # FLEET_ARGS is a list of flags
(cd "$ROOT" && "$PYTHON" -m reports.fleet "$OUT/machines" --out "$OUT/report" --rehearsal ${FLEET_ARGS:-}) || rc=$?
exit "$rc"
