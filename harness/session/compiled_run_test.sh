#!/usr/bin/env bash
# Usage: compiled_run_test.sh AMPBENCH PYTHON OUT
# `run --implementation compiled` end to end on the smallest cases. A user's
# model first: the suite reference.export writes beside the TorchScript file
# names the Python module it came from, and the compiled run trains that
# module (a file cannot be compiled), judged against the file's eager run:
# bf16 trained compiled conforms against the eager fp32 baseline, the
# compiled fp32 twin stays inside fp32's envelope, and results.json says how
# torch.compile took each case. Then a deliberately wrong compiled graph (a
# cast removed) on smoke's mlp is caught, and its results are no measurement
# for the gate. The first run compiles each case from an emptied cache (the
# default); the later one shares a --compile-cache, as a user keeping a warm
# cache would, which spares it the cold compiles whose cost the first run
# already shows. (The user's module and smoke's mlp had a compiled run each
# of the default kind: one process and two cold compiles more, 30 s.)
set -u
bin="$1"; python="$2"; out="$3"
rm -rf "$out"; mkdir -p "$out"
fail() { echo "compiled_run_test: error: $1" >&2; exit 1; }
run() {  # NAME SUITE FILTER [ARGS...]
  "$bin" run --device cpu --suite "$2" --filter "$3" --implementation compiled --confirm-seeds 0 --no-report \
    --out "$out/$1" "${@:4}" > "$out/$1.log" 2>&1
}
(cd "$(dirname "$0")/../.." && "$python" -m reference.export reference.testmodels:TwoInputs --input 3,8,8 --input 10 \
  --matrix quick --out "$out/mine/two.pt") > "$out/export.log" 2>&1 || fail "the export failed ($out/export.log)"
run right "$out/mine/two.suite.json" '^plain/two/(fp32|bf16)/sgd$'; rc=$?
cat "$out/right.log"
[[ $rc -eq 0 ]] || fail "the exported module did not conform compiled ($out/right.log)"
grep -q "verdicts: 3 correct cases passed" "$out/right.log" || fail "the exported module's cases did not all run ($out/right.log)"
"$python" - "$out/right/results.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["env"]["implementation"] == "compiled" and doc["env"]["compile"]["mode"] == "default", doc["env"]
cases = {c["id"]: c for c in doc["cases"]}
assert set(cases) == {"plain/two/fp32/sgd", "plain/two/fp32/sgd#compiled", "plain/two/bf16/sgd"}, sorted(cases)
assert "compiled" not in cases["plain/two/fp32/sgd"], "the baseline is the eager reference"
for case_id in ("plain/two/fp32/sgd#compiled", "plain/two/bf16/sgd"):
    c = cases[case_id]
    assert c["status"] == "pass" and c["check"]["max_ratio"] <= 1, (case_id, c["status"], c["reason"])
    compiled = c["compiled"]
    assert compiled["graphs"] >= 1 and compiled["graph_break_count"] == len(compiled["graph_breaks"]), compiled
    assert compiled["compile_seconds"]["cold"] > 0 and compiled["compile_seconds"]["warm"] >= 0, compiled
    assert compiled["speedup_vs_eager"] > 0 and c["throughput"]["timing"] == "python_perf_counter", c["throughput"]
# The twin's envelope is fp32's: the baseline measured replicas at float32's unit roundoff.
assert cases["plain/two/fp32/sgd#compiled"]["check"]["envelope"] is not None
# Each case's own cache, emptied first: both cold compiles are cold.
assert doc["env"]["compile"]["cache_dir"] is None, doc["env"]["compile"]
assert not any(cases[i]["compiled"]["compile_seconds"]["cold_cache_reused"]
               for i in ("plain/two/fp32/sgd#compiled", "plain/two/bf16/sgd"))
print("compiled_run_test: the exported module conforms compiled")
PY
cache="$out/cache"
run wrong smoke '^plain/mlp/bf16/sgd$' --inject-compile-fault drop_autocast_cast --compile-cache "$cache"; rc=$?
[[ $rc -eq 1 ]] || fail "a compiled graph with autocast's cast removed was not caught (exit $rc, $out/wrong.log)"
grep -q "plain/mlp/bf16/sgd  *FAIL" "$out/wrong.log" || fail "the faulty bf16 case is not the failure ($out/wrong.log)"
grep -q "verdicts: 2 correct cases passed, 1 FAILED; 0 skipped" "$out/wrong.log" || fail "more than the faulty case failed"
"$python" - "$out/wrong/results.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["env"]["injected_compile_fault"] == "drop_autocast_cast", doc["env"]
cases = {c["id"]: c for c in doc["cases"]}
assert cases["plain/mlp/fp32/sgd#compiled"]["status"] == "pass", "the fault is autocast's: fp32 has no cast to drop"
bf16 = cases["plain/mlp/bf16/sgd"]
assert bf16["compiled"]["fault"] == "drop_autocast_cast" and bf16["status"] == "fail", bf16["reason"]
# The shared cache is named, and every cold compile on it says it was not cold.
assert doc["env"]["compile"]["cache_dir"].endswith("/cache"), doc["env"]["compile"]
assert all(c["compiled"]["compile_seconds"]["cold_cache_reused"] for c in doc["cases"] if "compiled" in c)
print(f"compiled_run_test: the wrong graph is caught at {bf16['check']['max_ratio']:.3g}x its bound "
      f"(with emulated casts: {bf16['compiled']['emulated_max_ratio']})")
PY
rc=0; "$bin" gate --baseline "$out/right/results.json" --current "$out/wrong/results.json" --allow-missing \
  > /dev/null 2> "$out/gate.err" || rc=$?
[[ $rc -eq 2 ]] && grep -q "inject-compile-fault" "$out/gate.err" || fail "the gate took the faulty run as a measurement"
"$bin" run --implementation bogus > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "an unknown implementation was not exit 2"
"$bin" run --compile-step --no-report --out "$out/x" > "$out/step.err" 2>&1; [[ $? -eq 2 ]] \
  || fail "--compile-step without --implementation compiled was not exit 2"
"$bin" run --compile-cache "$cache" --no-report --out "$out/x" > "$out/cache.err" 2>&1; [[ $? -eq 2 ]] \
  || fail "--compile-cache without --implementation compiled was not exit 2"
# A folder of the user's is never filled or reused as a cache: refused
# before any case runs.
mkdir -p "$out/mine-folder" && echo keep > "$out/mine-folder/notes.txt"
"$bin" run --device cpu --suite smoke --filter '^plain/mlp/bf16/sgd$' --implementation compiled \
  --compile-cache "$out/mine-folder" --no-report --out "$out/y" > "$out/foreign.err" 2>&1; rc=$?
[[ $rc -eq 2 ]] && grep -q "compile-cache .*mine-folder: not empty and not a cache" "$out/foreign.err" \
  || fail "a foreign non-empty --compile-cache folder was not refused with exit 2 ($out/foreign.err)"
[[ ! -e "$out/y/results.json" && "$(cat "$out/mine-folder/notes.txt")" == keep ]] \
  || fail "the refused --compile-cache run wrote results or touched the folder"
echo "compiled_run_test: ok"
