#!/usr/bin/env bash
# autocast_ops_test.sh AMPBENCH PYTHON OUTDIR
#
# `ampbench autocast-ops` must be able to fail: with Python's own table as
# --expected it agrees (exit 0) on every row, PyTorch's lists included; with
# that table doctored (addmm of our list and torch_16/mm of PyTorch's said to
# give float32 under bfloat16) it exits 1 naming both; an entry whose
# operator does not exist is counted as one C++ cannot call (exit 1); CUDA's
# lists, run on the CPU, are all called from C++ and agree; a table without
# PyTorch's lists or measured on another device is refused (exit 2).
set -uo pipefail
BIN="$1" PY="$2" OUT="$3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rm -rf "$OUT" && mkdir -p "$OUT"
status=0
fail() { echo "FAIL [$1]: $2" >&2; status=1; }

(cd "$ROOT" && "$PY" -m reference.python.autocast_policy --device cpu --out "$OUT/python.json") ||
  { echo "FAIL: the Python oracle did not run" >&2; exit 1; }
"$PY" - "$OUT" <<'PY'
import copy, json, sys
out = sys.argv[1]
table = json.load(open(f"{out}/python.json"))
def save(name, t):
    json.dump(t, open(f"{out}/{name}.json", "w"))
def row(t, op, dtype="bfloat16"):
    (found,) = [r for r in t["ops"] if r["op"] == op and r["dtype"] == dtype]
    return found
doctored = copy.deepcopy(table)
for op in ("addmm", "torch_16/mm"):
    assert row(doctored, op)["output_dtype"] == "bfloat16", row(doctored, op)
    row(doctored, op)["output_dtype"] = "float32"
save("doctored", doctored)
missing = copy.deepcopy(table)
(call,) = [c for c in missing["torch_lists"]["calls"] if c["id"] == "torch_16/conv1d" and c["dtype"] == "bfloat16"]
call["op"] = "aten::no_such_op"
save("cannot-call", missing)
old = copy.deepcopy(table)
del old["torch_lists"]
save("old-table", old)
table["device"] = "cuda"
save("other-device", table)
PY

# run NAME EXPECTED_EXIT EXPECTED_FILE: ampbench autocast-ops --expected FILE
run() {
  local name="$1" code="$2" table="$3"
  "$BIN" autocast-ops --device cpu --expected "$table" --out "$OUT/$name" >"$OUT/$name.log" 2>&1
  local rc=$?
  ((rc == code)) || fail "$name" "exit $rc, expected $code (see $OUT/$name.log)"
}
# summary NAME PYTHON-CONDITION: the condition holds of autocast-ops.json (r)
summary() {
  "$PY" -c "import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not ($2))" "$OUT/$1/autocast-ops.json"
}

run agrees 0 "$OUT/python.json"
summary agrees 'r["summary"]["agree"] == r["summary"]["rows"]' ||
  fail agrees "autocast-ops.json does not count every row as agreeing"
summary agrees 'all(c["agree"] == c["rows"] == c["ran"] > 0 for c in r["coverage"])' ||
  fail agrees "a list of the coverage is not wholly run and agreeing"
summary agrees '{c["list"] for c in r["coverage"]} >= {"torch_16", "nn_16", "torch_fp32", "nn_fp32",
  "torch_need_autocast_promote", "torch_expect_builtin_promote", "methods_expect_builtin_promote"}' ||
  fail agrees "the coverage lacks one of PyTorch's CPU lists"

run doctored 1 "$OUT/doctored.json"
for op in addmm torch_16/mm; do
  said="autocast-ops: $op on cpu under bfloat16: output bfloat16, Python's policy gives float32"
  grep -qF "$said" "$OUT/doctored.log" || fail doctored "does not say '$said'"
done
[[ "$(grep -c "^autocast-ops: " "$OUT/doctored.log")" == 2 ]] || fail doctored "more than the two doctored rows disagree"
summary doctored 'r["summary"]["disagree"] == 2 and r["summary"]["agree"] == r["summary"]["rows"] - 2' ||
  fail doctored "autocast-ops.json does not count exactly two disagreeing rows"

run cannot-call 1 "$OUT/cannot-call.json"
said="autocast-ops: torch_16/conv1d on cpu under bfloat16: cannot be called from C++: no operator aten::no_such_op"
grep -qF "$said" "$OUT/cannot-call.log" || fail cannot-call "does not say '$said'"
summary cannot-call 'r["summary"]["cannot_call"] == 1 and r["summary"]["disagree"] == 0 and
  [c["cannot_call"] for c in r["coverage"] if c["list"] == "torch_16"] == [1]' ||
  fail cannot-call "autocast-ops.json does not count it under torch_16 as one row C++ cannot call"

# CUDA's lists, made and run on the CPU (CPU autocast's policy, not CUDA's):
# every entry can be called from C++ and gives what Python gives.
(cd "$ROOT" && "$PY" -m reference.python.autocast_policy --device cpu --lists cuda --out "$OUT/cuda-lists.json") ||
  fail cuda-lists "the Python oracle did not run CUDA's lists on the CPU"
run cuda-lists 0 "$OUT/cuda-lists.json"
summary cuda-lists 'r["summary"]["disagree"] == r["summary"]["cannot_call"] == 0 and
  r["summary"]["agree"] + r["summary"]["skipped"] == r["summary"]["rows"] and
  sum(c["entries"] for c in r["coverage"] if c["list"] not in ("autocast_ops.json", "all")) >= 100' ||
  fail cuda-lists "not every entry of CUDA's lists is called from C++ and agrees"

run old-table 2 "$OUT/old-table.json"
grep -qF 'no "torch_lists"' "$OUT/old-table.log" || fail old-table "does not say the table lacks PyTorch's lists"
run other-device 2 "$OUT/other-device.json"
grep -qF "was measured on cuda, this run is on cpu" "$OUT/other-device.log" || fail other-device "the device is not named"
((status == 0)) && echo "autocast-ops: agrees with Python's table, fails on doctored rows and an entry it cannot" \
  "call, refuses a table without PyTorch's lists or from another device"
exit $status
