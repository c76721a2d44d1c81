#!/usr/bin/env bash
# One verdict for a torch upgrade (docs/upgrade.md): the same suite run by
# the old and the new torch's ampbench, interleaved in rounds, then the
# upgrade report (conformance, max_ratio, paired throughput, autocast
# policy, environment). `./ampbench upgrade --help` lists the flags and the
# exit codes.
#
# Everything the command is given is checked before anything is written;
# the output is staged in OUT/.ampbench-incoming/ and replaces an earlier
# upgrade's output only once complete, as `ampbench run --overwrite` does.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

refuse() { echo "upgrade: error: $*" >&2; exit 2; }
say() { echo "upgrade: $*" >&2; }
usage() { refuse "usage: ./ampbench upgrade --from OLD --to NEW [--suite S] [--pairs N] [--out DIR] [--current-args ARGS] [--rehearsal] [-- RUN-ARGS...] (--help lists them)"; }

# 12: the pairs ci/gate-ab.sh is calibrated with (docs/ci-gate.md); below 6
# the Wilcoxon test cannot reach p < 0.05 at all, so no verdict could fail.
# Above 1000 the rounds would run for days and the interval's Walsh averages
# grow with the square of the pairs; reports/upgrade.py holds the same bound.
MIN_PAIRS=6 MAX_PAIRS=1000
MARKER=.ampbench-upgrade INCOMING=.ampbench-incoming OUTGOING=.ampbench-outgoing

help() {
  cat <<EOF
usage: ./ampbench upgrade --from OLD --to NEW [options] [-- RUN-ARGS...]

One verdict for a torch upgrade: the suite run by the old and the new torch's
ampbench in interleaved rounds, then the upgrade report (docs/upgrade.md).

  --from OLD           the torch release upgraded from (ci/torch-versions.txt)
  --to NEW             the torch release upgraded to
  --suite S            the suite (default smoke); a --suite among RUN-ARGS is the same
  --pairs N            rounds, each one run of both sides: a decimal integer from
                       $MIN_PAIRS to $MAX_PAIRS (default 12; 010 is ten)
  --out DIR            the output folder (default results/upgrade-OLD-to-NEW-<UTC time>/):
                       new, empty, or an earlier upgrade's output, which is replaced
                       only once the new one is complete
  --current-args ARGS  extra run arguments for the new side only
  --rehearsal          accept the test-only fault switches (--inject-slowdown,
                       --inject-bitflip) in the runs: the verdict is then a rehearsal,
                       and says so, not a measurement of the upgrade
  -h, --help           this text
  -- RUN-ARGS...       arguments for every run of both sides (--device cpu, --filter ...)

Environment: AMPBENCH_UPGRADE_OLD_BIN, AMPBENCH_UPGRADE_NEW_BIN name prebuilt
binaries instead of provisioning and building each side.

Exit status:
  0      pass: no case changed for the worse, no throughput regression
  1      fail: a throughput regression or a case that changed for the worse
  2      unusable input: a bad flag or folder, refused before anything is
         written; a side that could not be built; rounds without results;
         results that cannot be read as the two versions' runs. An earlier
         upgrade's output in --out is left whole.
  128+N  stopped by signal N; an earlier upgrade's output is left whole
EOF
}

FROM="" TO="" SUITE="" PAIRS=12 OUT="" CURRENT_ARGS="" REHEARSAL=""
parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -h|--help) help; exit 0 ;;
      --rehearsal) REHEARSAL=1; shift ;;
      --from|--to|--suite|--pairs|--out|--current-args)
        # Only --current-args takes a value that starts with --.
        [[ $# -ge 2 && ( "$2" != --* || "$1" == --current-args ) ]] || refuse "$1 needs a value"
        # An empty value would quietly become the default (smoke, a dated folder).
        [[ -n "$2" || "$1" == --current-args ]] || refuse "$1 needs a value, got ''"
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

# Decimal whatever its leading zeros, as the C++ CLI reads integers: bash
# arithmetic would take 010 for octal 8 and refuse 08 with its own error.
read_pairs() {
  local given="$PAIRS" digits
  case "$given" in ''|*[!0123456789]*) bad_pairs "$given" ;; esac
  digits="${given#"${given%%[!0]*}"}"
  # Counted before any arithmetic, which would wrap a 20-digit number.
  [[ ${#digits} -le ${#MAX_PAIRS} ]] || bad_pairs "$given"
  PAIRS=$((10#${digits:-0}))
  ((PAIRS >= MIN_PAIRS && PAIRS <= MAX_PAIRS)) || bad_pairs "$given"
}
bad_pairs() {
  refuse "--pairs must be a decimal integer from $MIN_PAIRS to $MAX_PAIRS (fewer pairs cannot reach p < 0.05), got '$1'"
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

# A fault injected on purpose measures the fault, not the torch: runs with
# one make a rehearsal of the verdict, and only when the user says so.
check_fault_switches() {
  local words=() word
  [[ -z "$REHEARSAL" ]] || return 0
  read -r -a words <<<"$CURRENT_ARGS"
  for word in ${words[@]+"${words[@]}"} ${RUN_ARGS[@]+"${RUN_ARGS[@]}"}; do
    case "$word" in
      --inject-*) refuse "${word%%=*} is a test-only fault switch: its runs are no measurement of torch $TO; pass --rehearsal to rehearse the verdict" ;;
    esac
  done
}

# Never replace a folder of the user's: only a new or empty one, or an
# earlier upgrade's (it carries the marker). Checks only; writes nothing.
check_out() {
  OUT="${OUT:-$ROOT/results/upgrade-$FROM-to-$TO-$(date -u +%Y%m%dT%H%M%SZ)}"
  if [[ ! -e "$OUT" && ! -L "$OUT" ]]; then
    local up="$OUT"
    while [[ ! -e "$up" ]]; do up="$(dirname -- "$up")"; done
    [[ -d "$up" && -w "$up" ]] || refuse "$OUT: cannot be created ($up is not a writable folder)"
    return
  fi
  [[ -d "$OUT" && ! -L "$OUT" ]] || refuse "$OUT exists and is not a folder; not overwritten"
  if [[ -f "$OUT/$MARKER" ]]; then
    [[ ! -e "$OUT/$OUTGOING" ]] \
      || refuse "$OUT/$OUTGOING holds the output an earlier upgrade was replacing when it stopped: keep what you need of it, remove it, and run again"
    [[ -w "$OUT" ]] || refuse "$OUT: the output folder is not writable"
  elif [[ -n "$(ls -A -- "$OUT")" ]]; then
    refuse "$OUT exists and is not an earlier upgrade output; not overwritten (pick another --out)"
  fi
}

# The new output goes to OUT/.ampbench-incoming/ (a stopped upgrade's
# partial one there is ours to drop); what OUT holds stays whole until
# promote_stage.
prepare_stage() {
  mkdir -p -- "$OUT" 2>/dev/null || refuse "$OUT: cannot create the output folder"
  OUT="$(cd -- "$OUT" && pwd)"
  STAGE="$OUT/$INCOMING"
  if [[ ! -f "$OUT/$MARKER" ]]; then
    echo "$FROM -> $TO" >"$OUT/$MARKER" 2>/dev/null || refuse "$OUT: cannot write the output folder"
  fi
  { rm -rf "$STAGE" && mkdir "$STAGE"; } 2>/dev/null || refuse "$STAGE: cannot create the staging folder"
}

# The gate names the files it read: the staged ones, now in OUT.
restage_paths() {
  local f text
  for f in "$@"; do
    [[ -f "$f" ]] || continue
    text="$(<"$f")"
    printf '%s\n' "${text//"$STAGE/"/"$OUT/"}" >"$f"
  done
}

# The complete new output replaces the earlier one. The earlier one moves
# aside first, so a whole output is on disk throughout, and a signal cannot
# cut the swap short.
promote_stage() {
  local aside="$OUT/$OUTGOING"
  trap '' INT TERM HUP
  mkdir "$aside" 2>/dev/null || refuse "$aside: cannot be created; the new output stays in $STAGE"
  find "$OUT" -mindepth 1 -maxdepth 1 ! -name "$INCOMING" ! -name "$OUTGOING" ! -name "$MARKER" \
    -exec mv -t "$aside" -- {} + || refuse "cannot move the earlier output aside into $aside"
  find "$STAGE" -mindepth 1 -maxdepth 1 -exec mv -t "$OUT" -- {} + \
    || refuse "cannot move the new output from $STAGE into $OUT (the earlier one is in $aside)"
  rmdir "$STAGE"
  echo "$FROM -> $TO" >"$OUT/$MARKER"
  rm -rf "$aside"
  trap - INT TERM HUP
  restage_paths "$OUT/gate.md" "$OUT/gate.xml" "$OUT/gate.txt"
}

# The side's ampbench, provisioned and built when needed.
side_binary() {  # VERSION BUILD OVERRIDE
  local version="$1" build="$2" override="$3"
  if [[ -n "$override" ]]; then
    [[ -f "$override" && -x "$override" ]] || refuse "$override: not an executable ampbench (torch $version)"
    echo "$override"; return
  fi
  AMPBENCH_TORCH="$version" AMPBENCH_QUIET=1 "$ROOT/ci/bootstrap.sh" >&2 \
    || refuse "could not provision torch $version (AMPBENCH_TORCH=$version ci/bootstrap.sh)"
  AMPBENCH_TORCH="$version" AMPBENCH_QUIET=1 "$ROOT/ci/build.sh" ampbench >&2 \
    || refuse "could not build ampbench against torch $version (AMPBENCH_TORCH=$version ci/build.sh ampbench)"
  echo "$build/ampbench"
}

check_suite() {  # VERSION BIN: before any round, so a half-run upgrade never happens
  local log="$STAGE/suite-check-$1.log"
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
  local dir="$STAGE/autocast-$1"
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

run_rounds() {  # OLD_BIN NEW_BIN
  local rc=0 gate_args="--markdown $STAGE/gate.md --junit $STAGE/gate.xml --allow-env-mismatch"
  # The gate refuses runs made with a fault switch unless told they rehearse it.
  [[ -z "$REHEARSAL" ]] || gate_args+=" --rehearsal"
  say "$PAIRS rounds of suite $SUITE, torch $FROM and $TO interleaved -> $OUT"
  AMPBENCH_AB_OUT="$STAGE/runs" AMPBENCH_AB_CURRENT_ARGS="$CURRENT_ARGS" AMPBENCH_AB_GATE_ARGS="$gate_args" \
    "$ROOT/ci/gate-ab.sh" "$1" "$2" "$PAIRS" -- --suite "$SUITE" --no-report \
    ${RUN_ARGS[@]+"${RUN_ARGS[@]}"} >"$STAGE/gate.txt" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || { tail -n 5 "$STAGE/gate.txt" >&2; refuse "the rounds gave no usable results (see $STAGE/gate.txt)"; }
}

main() {
  RUN_ARGS=()
  parse_args "$@"
  [[ -n "$FROM" && -n "$TO" ]] || usage
  [[ "$FROM" != "$TO" ]] || refuse "both sides are torch $FROM: an upgrade compares two different versions"
  read_pairs
  take_suite_from_run_args
  check_fault_switches
  local old_paths new_paths
  old_paths="$(side_paths "$FROM")" || exit 2
  new_paths="$(side_paths "$TO")" || exit 2
  read -r OLD_VENV OLD_BUILD <<<"$old_paths"
  read -r NEW_VENV NEW_BUILD <<<"$new_paths"
  check_out

  local old_bin new_bin old_policy new_policy rc=0
  old_bin="$(side_binary "$FROM" "$OLD_BUILD" "${AMPBENCH_UPGRADE_OLD_BIN:-}")" || exit 2
  new_bin="$(side_binary "$TO" "$NEW_BUILD" "${AMPBENCH_UPGRADE_NEW_BIN:-}")" || exit 2
  prepare_stage
  check_suite "$FROM" "$old_bin"
  check_suite "$TO" "$new_bin"
  old_policy="$(autocast_table "$FROM" "$old_bin" "$OLD_VENV")"
  new_policy="$(autocast_table "$TO" "$new_bin" "$NEW_VENV")"
  run_rounds "$old_bin" "$new_bin"

  local extra=()
  [[ -n "$old_policy" && -n "$new_policy" ]] && extra=(--old-autocast "$old_policy" --new-autocast "$new_policy")
  [[ -z "$REHEARSAL" ]] || extra+=(--rehearsal)
  cd "$ROOT"
  "$(report_python)" -m reports.upgrade_cli --from "$FROM" --to "$TO" \
    --old "$STAGE"/runs/base-*/results.json --new "$STAGE"/runs/cur-*/results.json \
    ${extra[@]+"${extra[@]}"} --gate-junit "$STAGE/gate.xml" --out "$STAGE" || rc=$?
  if [[ $rc -gt 1 ]]; then
    say "nothing replaced in $OUT; this upgrade's rounds are in $STAGE"
    exit $rc
  fi
  promote_stage
  say "report: $OUT/upgrade.md, $OUT/upgrade.xml, $OUT/html/index.html"
  exit $rc
}

main "$@"
