#!/usr/bin/env bash
# ci/gate-ab.sh end to end (CTest ci.gate_ab_flags_slowdown): one binary on
# both sides, the current side slowed to half speed, must be flagged with
# paired verdicts (exit 1); bad usage must exit 2 naming the problem.
# 10 pairs, not 6: with 6 the two-sided exact Wilcoxon p is 2/64 = 0.031 only
# when all 6 pairs are in order, so one pair swapped by machine load (3 of 24
# CI runs) gave p = 0.0625 and a false pass; with 10, even three of the
# smallest-ranked pairs out of order keep p below 0.05 (exact p: 0.0039 for one, 0.027 for three).
#   ci/gate-ab-test.sh AMPBENCH OUT_DIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$1"; OUT="$2"
rm -rf "$OUT"; mkdir -p "$OUT"
fail() { echo "gate-ab-test: $*" >&2; exit 1; }

rc=0
AMPBENCH_AB_OUT="$OUT/slow" AMPBENCH_AB_CURRENT_ARGS="--inject-slowdown 1.0" \
  AMPBENCH_AB_GATE_ARGS="--junit $OUT/gate.xml --rehearsal" \
  "$ROOT/ci/gate-ab.sh" "$BIN" "$BIN" 10 -- --suite calibration --device cpu --filter '^plain/mlp/fp32' --no-report \
  >"$OUT/slow.txt" 2>&1 || rc=$?
cat "$OUT/slow.txt"
[[ $rc -eq 1 ]] || fail "a 2x slowdown must be a regression (exit 1), got exit $rc"
grep -q "two-sided Wilcoxon signed-rank on paired runs" "$OUT/slow.txt" || fail "the gate did not pair the runs"
grep -q "REGRESSION: plain/mlp/fp32/sgd \[throughput\]" "$OUT/slow.txt" || fail "no throughput regression row"
grep -q "<failure" "$OUT/gate.xml" || fail "AMPBENCH_AB_GATE_ARGS did not reach the gate"
n=$(ls -d "$OUT"/slow/base-?? "$OUT"/slow/cur-?? | wc -l)
[[ $n -eq 20 ]] || fail "expected 10 runs per side, found $n run folders"
# The same runs without --rehearsal: a slowdown injected on purpose is no measurement.
rc=0
"$BIN" gate --paired --baseline "$OUT"/slow/base-??/results.json --current "$OUT"/slow/cur-??/results.json \
  >/dev/null 2>"$OUT/unrehearsed.txt" || rc=$?
[[ $rc -eq 2 ]] || fail "results made with --inject-slowdown gated without --rehearsal: exit $rc, expected 2"
grep -q "was made with --inject-slowdown [0-9.]*, a test-only fault switch" "$OUT/unrehearsed.txt" \
  || fail "the refusal does not name the switch: $(cat "$OUT/unrehearsed.txt")"

expect2() {  # WHAT ARGS...: exit 2 and an error line
  local what="$1" rc=0; shift
  "$ROOT/ci/gate-ab.sh" "$@" >/dev/null 2>"$OUT/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || fail "$what: expected exit 2, got $rc"
  grep -q "$what" "$OUT/err.txt" || fail "$what: not named on stderr: $(cat "$OUT/err.txt")"
}
expect2 "not an executable ampbench" "$BIN" "$OUT/no-such-ampbench"
expect2 "PAIRS must be an integer" "$BIN" "$BIN" 1
expect2 "usage" "$BIN"
AMPBENCH_AB_OUT="$OUT/bad" expect2 "without results" "$BIN" "$BIN" 2 -- --suite no-such-suite
echo "gate-ab-test: ok"
