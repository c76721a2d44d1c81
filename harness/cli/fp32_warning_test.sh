#!/usr/bin/env bash
# fp32_warning_test.sh AMPBENCH PYTHON OUTDIR
#
# A run whose fp32 may not be IEEE float32 must say so: a WARNING line at the
# start and again under the summary, and env.float32_math.fp32_is_ieee =
# false with the reason in results.json. Checked on CPU with the two TF32
# environment overrides set (NVIDIA_TF32_OVERRIDE=1,
# TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1) and with none or the disabling
# NVIDIA_TF32_OVERRIDE=0 (IEEE: no warning). The suite is one tiny fp32
# baseline and its tf32 case, which a CPU skips with a reason; every results
# file must match the schema.
set -uo pipefail
BIN="$1" PY="$2" OUT="$3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rm -rf "$OUT" && mkdir -p "$OUT"
cat >"$OUT/suite.json" <<'JSON'
{
  "name": "fp32-warning",
  "defaults": {"steps": 2},
  "models": {"mlp": {"batch": 8, "in_features": 8, "hidden": 8, "classes": 4}},
  "matrix": {"workloads": ["plain"], "models": ["mlp"], "precisions": ["fp32", "tf32"], "optimizers": ["sgd"]},
  "tolerances": {"envelope": {"replicas": 1}, "fp32": {}, "fp16": {}, "bf16": {}, "tf32": {}},
  "throughput": {"enabled": false}
}
JSON
status=0
fail() { echo "FAIL [$1]: $2" >&2; status=1; }

# check NAME REASONS ENV...: run with ENV set (and no other override);
# expect REASONS causes, each warned about twice.
check() {
  local name="$1" reasons="$2"; shift 2
  local log="$OUT/$name.log" results="$OUT/$name/results.json"
  env -u NVIDIA_TF32_OVERRIDE -u TORCH_ALLOW_TF32_CUBLAS_OVERRIDE "$@" \
    "$BIN" run --suite "$OUT/suite.json" --device cpu --no-report --out "$OUT/$name" >"$log" 2>&1
  local rc=$?
  ((rc == 0)) || fail "$name" "exit $rc (see $log)"
  local n
  n=$(grep -c "^WARNING: fp32 is not IEEE float32 in this run" "$log")
  ((n == 2 * reasons)) || fail "$name" "$n WARNING lines, expected $((2 * reasons)) (see $log)"
  if ((reasons > 0)); then
    # At the start (before the first case) and under the summary.
    local first_warning first_case
    first_warning=$(grep -n -m 1 "^WARNING: fp32 is not IEEE" "$log" | cut -d: -f1)
    first_case=$(grep -n -m 1 "^\[ *1/" "$log" | cut -d: -f1)
    ((first_warning < first_case)) || fail "$name" "no WARNING before the first case"
    grep -A 3 "^verdicts: " "$log" | grep -q "^WARNING: fp32 is not IEEE" \
      || fail "$name" "no WARNING in the final summary"
    local var="${1:-?}"; var="${var%%=*}"
    grep -q "^WARNING: .*${var}=" "$log" || fail "$name" "the WARNING does not name ${var}"
  fi
  "$PY" "$ROOT/harness/schema/validate_results.py" "$results" >/dev/null || fail "$name" "results.json breaks the schema"
  "$PY" - "$ROOT" "$results" "$reasons" <<'PY' || fail "$name" "results.json does not record it"
import sys
sys.path.insert(0, sys.argv[1])
from reference.python.results_file import Status, load_results
results, reasons = load_results(sys.argv[2]), int(sys.argv[3])
math = results.env["float32_math"]
assert math["fp32_is_ieee"] is (reasons == 0), math
assert len(math["fp32_not_ieee_reasons"]) == reasons, math["fp32_not_ieee_reasons"]
(tf32,) = [c for c in results.cases if c.precision == "tf32"]
assert tf32.status is Status.SKIPPED and tf32.conforms is None, tf32
assert tf32.reason == "tf32 is CUDA tensor-core math; on cpu it would be IEEE fp32, identical to the baseline", tf32
PY
  echo "$name: exit $rc, $n WARNING line(s)"
}

check ieee 0
check nvidia_override_0 0 NVIDIA_TF32_OVERRIDE=0
check nvidia_override_1 1 NVIDIA_TF32_OVERRIDE=1
check torch_cublas_override_1 1 TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1
exit $status
