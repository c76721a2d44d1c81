#!/usr/bin/env bash
# Suite tier: 16 simulated machines on this host, one slowed and one with a
# flipped gradient bit; the fleet report must name exactly those two, each
# for its own fault, and accept the other 14.
#
#   ci/fleet/simulate-test.sh AMPBENCH PYTHON OUT
set -euo pipefail
AMPBENCH="$1" PYTHON="$2" OUT="$3"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$OUT" && mkdir -p "$OUT"
# This host is shared with other builds, whose bursts slow a healthy
# simulated machine by up to a third: the faulty one is slowed to a quarter
# (--inject-slowdown 3) and a flag needs half speed or less. Two machines at
# a time, one per core: CTest runs this test alone (RUN_SERIAL), so each run
# has a core of its own and every machine shares the host the same way; one
# at a time left a core idle for the whole test (22 s on a 2-core EPYC).
rc=0
MACHINES=16 SLOW=3 BITFLIP=9 SLOWDOWN=3 JOBS=2 FLEET_ARGS="--min-effect 0.5" \
  "$HERE/simulate.sh" "$AMPBENCH" "$PYTHON" "$OUT" \
  || rc=$?
[[ "$rc" == 1 ]] || { echo "FAIL: the fleet report exited $rc, expected 1 (machines to name)" >&2; exit 1; }
"$PYTHON" - "$OUT/report" <<'PY'
import json, sys, xml.etree.ElementTree as ET
from pathlib import Path
out = Path(sys.argv[1])
report = json.loads((out / "fleet.json").read_text())
named = {m["id"]: m for m in report["machines"] if m["verdict"] != "accept"}
problems = []
if set(named) != {"sim-03", "sim-09"}:
    problems.append(f"named {sorted(named)}, expected sim-03 (slowed) and sim-09 (bit flip)")
slow, flipped = named.get("sim-03"), named.get("sim-09")
if slow and (slow["verdict"] != "investigate" or not slow["reasons"][0].startswith("investigate: throughput outlier")):
    problems.append(f"sim-03: {slow['verdict']}: {slow['reasons']}")
if flipped and (flipped["verdict"] != "reject" or "silent data corruption" not in flipped["reasons"][0]):
    problems.append(f"sim-09: {flipped['verdict']}: {flipped['reasons']}")
# The report says it was a rehearsal, and which machines had a fault switch.
if not report["rehearsal"]["declared"] or sorted(report["rehearsal"]["faults"]) != ["sim-03", "sim-09"]:
    problems.append(f"rehearsal: {report['rehearsal']}, expected sim-03 and sim-09 named")
if len(report["machines"]) != 16 or len(report["groups"]) != 1:
    problems.append(f"{len(report['machines'])} machines in {len(report['groups'])} groups, expected 16 in 1")
# Every healthy machine agreed with every other: the runs are deterministic.
for case, a in report["groups"][0]["cases"].items():
    if a["agree"] != 15:
        problems.append(f"{case}: {a['agree']} machines agree, expected 15 (all but sim-09)")
tests = ET.parse(out / "fleet-junit.xml").getroot().findall(".//testcase")
failed = sorted(t.get("name") for t in tests if t.find("failure") is not None)
if len(tests) != 16 or failed != ["sim-03", "sim-09"]:
    problems.append(f"junit: {len(tests)} tests, failures {failed}")
for p in problems:
    print("FAIL:", p)
print("fleet: named", {k: v["verdict"] for k, v in named.items()})
sys.exit(1 if problems else 0)
PY
