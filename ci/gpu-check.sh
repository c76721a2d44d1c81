#!/usr/bin/env bash
# shellcheck disable=SC2317  # the stage functions run in child shells (export -f)
# The one GPU acceptance command. On a GPU machine with nvcc, CMake, Ninja and
# a Python with torch (cu130), but no package manager and no internet, from a
# clean checkout plus .deps/ (ci/fetch-deps.sh fills it where apt works):
#   deps         .deps/ holds every header-only/test dependency (nlohmann/json, gloo, ...)
#   configure    a clean build-gpu/ (Release), CMake prefix = torch + .deps/
#   build        all cores
#   env          ampbench env --json (float32 math, NCCL version, ...)
#   autocast     ampbench autocast-ops --device cuda: C++ autocast casts every op of
#                harness/amp/autocast_ops.json as Python's torch.autocast does here
#   ctest        every test except the CPU end-to-end runs CI covers (all /cuda cases included)
#   qualify      ampbench qualify --device cuda (ceilings, conformance, throughput, report)
#   large        the large tier (GPT-style decoder, GEMM MLP, channels_last CNN) with the
#                ceilings qualify measured (MFU), then the same suite in Python eager and
#                the C++/Python throughput ratios
#   distributed  the distributed suite, DDP over NCCL, one rank per GPU: must exit 0
#   bench        the micro-benchmarks (Google Benchmark JSON)
#   archive      everything in one archive: $OUT/ampbench-gpu-check.tar.gz
# One summary line per stage ("gpu-check: STAGE ok|FAIL|skipped SECONDS s ..."),
# also in $OUT/gpu-check-summary.txt; exit 0 only when every stage passed.
# Budget: 7 minutes (AMPBENCH_GPU_CHECK_BUDGET_S=420); each stage gets at most
# what is left, so the archive is always written.
#
# Without a GPU (to test this script):
#   ci/gpu-check.sh --dry-run                         print every stage's command, run nothing
#   AMPBENCH_GPU_CHECK_DEVICE=cpu ci/gpu-check.sh     the same stages on CPU (Gloo, smoke suite)
#   AMPBENCH_GPU_CHECK_STAGES=deps,configure ...      only these stages (default: all)
#   AMPBENCH_GPU_BUILD_DIR=DIR                        build directory (default build-gpu/)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${AMPBENCH_GPU_PYTHON:-python3}"
DEVICE="${AMPBENCH_GPU_CHECK_DEVICE:-cuda}"
BUILD="${AMPBENCH_GPU_BUILD_DIR:-$ROOT/build-gpu}"
WORK="${AMPBENCH_GPU_WORK:-$ROOT/gpu-results}"
OUT="${OUT:-$WORK}"
JOBS="${AMPBENCH_JOBS:-$(nproc)}"
BUDGET="${AMPBENCH_GPU_CHECK_BUDGET_S:-420}"
STAGES="${AMPBENCH_GPU_CHECK_STAGES:-deps,configure,build,env,autocast,ctest,qualify,large,distributed,bench,archive}"
DRY=0
[[ "${1:-}" == "--dry-run" ]] && DRY=1
# The CPU end-to-end runs (smoke and scaler-stress suites, Python cross-checks,
# envelope configurations, A/B gate, killed
# and failing ranks): CI runs them; here they would spend the budget on CPU.
CTEST_EXCLUDE="${AMPBENCH_GPU_CHECK_CTEST_EXCLUDE:-^(cli\.smoke_suite_conforms|results\.smoke_output_matches_schema|reference\.crosscheck_smoke_mlp|ci\.gate_ab_flags_slowdown|results\.killed_run_keeps_finished_cases|cli\.distributed_rank_failure_fails_fast|cli\.distributed_suite_conforms|cli\.scaler_stress_suite_conforms|reference\.crosscheck_scaler_stress|reference\.crosscheck_conformance_transformer_adamw|check\.envelope_holds_across_configurations|cli\.autocast_ops_cpu_matches_python|cli\.autocast_ops_doctored_expected_fails)$}"

deps="$ROOT/.deps/root/usr"
start=$(date +%s)
deadline=$((start + BUDGET))
failed=0
rm -rf "$WORK" && mkdir -p "$WORK" "$OUT"
summary="$WORK/gpu-check-summary.txt"

line() { echo "gpu-check: $*" | tee -a "$summary" >&2; }
wanted() { [[ ",$STAGES," == *",$1,"* ]]; }

# stage NAME CAP_SECONDS DETAIL -- COMMAND...: runs COMMAND (output in
# $WORK/NAME.log) under min(CAP, budget left); prints the stage's line.
stage() {
  local name="$1" cap="$2" detail="$3"; shift 4
  if ! wanted "$name"; then line "$name skipped 0 s (not in AMPBENCH_GPU_CHECK_STAGES)"; return 0; fi
  if ((DRY)); then line "$name dry-run: $*"; return 0; fi
  local left=$((deadline - $(date +%s)))
  [[ "$name" == archive ]] && left=$cap  # outside the budget: the outputs are always packed
  if ((left <= 5)); then line "$name FAIL 0 s over the ${BUDGET} s budget, not run"; failed=1; return 1; fi
  ((cap > left)) && cap=$left
  local t0 rc
  t0=$(date +%s)
  # A child bash, so that timeout can run this script's (exported) functions.
  timeout --kill-after=10 "$cap" bash -c '"$@"' stage "$@" >"$WORK/$name.log" 2>&1
  rc=$?
  local took=$(($(date +%s) - t0))
  if ((rc == 0)); then
    line "$name ok $took s $detail"
  else
    ((rc == 124 || rc == 137)) && detail="timed out after $cap s; $detail"
    line "$name FAIL $took s exit $rc; $detail; last lines of $name.log:"
    tail -n 8 "$WORK/$name.log" | sed 's/^/    /' >&2
    failed=1
  fi
  return $rc
}

check_deps() {
  local missing=()
  for f in include/nlohmann/json.hpp include/gloo/algorithm.h include/CLI/CLI.hpp include/gtest/gtest.h \
           share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake; do
    [[ -e "$deps/$f" ]] || missing+=("$f")
  done
  ((${#missing[@]} == 0)) || { echo "missing from $deps: ${missing[*]} (run ci/fetch-deps.sh where apt works)"; return 1; }
  command -v cmake && command -v ninja || return 1
  if [[ "$DEVICE" == cuda ]]; then
    command -v nvcc || { echo "nvcc not on PATH"; return 1; }
    "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
      { echo "torch.cuda.is_available() is false for $PY"; return 1; }
    "$PY" -c 'import torch; p = torch.cuda.get_device_properties(0); print(torch.cuda.get_device_name(0), f"sm {p.major}.{p.minor}", "torch", torch.__version__)'
  fi
}

configure() {
  local torch_prefix arch_args=()
  torch_prefix="$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')" || return 1
  if [[ "$DEVICE" == cuda ]]; then
    arch_args=(-DTORCH_CUDA_ARCH_LIST="$("$PY" -c 'import torch; p = torch.cuda.get_device_properties(0); print(f"{p.major}.{p.minor}")')")
  fi
  rm -rf "$BUILD"
  # .deps/ first on every path, so its nlohmann/json and gloo win over the
  # machine's own (cmake/ampbench_json.cmake checks every translation unit).
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$deps;$torch_prefix;$deps/lib/x86_64-linux-gnu/cmake;$deps/share/cmake" \
    -Dnlohmann_json_DIR="$deps/share/cmake/nlohmann_json" \
    -DCMAKE_INCLUDE_PATH="$deps/include" -DPython3_EXECUTABLE="$(command -v "$PY")" "${arch_args[@]}" || return 1
  # The json and gloo headers the build will use are .deps/'s.
  grep -E "^(nlohmann_json_DIR|AMPBENCH_GLOO_INCLUDE)[:=]" "$BUILD/CMakeCache.txt"
  if ! grep -q "^nlohmann_json_DIR:[A-Z]*=$deps/share/cmake/nlohmann_json$" "$BUILD/CMakeCache.txt" ||
     ! grep -q "^AMPBENCH_GLOO_INCLUDE:[A-Z]*=$deps/include$" "$BUILD/CMakeCache.txt"; then
    echo "configure did not pick .deps/'s nlohmann/json and gloo headers"; return 1
  fi
}

write_env() {
  "$BUILD/ampbench" env --json >"$WORK/env.json" && cat "$WORK/env.json" || return 1
  # The NCCL version must read as one (the H200's first run said 859176.96.9).
  [[ "$DEVICE" != cuda ]] || "$PY" - "$WORK/env.json" <<'PY'
import json, re, sys
nccl = json.load(open(sys.argv[1]))["nccl"]
sys.exit(0 if re.fullmatch(r"[1-9]\.\d{1,2}\.\d{1,3}", nccl) else f"env.json: nccl {nccl!r} is not a version")
PY
}

# The CUDA autocast policy, C++ against Python's oracle (run with this
# script's Python); the table and verdicts land in autocast-ops/.
run_autocast_ops() {
  AMPBENCH_PYTHON="$(command -v "$PY")" "$BUILD/ampbench" autocast-ops --device "$DEVICE" --out "$WORK/autocast-ops"
}

# Qualification, then: every results file says its cases ran in IEEE float32
# (so the fp32 CNN baselines are IEEE, not cuDNN's default TF32).
run_qualify() {
  local status=0
  "$BUILD/ampbench" qualify --device "$DEVICE" --overwrite --out "$WORK/qualify" || status=$?
  "$PY" - "$WORK/qualify" <<'PY' || status=1
import json, pathlib, sys
files = sorted(pathlib.Path(sys.argv[1]).glob("*/results.json"))
if not files:
    sys.exit("no results.json under " + sys.argv[1])
for f in files:
    math = json.load(open(f))["env"].get("float32_math", {})
    conv = math.get("in_cases", {}).get("precision", {}).get("cuda.conv")
    print(f"{f}: float32 in cases IEEE: {math.get('in_cases_ieee')}, cuda.conv {conv}")
    if math.get("in_cases_ieee") is not True or conv != "ieee":
        sys.exit(f"{f}: the cases did not run in IEEE float32")
    if math.get("fp32_is_ieee") is False:  # a TF32 environment override (ampbench run warned)
        sys.exit(f"{f}: fp32 is not IEEE float32: {'; '.join(math.get('fp32_not_ieee_reasons', []))}")
PY
  return "$status"
}

# Off CUDA every large case is skipped with its reason (the suite is
# gpu_sized), which this stage shows; on CUDA Python eager runs it too.
run_large() {
  local ceilings=()
  [[ -f "$WORK/qualify/ceilings.json" ]] && ceilings=(--ceilings "$WORK/qualify/ceilings.json")
  "$BUILD/ampbench" run --device "$DEVICE" --suite large --no-report --overwrite --out "$WORK/large" "${ceilings[@]}" ||
    return $?
  [[ "$DEVICE" == cuda ]] || return 0
  # Python eager on the plain cases only: the stage must leave budget for the rest.
  (cd "$ROOT" && "$PY" -m reference.python.bench --suite large --device cuda --filter '^plain/' \
    --out "$WORK/large/python-eager.json" &&
    "$PY" -m reference.python.throughput_ratio "$WORK/large/results.json" "$WORK/large/python-eager.json")
}

run_distributed() {
  local nproc=2
  [[ "$DEVICE" == cuda ]] && nproc="$("$PY" -c 'import torch; print(torch.cuda.device_count())')"
  "$BUILD/ampbench" run --device "$DEVICE" --suite distributed --nproc "$nproc" --no-report --overwrite \
    --out "$WORK/distributed" || return $?
  # Every rank tore its process group down inside main() (no abort at exit).
  for ((r = 0; r < nproc; r++)); do
    sed -n '/^results: /,$p' "$WORK/distributed/rank$r.log" | grep -q "process group (.*) shut down" ||
      { echo "rank $r's log has no process-group shutdown line after its results"; return 1; }
  done
}

run_benches() {
  local status=0 bench
  for bench in harness/amp/amp_bench kernels/kernels_bench suites/micro/harness_overhead_bench; do
    [[ -x "$BUILD/$bench" ]] || { echo "missing $BUILD/$bench"; status=1; continue; }
    "$BUILD/$bench" --benchmark_min_time=0.2 --benchmark_out="$WORK/$(basename "$bench").json" \
      --benchmark_out_format=json || status=1
  done
  return "$status"
}

make_archive() {
  tar -czf "$OUT/ampbench-gpu-check.tar.gz" -C "$(dirname "$WORK")" "$(basename "$WORK")" &&
    { [[ "$OUT" -ef "$WORK" ]] || cp "$summary" "$OUT/gpu-check-summary.txt"; }
}

export ROOT PY DEVICE BUILD WORK OUT JOBS deps summary
export -f check_deps configure write_env run_autocast_ops run_qualify run_large run_distributed run_benches make_archive

line "start $(date -u +%FT%TZ) device $DEVICE, budget $BUDGET s, $JOBS jobs, outputs $WORK"
stage deps 30 "$deps" -- check_deps || { ((DRY)) || { stage archive 60 "" -- make_archive; exit 1; }; }
stage configure 90 "clean $BUILD, Release, prefix .deps + torch" -- configure
stage build 300 "$JOBS jobs" -- cmake --build "$BUILD" -j "$JOBS"
stage env 30 "$WORK/env.json" -- write_env
stage autocast 60 "autocast-ops/autocast-ops.json (every op x float16, bfloat16 agrees with torch.autocast)" -- run_autocast_ops
# At most 8 tests at once: they share one GPU.
stage ctest 180 "JUnit ctest-junit.xml" -- ctest --test-dir "$BUILD" -j "$((JOBS < 8 ? JOBS : 8))" -E "$CTEST_EXCLUDE" --timeout 170 \
  --output-on-failure --output-junit "$WORK/ctest-junit.xml"
stage qualify 240 "qualify/ (conformance, throughput, ceilings, report; cases in IEEE fp32)" -- run_qualify
stage large 150 "large/ (decoder, GEMM MLP, channels_last CNN: MFU, attention backend, C++/Python ratios)" -- run_large
stage distributed 120 "DDP over $([[ $DEVICE == cuda ]] && echo NCCL || echo Gloo), exit 0, explicit teardown" -- run_distributed
stage bench 90 "Google Benchmark JSON" -- run_benches
((failed)) && verdict=FAIL || verdict=ok
line "end $verdict after $(($(date +%s) - start)) s"
stage archive 60 "$OUT/ampbench-gpu-check.tar.gz" -- make_archive
exit $failed
