#!/usr/bin/env bash
# autocast_ops_test.sh AMPBENCH PYTHON OUTDIR
#
# `ampbench autocast-ops` must be able to fail: with Python's own table as
# --expected it agrees (exit 0); with that table doctored (addmm under
# bfloat16 said to give float32) it exits 1 naming the op, device and
# dtypes; a table measured on another device is refused (exit 2).
set -uo pipefail
BIN="$1" PY="$2" OUT="$3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rm -rf "$OUT" && mkdir -p "$OUT"
status=0
fail() { echo "FAIL [$1]: $2" >&2; status=1; }

(cd "$ROOT" && "$PY" -m reference.python.autocast_policy --device cpu --out "$OUT/python.json") ||
  { echo "FAIL: the Python oracle did not run" >&2; exit 1; }
"$PY" - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
table = json.load(open(f"{out}/python.json"))
rows = [r for r in table["ops"] if r["op"] == "addmm" and r["dtype"] == "bfloat16"]
assert len(rows) == 1 and rows[0]["output_dtype"] == "bfloat16", rows
rows[0]["output_dtype"] = "float32"
json.dump(table, open(f"{out}/doctored.json", "w"))
table["device"] = "cuda"
json.dump(table, open(f"{out}/other-device.json", "w"))
PY

# run NAME EXPECTED_EXIT EXPECTED_FILE: ampbench autocast-ops --expected FILE
run() {
  local name="$1" code="$2" table="$3"
  "$BIN" autocast-ops --device cpu --expected "$table" --out "$OUT/$name" >"$OUT/$name.log" 2>&1
  local rc=$?
  ((rc == code)) || fail "$name" "exit $rc, expected $code (see $OUT/$name.log)"
}
run agrees 0 "$OUT/python.json"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["summary"]["agree"] != r["summary"]["rows"])' \
  "$OUT/agrees/autocast-ops.json" || fail agrees "autocast-ops.json does not count every row as agreeing"
run doctored 1 "$OUT/doctored.json"
said="autocast-ops: addmm on cpu under bfloat16: output bfloat16, Python's policy gives float32"
grep -qF "$said" "$OUT/doctored.log" || fail doctored "does not say '$said'"
[[ "$(grep -c "^autocast-ops: " "$OUT/doctored.log")" == 1 ]] || fail doctored "more than the one doctored row disagrees"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["summary"]["agree"] != r["summary"]["rows"] - 1)' \
  "$OUT/doctored/autocast-ops.json" || fail doctored "autocast-ops.json does not count exactly one disagreeing row"
run other-device 2 "$OUT/other-device.json"
grep -qF "was measured on cuda, this run is on cpu" "$OUT/other-device.log" || fail other-device "the device is not named"
((status == 0)) && echo "autocast-ops: agrees with Python's table, fails on the doctored one, refuses another device's"
exit $status
