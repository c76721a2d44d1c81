#!/usr/bin/env bash
# killed_run_test.sh AMPBENCH PYTHON OUTDIR
#
# A run killed half way (SIGKILL: no handler, no flush) must leave a valid
# results file holding every case finished before the kill: the writer
# replaces the file atomically after each case.
set -euo pipefail
BIN="$1" PY="$2" OUT="$3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rm -rf "$OUT"
mkdir -p "$OUT"
"$BIN" run --suite smoke --device cpu --no-report --out "$OUT/run" >"$OUT/run.log" 2>&1 &
pid=$!
# Wait until at least 5 cases are on disk, then kill without warning.
for _ in $(seq 600); do
  n=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$OUT/run/results.json" 2>/dev/null || echo 0)
  ((n >= 5)) && break
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null || { echo "killed_run_test: the run finished before it could be killed" >&2; exit 1; }
wait "$pid" 2>/dev/null || true
"$PY" "$ROOT/harness/schema/validate_results.py" "$OUT/run/results.json"
"$PY" - "$ROOT" "$OUT/run/results.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from reference.python.results_file import load_results
results = load_results(sys.argv[2])  # refuses any status outside the schema's
n = len(results.cases)
assert results.complete is False, "a killed run must not claim to be complete"
assert results.finished_utc is None
assert n >= 5, f"only {n} cases kept"
print(f"killed run kept {n} finished cases, complete=false")
PY
