#!/usr/bin/env bash
# A rank that crashes, or hangs, must make `ampbench run --nproc 2` fail
# within seconds (not hang), with a message naming the rank and its log.
#   rank_failure_test.sh AMPBENCH OUT_DIR
set -uo pipefail
AMPBENCH="$1"
OUT="$2"
rm -rf "$OUT"
fail() { echo "FAIL: $*" >&2; exit 1; }

check() {  # name max_seconds expected_rank_text env...
  local name="$1" max="$2" want="$3"; shift 3
  local start end rc log="$OUT/$name.stderr"
  mkdir -p "$OUT"
  start=$(date +%s)
  # The dataparallel case runs (on rank 0) before the first ddp step, where
  # the debug hook strikes: it must survive in the results file.
  env "$@" timeout 150 "$AMPBENCH" run --suite distributed --device cpu --filter '^(dataparallel|ddp)/mlp/fp32/' \
      --nproc 2 --no-report --no-throughput --rank-timeout 10 --out "$OUT/$name" >"$OUT/$name.stdout" 2>"$log"
  rc=$?
  end=$(date +%s)
  cat "$log"
  [[ $rc -ne 0 ]] || fail "$name: exit code 0"
  [[ $rc -ne 124 ]] || fail "$name: the run hung (killed by timeout)"
  grep -q "$want" "$log" || fail "$name: the message does not name '$want'"
  grep -q "rank1.log" "$log" || fail "$name: the message does not point at rank 1's log"
  (( end - start <= max )) || fail "$name: took $((end - start)) s (limit $max s)"
  # No rank left behind: every rank's command line carries this --out.
  sleep 0.5
  if pgrep -f -- "--out $OUT/$name( |\$)" >/dev/null; then
    pgrep -af -- "--out $OUT/$name( |\$)" >&2
    fail "$name: ranks are still running after the launcher exited"
  fi
  grep -q '"id": "dataparallel/mlp/fp32/sgd"' "$OUT/$name/results.json" \
    || fail "$name: the case finished before the failure is missing from $OUT/$name/results.json"
  echo "ok: $name: exit $rc after $((end - start)) s"
}

check crash 60 "rank 1 (pid [0-9]*):* was killed by signal 6" AMPBENCH_DEBUG_RANK_CRASH=1
check hang 90 "rank 1 (pid [0-9]*) .*silent\|rank 1 (pid [0-9]*) made no progress" AMPBENCH_DEBUG_RANK_HANG=1
echo "2 passed, 0 failed"
