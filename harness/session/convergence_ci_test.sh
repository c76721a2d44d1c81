#!/usr/bin/env bash
# Usage: convergence_ci_test.sh AMPBENCH PYTHON OUT
# The convergence CI subset (suites/convergence-ci.json) end to end: the run
# exits 0 only when every correct precision conforms and every expect: fail
# control is caught; on top, the results must hold each precision of the
# suite and each control, every control failing the rule (a criterion past
# its limit), and the margins are printed for docs/convergence.md.
set -u
bin="$1"; python="$2"; out="$3"
rm -rf "$out"; mkdir -p "$out"
start=$(date +%s)
"$bin" run --suite convergence-ci --device cpu --no-throughput --overwrite --out "$out/run" > "$out/run.log" 2>&1
rc=$?
cat "$out/run.log"
echo "convergence_ci_test: the run took $(( $(date +%s) - start )) s"
[[ $rc -eq 0 ]] || { echo "convergence_ci_test: error: the run exited $rc ($out/run.log)" >&2; exit 1; }
exec "$python" - "$out/run/results.json" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
cases = doc["cases"]
correct = [c for c in cases if c["expect"] == "pass" and c["precision"] != "fp32"]
controls = [c for c in cases if c["expect"] == "fail"]
assert {c["precision"] for c in correct} >= {"fp16", "bf16"}, "the subset lost a precision"
kinds = {"fp8_frozen_scales", "bf16_weights_no_master", "scaler_growth_off", "scale_never_recovers",
         "fp16_weights_no_master"}
assert {c["variant"] for c in controls} == kinds, f"the subset's controls: {sorted(c['variant'] for c in controls)}"
for c in correct:
    assert c["status"] == "pass" and not c["check"]["failures"], f"{c['id']}: {c['check']['failures']}"
    assert len(c["convergence"]["runs"]) >= 10, f"{c['id']}: {len(c['convergence']['runs'])} runs"
    assert not c["convergence"]["stopped_when_caught"], f"{c['id']}: a correct case stopped"
# The subset stops a control once caught (convergence.stop_caught_controls):
# every control here is caught by its misses, so each stopped before its
# last seed, right after the run that made the misses one too many.
for c in controls:
    runs = c["convergence"]["runs"]
    missed = [r["steps_to_target"] is None for r in runs]
    assert c["convergence"]["stopped_when_caught"] and len(runs) < 10, f"{c['id']}: {len(runs)} runs, not stopped"
    assert sum(missed) == 2 and missed[-1], f"{c['id']}: stopped at the wrong run ({missed})"
# Skipped steps are counted, not assumed taken: the injected overflow skips
# one step per seed, and nothing else in the subset overflows.
for c in cases:
    skipped = [r["skipped_steps"] for r in c["convergence"]["runs"]]
    want = 1 if c["variant"] == "scale_never_recovers" else 0
    assert all(n == want for n in skipped), f"{c['id']}: skipped steps per seed {skipped}, expected {want} each"
print(f"{'control':55} criterion: value / limit (margin = value/limit, p-value: alpha/p)")
for c in controls:
    assert c["status"] == "fail", f"{c['id']} was not caught"
    bounds = c["check"]["bounds"]
    past = {k: b for k, b in bounds.items() if b["max_ratio"] is None or b["max_ratio"] > 1}
    assert past, f"{c['id']}: failed with no criterion past its limit"
    for k, b in bounds.items():
        r = b["max_ratio"]
        print(f"{c['id']:55} {k}: {b['distance'][0]:.4g} / {b['bound'][0]:.4g} -> {'inf' if r is None else f'{r:.3g}x'}")
PY
