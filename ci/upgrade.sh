#!/usr/bin/env bash
# One verdict for a torch upgrade (docs/upgrade.md): the same suite run by
# the old and the new torch's ampbench, interleaved in rounds, then the
# upgrade report (conformance, max_ratio, paired throughput, autocast
# policy, environment).
#
#   ./ampbench upgrade --from OLD --to NEW [--suite smoke] [--pairs 12] [--out DIR]
#                      [--current-args "ARGS"] [-- RUN-ARGS...]
#
# --current-args: extra run arguments for the new side only (e.g.
# "--inject-slowdown 0.2", to see the verdict fire). RUN-ARGS go to every
# run of both sides (--device cpu, --filter ...; a --suite there is the same
# as --suite before --).
# Environment: AMPBENCH_UPGRADE_OLD_BIN / AMPBENCH_UPGRADE_NEW_BIN use these
# binaries instead of provisioning and building each side (prebuilt in CI).
# Exit: 0 pass, 1 a throughput regression or a case that changed for the
# worse, 2 unusable input (the reason on stderr).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

refuse() { echo "upgrade: error: $*" >&2; exit 2; }
say() { echo "upgrade: $*" >&2; }
usage() { refuse "usage: ./ampbench upgrade --from OLD --to NEW [--suite S] [--pairs N] [--out DIR] [--current-args ARGS] [-- RUN-ARGS...]"; }

# 12: the pairs ci/gate-ab.sh is calibrated with (docs/ci-gate.md); below 6
# the Wilcoxon test cannot reach p < 0.05 at all, so no verdict could fail.
FROM="" TO="" SUITE="" PAIRS=12 OUT="" CURRENT_ARGS=""
parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --from|--to|--suite|--pairs|--out|--current-args)
        # Only --current-args takes a value that starts with --.
        [[ $# -ge 2 && ( "$2" != --* || "$1" == --current-args ) ]] || refuse "$1 needs a value"
        case "$1" in
          --from) FROM="$2" ;; --to) TO="$2" ;; --suite) SUITE="$2" ;;
          --pairs) PAIRS="$2" ;; --out) OUT="$2" ;; --current-args) CURRENT_ARGS="$2" ;;
        esac
        shift 2 ;;
      --) shift; RUN_ARGS=("$@"); return ;;
      *) refuse "unknown argument '$1' (run arguments go after --)" ;;
    esac
  done
}

# A --suite among the run arguments names the suite too; it must agree.
take_suite_from_run_args() {
  local kept=() i=0 s
  while [[ $i -lt ${#RUN_ARGS[@]} ]]; do
    s=""
    case "${RUN_ARGS[$i]}" in
      --suite) s="${RUN_ARGS[$((i + 1))]:-}"; i=$((i + 2)) ;;
      --suite=*) s="${RUN_ARGS[$i]#--suite=}"; i=$((i + 1)) ;;
      *) kept+=("${RUN_ARGS[$i]}"); i=$((i + 1)); continue ;;
    esac
    [[ -n "$s" ]] || refuse "--suite needs a value"
    [[ -z "$SUITE" || "$SUITE" == "$s" ]] || refuse "two suites given: '$SUITE' and '$s'"
    SUITE="$s"
  done
  RUN_ARGS=(${kept[@]+"${kept[@]}"})
  SUITE="${SUITE:-smoke}"
}

# "VENV BUILD" of a version, or torch-env.sh's refusal (exit 2).
side_paths() {
  ( export AMPBENCH_TORCH="$1"; unset AMPBENCH_BUILD_DIR
    source "$ROOT/ci/torch-env.sh" && echo "$VENV $BUILD" ) || exit 2
}

# Never replace a folder of the user's: only an empty one or an earlier
# upgrade's (it carries the marker) may be (re)used.
prepare_out() {
  OUT="${OUT:-$ROOT/results/upgrade-$FROM-to-$TO-$(date -u +%Y%m%dT%H%M%SZ)}"
  if [[ -e "$OUT" || -L "$OUT" ]]; then
    [[ -d "$OUT" && ! -L "$OUT" ]] || refuse "$OUT exists and is not a folder; not overwritten"
    if [[ -f "$OUT/.ampbench-upgrade" ]]; then
      find "$OUT" -mindepth 1 -delete 2>/dev/null || refuse "$OUT: cannot clear the earlier upgrade output"
    elif [[ -n "$(ls -A "$OUT")" ]]; then
      refuse "$OUT exists and is not an earlier upgrade output; not overwritten (pick another --out)"
    fi
  fi
  mkdir -p "$OUT" 2>/dev/null && echo "$FROM -> $TO" >"$OUT/.ampbench-upgrade" 2>/dev/null \
    || refuse "$OUT: cannot create or write the output folder"
  OUT="$(cd "$OUT" && pwd)"
}

# The side's ampbench, provisioned and built when needed.
side_binary() {  # VERSION BUILD OVERRIDE
  local version="$1" build="$2" override="$3"
  if [[ -n "$override" ]]; then
    [[ -x "$override" ]] || refuse "$override: not an executable ampbench (torch $version)"
    echo "$override"; return
  fi
  AMPBENCH_TORCH="$version" AMPBENCH_QUIET=1 "$ROOT/ci/bootstrap.sh" >&2 \
    || refuse "could not provision torch $version (AMPBENCH_TORCH=$version ci/bootstrap.sh)"
  AMPBENCH_TORCH="$version" AMPBENCH_QUIET=1 "$ROOT/ci/build.sh" ampbench >&2 \
    || refuse "could not build ampbench against torch $version (AMPBENCH_TORCH=$version ci/build.sh ampbench)"
  echo "$build/ampbench"
}

check_suite() {  # VERSION BIN: before any round, so a half-run upgrade never happens
  local log="$OUT/suite-check-$1.log"
  "$2" list --suite "$SUITE" >"$log" 2>&1 \
    || refuse "torch $1's ampbench cannot load suite '$SUITE': $(tail -n 1 "$log")"
}

# The device runs use: the run arguments' --device, else cpu.
run_device() {
  local i
  for ((i = 0; i < ${#RUN_ARGS[@]}; i++)); do
    case "${RUN_ARGS[$i]}" in
      --device) echo "${RUN_ARGS[$((i + 1))]:-cpu}"; return ;;
      --device=*) echo "${RUN_ARGS[$i]#--device=}"; return ;;
    esac
  done
  echo cpu
}

# Each version's own autocast policy table; a failure leaves the policy
# uncompared (the report says so), it does not void the rounds.
autocast_table() {  # VERSION BIN VENV
  local dir="$OUT/autocast-$1"
  local rc=0
  AMPBENCH_PYTHON="$3/bin/python" "$2" autocast-ops --device "$(run_device)" --out "$dir" >"$dir.log" 2>&1 || rc=$?
  # Exit 1: a row where C++ and Python disagree; the table is still whole.
  if [[ $rc -le 1 && -f "$dir/autocast-ops.json" ]]; then
    echo "$dir/autocast-ops.json"
  else
    say "warning: autocast-ops with torch $1 failed (see $dir.log); the policy is not compared"
  fi
}

report_python() {
  local py
  for py in "$NEW_VENV/bin/python" "$OLD_VENV/bin/python" "${AMPBENCH_PYTHON:-}"; do
    [[ -x "$py" ]] && { echo "$py"; return; }
  done
  echo python3
}

main() {
  RUN_ARGS=()
  parse_args "$@"
  [[ -n "$FROM" && -n "$TO" ]] || usage
  [[ "$FROM" != "$TO" ]] || refuse "both sides are torch $FROM: an upgrade compares two different versions"
  local old_paths new_paths
  old_paths="$(side_paths "$FROM")" || exit 2
  new_paths="$(side_paths "$TO")" || exit 2
  read -r OLD_VENV OLD_BUILD <<<"$old_paths"
  read -r NEW_VENV NEW_BUILD <<<"$new_paths"
  [[ "$PAIRS" =~ ^[0-9]+$ && "$PAIRS" -ge 6 ]] \
    || refuse "--pairs must be an integer >= 6 (fewer pairs cannot reach p < 0.05), got '$PAIRS'"
  take_suite_from_run_args
  prepare_out

  local old_bin new_bin old_policy new_policy rc=0
  old_bin="$(side_binary "$FROM" "$OLD_BUILD" "${AMPBENCH_UPGRADE_OLD_BIN:-}")" || exit 2
  new_bin="$(side_binary "$TO" "$NEW_BUILD" "${AMPBENCH_UPGRADE_NEW_BIN:-}")" || exit 2
  check_suite "$FROM" "$old_bin"
  check_suite "$TO" "$new_bin"
  old_policy="$(autocast_table "$FROM" "$old_bin" "$OLD_VENV")"
  new_policy="$(autocast_table "$TO" "$new_bin" "$NEW_VENV")"

  say "$PAIRS rounds of suite $SUITE, torch $FROM and $TO interleaved -> $OUT"
  AMPBENCH_AB_OUT="$OUT/runs" AMPBENCH_AB_CURRENT_ARGS="$CURRENT_ARGS" \
    AMPBENCH_AB_GATE_ARGS="--markdown $OUT/gate.md --junit $OUT/gate.xml --allow-env-mismatch" \
    "$ROOT/ci/gate-ab.sh" "$old_bin" "$new_bin" "$PAIRS" -- --suite "$SUITE" --no-report \
    ${RUN_ARGS[@]+"${RUN_ARGS[@]}"} >"$OUT/gate.txt" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { tail -n 5 "$OUT/gate.txt" >&2; refuse "the rounds gave no usable results (see $OUT/gate.txt)"; }

  local policy_args=()
  [[ -n "$old_policy" && -n "$new_policy" ]] && policy_args=(--old-autocast "$old_policy" --new-autocast "$new_policy")
  cd "$ROOT"
  rc=0
  "$(report_python)" -m reports.upgrade_cli --from "$FROM" --to "$TO" \
    --old "$OUT"/runs/base-*/results.json --new "$OUT"/runs/cur-*/results.json \
    ${policy_args[@]+"${policy_args[@]}"} --gate-junit "$OUT/gate.xml" --out "$OUT" || rc=$?
  [[ $rc -gt 1 ]] || say "report: $OUT/upgrade.md, $OUT/upgrade.xml, $OUT/html/index.html"
  exit $rc
}

main "$@"
