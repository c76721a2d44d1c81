#!/usr/bin/env bash
# Usage: report_dies_test.sh AMPBENCH OUT_DIR
# The report process dies with the run: `ampbench run` builds its
# report in a child that has PR_SET_PDEATHSIG, started without a shell in
# between (a shell would fork the real program as a grandchild, out of the
# signal's reach). A stand-in for Python records its pid and execs a long
# sleep; SIGKILL to ampbench must take that process with it.
set -uo pipefail
BIN="$1"; OUT="$2"
rm -rf "$OUT" && mkdir -p "$OUT"
fail() { echo "report_dies_test: FAIL: $*" >&2; exit 1; }

cat >"$OUT/fake-python" <<STUB
#!/usr/bin/env bash
echo \$\$ >"$OUT/report.pid"
exec sleep 120
STUB
chmod +x "$OUT/fake-python"

AMPBENCH_PYTHON="$OUT/fake-python" "$BIN" run --suite smoke --device cpu --no-throughput \
  --filter '^plain/mlp/fp32/sgd$' --out "$OUT/run" >"$OUT/run.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [[ -s "$OUT/report.pid" ]] && break; sleep 0.1; done
[[ -s "$OUT/report.pid" ]] || fail "the report step never started: $(tail -5 "$OUT/run.log")"
report=$(cat "$OUT/report.pid")
kill -0 "$report" 2>/dev/null || fail "the report process $report is not running"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['complete']" "$OUT/run/results.json" \
  || fail "the run's results were not complete before the report started"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
# PR_SET_PDEATHSIG is delivered asynchronously: allow 5 s.
for _ in $(seq 1 50); do kill -0 "$report" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$report" 2>/dev/null; then
  kill "$report"
  fail "the report process $report outlived the run"
fi
echo "report_dies_test: ok (report process $report died with the run)"
