#!/usr/bin/env bash
# Configure and build into build/ against the venv's LibTorch. Quiet when
# nothing changed (AMPBENCH_QUIET=1).
#
#   ci/build.sh                 everything (tests, benchmarks; ci/fuzz.sh builds the fuzzers)
#   ci/build.sh ampbench        the CLI and what it links, nothing else
#   AMPBENCH_WITH_CUDA=ON|OFF   compile the CUDA code and kernels/ (default: as
#                               the build folder was configured; a new one
#                               turns it on where nvidia-smi finds a GPU)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AMPBENCH_HOME="${AMPBENCH_HOME:-$HOME/.cache/ampbench}"
PY="$AMPBENCH_HOME/venv/bin/python"
BUILD="${AMPBENCH_BUILD_DIR:-$ROOT/build}"
JOBS="${AMPBENCH_JOBS:-2}"
QUIET="${AMPBENCH_QUIET:-0}"

cuda_args=()
[[ -n "${AMPBENCH_WITH_CUDA:-}" ]] && cuda_args=(-DAMPBENCH_WITH_CUDA="$AMPBENCH_WITH_CUDA")

configure() {
  cmake "$@" >"$BUILD.configure.log" 2>&1 \
    || { cat "$BUILD.configure.log" >&2; echo "build: error: cmake configure failed" >&2; exit 1; }
}

if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  prefix="$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')" \
    || { echo "build: error: no torch in $PY; run ci/bootstrap.sh" >&2; exit 1; }
  configure -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DPython3_EXECUTABLE="$PY" "${cuda_args[@]}" ${AMPBENCH_CMAKE_ARGS:-}
elif ((${#cuda_args[@]})) && ! grep -qx "AMPBENCH_WITH_CUDA:BOOL=${AMPBENCH_WITH_CUDA}" "$BUILD/CMakeCache.txt"; then
  configure -B "$BUILD" "${cuda_args[@]}"
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
log="$(mktemp)"
if ! cmake --build "$BUILD" -j "$JOBS" "${targets[@]}" >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; echo "build: error: build failed" >&2; exit 1
fi
[[ "$QUIET" == 1 ]] || tail -n 1 "$log" >&2
rm -f "$log"
