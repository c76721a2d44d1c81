#!/usr/bin/env bash
# A distributed run tears its process group down inside main(), after every
# case's Reducer: each rank's log ends with the shutdown line, and the run
# exits 0 (on the H200 the Reducer was destroyed at static destruction under
# NCCL and the rank aborted; this is the Gloo/CPU half of that check,
# ci/gpu-check.sh runs the NCCL half).
#   teardown_test.sh AMPBENCH OUT_DIR
set -uo pipefail
AMPBENCH="$1"
OUT="$2"
rm -rf "$OUT"
fail() { echo "FAIL: $*" >&2; exit 1; }
timeout 150 "$AMPBENCH" run --suite distributed --device cpu --filter '^ddp/mlp/fp32/' --nproc 2 --no-report \
  --no-throughput --out "$OUT" >"$OUT.stdout" 2>&1
rc=$?
cat "$OUT.stdout"
[[ $rc -eq 0 ]] || fail "exit code $rc (expected 0)"
for r in 0 1; do
  log="$OUT/rank$r.log"
  [[ -f "$log" ]] || fail "no log $log"
  # After the run's last line (its results path), not merely somewhere.
  sed -n '/^results: /,$p' "$log" | grep -q "^ampbench: rank $r of 2: process group (gloo) shut down$" ||
    { tail -n 5 "$log" >&2; fail "rank $r's log has no process-group shutdown line after its results"; }
done
echo "ok: both ranks shut their process group down explicitly and the run exited 0"
