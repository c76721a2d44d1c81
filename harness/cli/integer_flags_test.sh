#!/usr/bin/env bash
# integer_flags_test.sh AMPBENCH PYTHON OUTDIR
#
# The integer flags as the ampbench binary binds them: `--seed 010` must
# seed every case with 10, the decimal the user wrote, not CLI11's octal 8
# (the range reader rewrites the text, which only a transform passes on).
set -uo pipefail
BIN="$1" PY="$2" OUT="$3"
rm -rf "$OUT" && mkdir -p "$OUT"
cat >"$OUT/suite.json" <<'JSON'
{
  "name": "integer-flags",
  "defaults": {"steps": 2, "seed": 1},
  "models": {"mlp": {"batch": 4, "in_features": 4, "hidden": 4, "classes": 2}},
  "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32"], "optimizers": ["sgd"]},
  "tolerances": {"envelope": {"replicas": 1}, "fp32": {}, "fp16": {}, "bf16": {}},
  "throughput": {"enabled": false}
}
JSON
status=0
if ! "$BIN" run --suite "$OUT/suite.json" --device cpu --seed 010 --no-report --out "$OUT/seed" >"$OUT/seed.log" 2>&1; then
  echo "FAIL: run --seed 010 exited non-zero:" >&2
  cat "$OUT/seed.log" >&2
  exit 1
fi
"$PY" - "$OUT/seed/results.json" <<'PY' || status=1
import json, sys
seeds = {c["seed"] for c in json.load(open(sys.argv[1]))["cases"]}
if seeds != {10}:
    sys.exit(f"FAIL: --seed 010 seeded the cases with {sorted(seeds)}, not 10")
PY
exit $status
