#!/usr/bin/env bash
# shellcheck disable=SC2317  # the stage functions run in child shells (export -f)
# The one GPU acceptance command. On a GPU machine with nvcc, CMake, Ninja and
# a Python with torch (cu130), but no package manager and no internet, from a
# clean checkout plus .deps/ (ci/fetch-deps.sh fills it where apt works):
#   deps         .deps/ holds every header-only/test dependency (nlohmann/json, gloo, ...)
#   configure    a clean build-gpu/ (Release), CMake prefix = torch + .deps/
#   build        all cores
#   env          ampbench env --json (float32 math, NCCL version, ...)
#   autocast     ampbench autocast-ops --device cuda: C++ autocast casts every entry of
#                PyTorch's own CUDA autocast test lists (read from the installed torch)
#                and of harness/amp/autocast_ops.json as Python's torch.autocast does here
#   fp8          the FP8 Linear on the GPU's scaled matmul (tensorwise, rowwise, delayed)
#                against torchao's Float8Linear and the delayed-scaling reference, and
#                each FP8 mistake far from the correct recipe (docs/fp8.md); then smoke's
#                FP8 cases on the GPU held to fp32 and replayed by the oracle (with
#                torchao); compute capability 8.9 or later, else reported and skipped
#   distributed  the distributed suite, DDP over NCCL, one rank per GPU: must exit 0
#   ctest        every test except the CPU end-to-end runs CI covers (all /cuda cases included)
#   qualify      ampbench qualify --device cuda --suites conformance (ceilings, the
#                conformance suite, report); AMPBENCH_GPU_CHECK_QUALIFY_SUITES=conformance,throughput
#                for the whole qualification (about 2.5 minutes more on an H200)
#   large        the large tier with the ceilings qualify measured (MFU): the GPT-style
#                decoder first, its plain cases in Python eager and the C++/Python
#                throughput ratios, then the GEMM MLP and channels_last CNN
#   architectures  ResNet-50, ViT-B/16, BERT-base and GPT-2 small at their published
#                sizes (suites/architectures.json) in fp32, tf32, fp16, O2 and bf16
#   compare      the throughput suite's fused cases (+graph among them) in C++ and in
#                Python eager, and the C++/Python ratios (a +graph case against
#                Python's uncaptured one)
#   targets      the speed targets (decoder MFU, fp16/bf16 over fp32, C++/Python) read
#                from those results: targets.txt, each met, missed or not measured
#   bench        the micro-benchmarks (Google Benchmark JSON)
#   archive      everything in one archive: $OUT/ampbench-gpu-check.tar.gz
# One summary line per stage ("gpu-check: STAGE ok|FAIL|skipped SECONDS s ..."),
# also in $OUT/gpu-check-summary.txt; exit 0 only when every stage passed.
# Budget: 8 minutes (AMPBENCH_GPU_CHECK_BUDGET_S=480), the archive included.
# PLAN below gives each stage a cap and a floor: a stage runs under min(its
# cap, the budget left less the floors of the stages after it), so a slow
# stage is cut short rather than starving the ones after it, and the archive
# is always written. A cut suite run keeps the cases it finished.
#
# Without a GPU (to test this script):
#   ci/gpu-check.sh --dry-run                         print every stage's command, run nothing
#   AMPBENCH_GPU_CHECK_DEVICE=cpu ci/gpu-check.sh     the same stages on CPU (Gloo, smoke suite)
#   AMPBENCH_GPU_CHECK_STAGES=deps,configure ...      only these stages (default: all)
#   AMPBENCH_GPU_BUILD_DIR=DIR                        build directory (default build-gpu/)
#   AMPBENCH_GPU_CHECK_PLAN="name:cap:floor ..."      other caps and floors (ci/tests/test_gpu_check.py)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${AMPBENCH_GPU_PYTHON:-python3}"
DEVICE="${AMPBENCH_GPU_CHECK_DEVICE:-cuda}"
BUILD="${AMPBENCH_GPU_BUILD_DIR:-$ROOT/build-gpu}"
# The carried pure-Python wheels (ci/fetch-deps.sh: expecttest, for PyTorch's
# autocast test lists), importable from the .whl files as they are.
for whl in "$ROOT"/.deps/wheels/*.whl; do
  [[ -f "$whl" ]] && export PYTHONPATH="$whl${PYTHONPATH:+:$PYTHONPATH}"
done
WORK="${AMPBENCH_GPU_WORK:-$ROOT/gpu-results}"
OUT="${OUT:-$WORK}"
JOBS="${AMPBENCH_JOBS:-$(nproc)}"
BUDGET="${AMPBENCH_GPU_CHECK_BUDGET_S:-480}"
QUALIFY_SUITES="${AMPBENCH_GPU_CHECK_QUALIFY_SUITES-$([[ $DEVICE == cuda ]] && echo conformance)}"
STAGES="${AMPBENCH_GPU_CHECK_STAGES:-deps,configure,build,env,distributed,ctest,autocast,fp8,qualify,large,architectures,compare,targets,bench,archive}"
DRY=0
[[ "${1:-}" == "--dry-run" ]] && DRY=1
# The CPU end-to-end runs (smoke and scaler-stress suites, Python cross-checks,
# envelope configurations, A/B gate, killed
# and failing ranks): CI runs them; here they would spend the budget on CPU.
CTEST_EXCLUDE="${AMPBENCH_GPU_CHECK_CTEST_EXCLUDE:-^(cli\.smoke_suite_conforms|results\.smoke_output_matches_schema|reference\.crosscheck_smoke_.*|ci\.gate_ab_flags_slowdown|results\.killed_run_keeps_finished_cases|cli\.distributed_rank_failure_fails_fast|cli\.distributed_suite_conforms|reference\.crosscheck_scaler_stress|reference\.crosscheck_conformance_transformer_adamw|models\.equivalence_.*|check\.envelope_holds_.*|cli\.autocast_ops_cpu_matches_python|cli\.autocast_ops_doctored_expected_fails|reports\.smoke_report_in_a_browser|cli\.nproc2_ranks_stay_in_step_after_a_disagreement)$}"

deps="$ROOT/.deps/root/usr"
start=$(date +%s)
deadline=$((start + BUDGET))
failed=0
rm -rf "$WORK" && mkdir -p "$WORK" "$OUT"
summary="$WORK/gpu-check-summary.txt"

line() { echo "gpu-check: $*" | tee -a "$summary" >&2; }
wanted() { [[ ",$STAGES," == *",$1,"* ]]; }

# name:cap:floor in seconds, in the order the stages run. The floors add up
# to at most the budget (checked at start). Sized from the H200 run of
# 2026-12-04 (16 cores, torch 2.11.0+cu130): build 108-124 s, distributed 11 s,
# autocast 19 s, fp8 56 s, conformance about 0.55 s a case (365 cases). The
# correctness stages get floors that let them finish; the speed stages after
# qualify take what is left. Each stage's line reports its real time.
PLAN="${AMPBENCH_GPU_CHECK_PLAN:-deps:20:5 configure:40:15 build:240:130 env:20:3 distributed:40:15 ctest:90:50
      autocast:45:25 fp8:120:60 qualify:220:80 large:90:20 architectures:60:15 compare:80:20 targets:20:2 bench:30:8
      archive:30:5}"

# The floors of the wanted stages after NAME (all of them for "").
floors_after() {
  local seen=0 sum=0 entry n
  [[ -z "$1" ]] && seen=1
  for entry in $PLAN; do
    n="${entry%%:*}"
    ((seen)) && wanted "$n" && sum=$((sum + ${entry##*:}))
    [[ "$n" == "$1" ]] && seen=1
  done
  echo "$sum"
}

# plan_field NAME 1|2: the stage's cap (1) or floor (2); 0 when not planned.
plan_field() {
  local entry fields
  for entry in $PLAN; do
    IFS=: read -ra fields <<<"$entry"
    [[ "${fields[0]}" == "$1" ]] && { echo "${fields[$2]}"; return; }
  done
  echo 0
}

# Every later stage needs these, so they reserve nothing for the others.
PREREQUISITES=" deps configure build "

# stage NAME DETAIL -- COMMAND...: runs COMMAND (output in $WORK/NAME.log)
# under min(its cap, budget left - later floors), exported as STAGE_CAP for
# stages that split their time; prints the stage's line.
stage() {
  local name="$1" detail="$2"; shift 3
  local cap left
  cap=$(plan_field "$name" 1)
  left=$((deadline - $(date +%s)))
  [[ "$PREREQUISITES" == *" $name "* ]] || left=$((left - $(floors_after "$name")))
  # The outputs are always packed, in the archive's floor if nothing is left.
  [[ "$name" == archive ]] && ((left < $(plan_field archive 2))) && left=$(plan_field archive 2)
  if ! wanted "$name"; then line "$name skipped 0 s (not in AMPBENCH_GPU_CHECK_STAGES)"; return 0; fi
  if ((DRY)); then line "$name dry-run: cap $cap s, floor $(plan_field "$name" 2) s: $*"; return 0; fi
  ((cap > left)) && cap=$left
  if ((cap <= 5)); then line "$name FAIL 0 s over the ${BUDGET} s budget, not run"; failed=1; return 1; fi
  local t0 rc
  t0=$(date +%s)
  # A child bash, so that timeout can run this script's (exported) functions.
  STAGE_CAP=$cap timeout --kill-after=10 "$cap" bash -c '"$@"' stage "$@" >"$WORK/$name.log" 2>&1
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
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMPBENCH_WITH_CUDA=ON \
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

# The FP8 Linear's cross-check and faults on the GPU (the CPU ones run in CI as
# fp8.linear_vs_torchao); the torchao comparisons skip where torchao is absent.
run_fp8() {
  [[ "$DEVICE" == cuda ]] || { echo "on CPU the FP8 checks are the CTest fp8.linear_vs_torchao"; return 0; }
  local cc
  cc="$("$PY" -c 'import torch; print("%d%d" % torch.cuda.get_device_capability())')" || return 1
  ((cc >= 89)) || { echo "compute capability $cc has no FP8 GEMM: nothing to check"; return 0; }
  local status=0
  (cd "$ROOT" && AMPBENCH_FP8_PROBE="$BUILD/harness/ampbench_fp8_probe" AMPBENCH_FP8_DEVICE=cuda \
    "$PY" -m pytest -q -p no:cacheprovider -rs --junitxml "$WORK/fp8-junit.xml" \
    reference/python/tests/test_fp8_linear_vs_torchao.py reference/python/tests/test_fp8_faults.py) || status=1
  # smoke's FP8 cases on the GPU's FP8 GEMMs, held to fp32, then replayed by
  # the oracle (torchao's Float8Linear on the same device) where torchao is.
  "$BUILD/ampbench" run --suite smoke --device cuda --filter 'precision=fp8_tensorwise|fp8_rowwise|fp8_delayed|mxfp8' \
    --no-report --overwrite --out "$WORK/fp8-cases" --dump "$WORK/fp8-dump" || status=1
  if "$PY" -c 'import torchao' 2>/dev/null; then
    (cd "$ROOT" && "$PY" -m reference.python.check "$WORK/fp8-dump") || status=1
  else
    echo "no torchao in this Python: the FP8 cases' replay is the CPU cross-check's (CI)"
  fi
  return "$status"
}

# Qualification, then: every results file says its cases ran in IEEE float32
# (so the fp32 CNN baselines are IEEE, not cuDNN's default TF32).
run_qualify() {
  local status=0 suites=()
  [[ -n "$QUALIFY_SUITES" ]] && suites=(--suites "$QUALIFY_SUITES")
  "$BUILD/ampbench" qualify --device "$DEVICE" --overwrite --out "$WORK/qualify" "${suites[@]}" || status=$?
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

# Sets the caller's `ceilings` to --ceilings with what qualify measured,
# when it did (MFU per case).
set_ceilings() {
  ceilings=()
  if [[ -f "$WORK/qualify/ceilings.json" ]]; then ceilings=(--ceilings "$WORK/qualify/ceilings.json"); fi
}

# The decoder cases first (large/): the MFU, fp16/bf16-over-fp32 and
# C++/Python targets are theirs; Python eager times the plain ones; then the
# GEMM MLP and channels_last CNN (large-mlp-cnn/) in the time left. Off CUDA
# every large case is skipped with its reason (the suite is gpu_sized).
run_large() {
  local ceilings=() t0=$SECONDS status=0
  set_ceilings
  large_run() {  # large_run SECONDS FILTER DIR
    timeout "$1" "$BUILD/ampbench" run --device "$DEVICE" --suite large --filter "$2" --no-report --overwrite \
      --out "$3" "${ceilings[@]}"
  }
  large_run "$((STAGE_CAP / 2))" '/decoder/' "$WORK/large" || status=$?
  if [[ "$DEVICE" == cuda ]]; then
    python_against "$((STAGE_CAP * 3 / 4 - (SECONDS - t0)))" large '^plain/decoder/' "$WORK/large" || status=1
  fi
  large_run "$((STAGE_CAP - (SECONDS - t0) - 5))" '/(mlp|cnn)/' "$WORK/large-mlp-cnn" || status=$?
  return "$status"
}

# The real architectures at their published sizes, with qualify's ceilings
# (MFU). The oracle's torchvision and transformers are not on the GPU machine:
# the equivalence tests and cross-checks that use them run in CI on CPU.
run_architectures() {
  local ceilings=()
  set_ceilings
  timeout "$STAGE_CAP" "$BUILD/ampbench" run --device "$DEVICE" --suite architectures --no-report --overwrite \
    --out "$WORK/architectures" "${ceilings[@]}"
}

# python_against SECONDS SUITE FILTER DIR: Python eager on SUITE's cases
# matching FILTER for at most SECONDS (the bench writes each case as it
# finishes), then the C++/Python ratios against DIR/results.json.
python_against() {
  local seconds="$1" suite="$2" filter="$3" dir="$4" status=0
  ((seconds > 10)) || { echo "no time left for Python eager on $suite"; return 1; }
  (cd "$ROOT" && timeout "$seconds" "$PY" -m reference.python.bench --suite "$suite" --device cuda \
    --filter "$filter" --out "$dir/python-eager.json") || status=$?
  (cd "$ROOT" && "$PY" -m reference.python.throughput_ratio "$dir/results.json" "$dir/python-eager.json" \
    >"$dir/cpp-vs-python.txt") || status=1
  cat "$dir/cpp-vs-python.txt"
  return "$status"
}

# The throughput suite's fused and +graph cases in C++ (with qualify's
# ceilings), then Python eager's fused AdamW on the same cases in the time
# left: at least half of the stage.
run_compare() {
  [[ "$DEVICE" == cuda ]] || { echo "Python eager runs on CUDA only here (CPU: reference.python.side_by_side)"; return 0; }
  local ceilings=() t0=$SECONDS status=0
  set_ceilings
  timeout "$((STAGE_CAP / 2))" "$BUILD/ampbench" run --device cuda --suite throughput --filter '\+fused' --no-report \
    --overwrite --out "$WORK/throughput" "${ceilings[@]}" || status=$?
  python_against "$((STAGE_CAP - (SECONDS - t0) - 5))" throughput '\+fused$' "$WORK/throughput" || status=1
  return "$status"
}

# Reported, not judged: a missed target leaves the stage ok.
run_targets() {
  local args=(--large "$WORK/large/results.json" --out "$WORK/targets.json")
  [[ -f "$WORK/large/python-eager.json" ]] && args+=(--large-python "$WORK/large/python-eager.json")
  [[ -f "$WORK/throughput/python-eager.json" ]] &&
    args+=(--throughput "$WORK/throughput/results.json" --throughput-python "$WORK/throughput/python-eager.json")
  (cd "$ROOT" && "$PY" -m reference.python.speed_targets "${args[@]}") >"$WORK/targets.txt" || return $?
  cat "$WORK/targets.txt"
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
    "$BUILD/$bench" --benchmark_min_time=0.1 --benchmark_out="$WORK/$(basename "$bench").json" \
      --benchmark_out_format=json || status=1
  done
  return "$status"
}

# Packed beside $WORK, then moved: $OUT may be $WORK itself, and an archive
# growing inside the folder it packs (or this stage's own log) makes tar
# fail with "file changed as we read it".
make_archive() {
  local name work tmp
  name="$(basename "$WORK")"
  work="$(dirname "$WORK")"
  tmp="$work/.$name-$$.tar.gz"
  tar -czf "$tmp" -C "$work" --exclude="$name/archive.log" --exclude="$name/ampbench-gpu-check.tar.gz" "$name" &&
    mv "$tmp" "$OUT/ampbench-gpu-check.tar.gz" &&
    { [[ "$OUT" -ef "$WORK" ]] || cp "$summary" "$OUT/gpu-check-summary.txt"; }
}

export ROOT PY DEVICE BUILD WORK OUT JOBS deps summary QUALIFY_SUITES
export -f check_deps configure write_env run_autocast_ops run_fp8 run_qualify set_ceilings run_large run_architectures python_against run_compare run_targets run_distributed run_benches make_archive

floors=$(floors_after "")
if ((floors > BUDGET)); then
  echo "gpu-check: the wanted stages' floors add up to $floors s, over the ${BUDGET} s budget (PLAN in $0)" >&2
  exit 2
fi
line "start $(date -u +%FT%TZ) device $DEVICE, budget $BUDGET s, $JOBS jobs, outputs $WORK"
stage deps "$deps" -- check_deps || { ((DRY)) || { stage archive "" -- make_archive; exit 1; }; }
stage configure "clean $BUILD, Release, prefix .deps + torch" -- configure
stage build "$JOBS jobs" -- cmake --build "$BUILD" -j "$JOBS"
stage env "$WORK/env.json" -- write_env
stage distributed "DDP over $([[ $DEVICE == cuda ]] && echo NCCL || echo Gloo), exit 0, explicit teardown" -- run_distributed
# At most 8 tests at once: they share one GPU.
# The suite tier (every CPU end-to-end run, labelled so) is CI's, whatever its name.
stage ctest "JUnit ctest-junit.xml" -- ctest --test-dir "$BUILD" -j "$((JOBS < 8 ? JOBS : 8))" -E "$CTEST_EXCLUDE" -LE '^suite$' \
  --timeout 110 --output-on-failure --output-junit "$WORK/ctest-junit.xml"
stage autocast "autocast-ops/autocast-ops.json (every op x float16, bfloat16 agrees with torch.autocast)" -- run_autocast_ops
stage fp8 "fp8-junit.xml (FP8 Linear vs torchao and the delayed reference, FP8 faults, on the GPU)" -- run_fp8
stage qualify "qualify/ (ceilings, ${QUALIFY_SUITES:-the default suites}, report; cases in IEEE fp32)" -- run_qualify
stage large "large/ (decoder, GEMM MLP, channels_last CNN: MFU, attention backend, C++/Python ratios)" -- run_large
stage architectures "architectures/ (ResNet-50, ViT-B/16, BERT-base, GPT-2 small: verdicts, samples/s, MFU)" -- run_architectures
stage compare "throughput/cpp-vs-python.txt (fused and +graph cases against Python eager)" -- run_compare
stage targets "targets.txt (decoder MFU, fp16/bf16 over fp32, C++/Python: met, missed, not measured)" -- run_targets
stage bench "Google Benchmark JSON" -- run_benches
((failed)) && verdict=FAIL || verdict=ok
line "end $verdict after $(($(date +%s) - start)) s"
stage archive "$OUT/ampbench-gpu-check.tar.gz" -- make_archive
exit $failed
