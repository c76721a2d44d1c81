#!/usr/bin/env bash
# Usage: stop_test.sh AMPBENCH OUT_DIR
# A run stopped while DDP ranks work: SIGTERM to the launcher
# stops every rank and exits 143 with results.json complete=false and no
# report; SIGKILL to the launcher takes the ranks with it (PR_SET_PDEATHSIG).
set -uo pipefail
BIN="$1"; OUT="$2"
rm -rf "$OUT" && mkdir -p "$OUT"
fail() { echo "stop_test: FAIL: $*" >&2; exit 1; }

# start NAME SIGNAL RUN-ARGS...: runs, waits for the ranks to start, signals.
stop_run() {
  local name="$1" sig="$2"; shift 2
  "$BIN" run --device cpu --no-report --out "$OUT/$name" "$@" >"$OUT/$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 120); do
    grep -q "launching" "$OUT/$name.log" 2>/dev/null && break
    sleep 0.1
  done
  grep -q "launching" "$OUT/$name.log" || fail "$name: the ranks never started: $(tail -5 "$OUT/$name.log")"
  sleep 0.3
  kill "-$sig" "$pid"
  wait "$pid"
  rc=$?
  # PR_SET_PDEATHSIG is delivered asynchronously, and a rank still loading
  # LibTorch under load dies only once it runs: allow 15 s.
  ranks_alive() { pgrep -f -- "--out $OUT/$name( |\$)" >/dev/null || pgrep -f -- "$OUT/$name/ddp-ranks( |\$)" >/dev/null; }
  for _ in $(seq 1 150); do ranks_alive || break; sleep 0.1; done
  if ranks_alive; then
    pgrep -af -- "$OUT/$name" >&2
    fail "$name: ranks outlived the launcher"
  fi
}

# "False" also when the ranks were stopped before writing any results.
complete_of() {
  [[ -e "$1" ]] || { echo False; return; }
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['complete'])" "$1"
}

stop_run term TERM --suite distributed --nproc 2
[[ "$rc" == 143 ]] || fail "term: exit $rc, expected 143: $(tail -3 "$OUT/term.log")"
grep -q "stopped by signal 15" "$OUT/term.log" || fail "term: no reason on stderr"
[[ "$(complete_of "$OUT/term/results.json")" == False ]] || fail "term: results.json marked complete"

stop_run in_run TERM --suite smoke --filter workload=ddp
[[ "$rc" == 143 ]] || fail "in_run: exit $rc, expected 143: $(tail -3 "$OUT/in_run.log")"
[[ "$(complete_of "$OUT/in_run/results.json")" == False ]] || fail "in_run: results.json marked complete"
[[ ! -e "$OUT/in_run/report" ]] || fail "in_run: a stopped run got a report"

stop_run kill KILL --suite distributed --nproc 2
[[ "$rc" == 137 ]] || fail "kill: exit $rc, expected 137"
echo "stop_test: ok (SIGTERM: ranks stopped, exit 143, incomplete; SIGKILL: no orphan ranks)"
