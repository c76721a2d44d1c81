#!/usr/bin/env bash
# One-command check of a GPU machine that has nvcc, CMake, Ninja and a Python
# with torch (cu130) but no package manager and no internet. Header-only and
# test dependencies come from .deps/ (ci/fetch-deps.sh fills it where apt
# works). Builds against the machine's torch, then writes under $OUT
# (default gpu-results/): env.json, the CUDA tests (JUnit), the conformance
# and throughput suites' results and reports' inputs, micro-benchmark JSON.
# Budget: well inside 8 minutes on one H200 + 16 cores.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$ROOT/gpu-results}"
PY="${AMPBENCH_GPU_PYTHON:-python3}"
BUILD="$ROOT/build-gpu"
JOBS="${AMPBENCH_JOBS:-$(nproc)}"
mkdir -p "$OUT"
log() { echo "gpu-check: $*" | tee -a "$OUT/gpu-check.log" >&2; }
start=$(date +%s)

# Fail fast: no device, no half-run.
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  log "error: no CUDA device (torch.cuda.is_available() is false for $PY); nothing was run"
  exit 1
fi
command -v nvcc >/dev/null || { log "error: nvcc not on PATH"; exit 1; }
[[ -d "$ROOT/.deps/root" ]] || { log "error: $ROOT/.deps missing; run ci/fetch-deps.sh on a machine with apt and carry .deps/"; exit 1; }

deps="$ROOT/.deps/root/usr"
torch_prefix="$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')"
arch="$("$PY" -c 'import torch; p=torch.cuda.get_device_properties(0); print(f"{p.major}.{p.minor}")')"
log "device $("$PY" -c 'import torch; print(torch.cuda.get_device_name(0))') (sm ${arch}), torch $("$PY" -c 'import torch; print(torch.__version__)')"

if ! cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$deps;$deps/lib/x86_64-linux-gnu/cmake;$deps/share/cmake" \
    -DCMAKE_INCLUDE_PATH="$deps/include" -DTORCH_CUDA_ARCH_LIST="$arch" \
    >"$OUT/configure.log" 2>&1; then
  log "error: configure failed (see $OUT/configure.log)"; tail -20 "$OUT/configure.log" >&2; exit 1
fi
if ! cmake --build "$BUILD" -j "$JOBS" >"$OUT/build.log" 2>&1; then
  log "error: build failed (see $OUT/build.log)"; grep -m5 -A5 "error" "$OUT/build.log" >&2; exit 1
fi
log "built in $(( $(date +%s) - start )) s"

status=0
"$BUILD/ampbench" env --json >"$OUT/env.json" || status=1
# Unit and CUDA tests (the CPU smoke suite is left to CI).
ctest --test-dir "$BUILD" -j 8 -E 'cli.smoke_suite|results.smoke_output' --timeout 300 --output-junit "$OUT/ctest-junit.xml" \
  >"$OUT/ctest.log" 2>&1 || { status=1; log "ctest failed (see ctest.log)"; }
tail -3 "$OUT/ctest.log" >&2
# Qualification: ceilings, conformance + throughput with utilisation, report.
"$BUILD/ampbench" qualify --device cuda --overwrite --out "$OUT/qualify" >"$OUT/qualify.log" 2>&1 \
  || { status=1; log "qualify: not qualified (see qualify.log)"; }
tail -6 "$OUT/qualify.log" >&2
# DataParallel (2 replicas round-robin over the GPUs) and DDP over NCCL, one
# rank per GPU.
gpus="$("$PY" -c 'import torch; print(torch.cuda.device_count())')"
"$BUILD/ampbench" run --device cuda --suite distributed --nproc "$gpus" --overwrite --out "$OUT/distributed" --no-report \
  >"$OUT/distributed.log" 2>&1 || { status=1; log "suite distributed: not conforming (see distributed.log)"; }
tail -3 "$OUT/distributed.log" >&2
for bench in harness/amp/amp_bench kernels/kernels_bench; do
  [[ -x "$BUILD/$bench" ]] && "$BUILD/$bench" --benchmark_min_time=0.2 --benchmark_out="$OUT/$(basename "$bench").json" \
    --benchmark_out_format=json >"$OUT/$(basename "$bench").log" 2>&1
done
log "done in $(( $(date +%s) - start )) s, status $status; results in $OUT"
exit $status
