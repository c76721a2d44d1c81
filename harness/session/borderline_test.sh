#!/usr/bin/env bash
# Usage: borderline_test.sh AMPBENCH PYTHON OUT
# The fresh-seed rule end to end (harness/check/confirmation.h), on a suite
# whose bounds are too tight on purpose: every case just beyond its bound
# (at most 3x) is re-run from the fresh seeds, one at a time until one
# passes; a case further beyond is decided at once; --confirm-seeds 0 turns
# the rule off and leaves the suite seed's distances as they were. On the CPU,
# where the suite's bounds were measured to be just too tight.
set -u
bin="$1"; python="$2"; out="$3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
suite="$ROOT/harness/session/testdata/borderline-suite.json"
rm -rf "$out"; mkdir -p "$out"
fail() { echo "borderline_test: error: $1" >&2; exit 1; }
run() { "$bin" run --device cpu --suite "$suite" --no-throughput --no-report --out "$out/$1" "${@:2}" > "$out/$1.log" 2>&1; }
run rule; [[ $? -le 1 ]] || fail "the run with the rule did not complete ($out/rule.log)"
run off --confirm-seeds 0; [[ $? -le 1 ]] || fail "the run without the rule did not complete ($out/off.log)"
grep -q "borderline case.* re-run from fresh seeds" "$out/rule.log" || fail "the verdicts line does not count the re-runs"
"$python" - "$out/rule/results.json" "$out/off/results.json" <<'PY' || exit 1
import json, sys
rule, off = (json.load(open(p)) for p in sys.argv[1:])
assert rule["verdict_rule"]["confirmation_seeds"] == 2 and off["verdict_rule"]["confirmation_seeds"] == 0
before = {c["id"]: c for c in off["cases"] if c["check"]}
borderline = 0
for c in rule["cases"]:
    check = c["check"]
    if not check:
        continue
    ratio, runs = check["max_ratio"], check["confirmations"]
    assert before[c["id"]]["check"]["max_ratio"] == ratio, f"{c['id']}: the rule changed the suite seed's distance"
    assert not before[c["id"]]["check"]["confirmations"], f"{c['id']}: re-run with --confirm-seeds 0"
    if not 1 < ratio <= 3:
        assert not runs, f"{c['id']}: at {ratio:.3g}x its bound it is not borderline, yet it was re-run"
        continue
    borderline += 1
    assert [r["seed"] for r in runs] == [7920, 15839][:len(runs)], f"{c['id']}: seeds {runs}"
    assert all(not r["passed"] for r in runs[:-1]), f"{c['id']}: re-run after a fresh seed passed"
    if c["status"] == "pass":
        assert runs[-1]["passed"] and check["overruled_failures"] and not check["failures"], c["id"]
        assert c["reason"].startswith("passed on fresh seeds"), c["reason"]
    else:
        assert len(runs) == 2 and not runs[-1]["passed"] and check["failures"], f"{c['id']}: {runs}"
assert borderline >= 2, f"only {borderline} borderline case(s): the suite no longer exercises the rule"
print(f"borderline_test: ok ({borderline} borderline cases)")
PY
