#!/usr/bin/env bash
# Configure and build into build/ against the venv's LibTorch. Quiet when
# nothing changed (AMPBENCH_QUIET=1).
#
#   ci/build.sh                 everything (tests, benchmarks, the fuzz targets under clang)
#   ci/build.sh ampbench        the CLI and what it links, nothing else
#   AMPBENCH_WITH_CUDA=ON|OFF   compile the CUDA code and kernels/ (default: as
#                               the build folder was configured; a new one
#                               turns it on where nvidia-smi finds a GPU)
#   AMPBENCH_TORCH=VERSION      build against that torch's venv, into its own
#                               folder (ci/torch-env.sh)
# Exit 2, building nothing: an unsupported torch, a venv not (fully)
# provisioned, or a venv and a build folder of different torch versions.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=ci/torch-env.sh
source "$ROOT/ci/torch-env.sh"  # TORCH_VERSION, VENV, BUILD
PY="$VENV/bin/python"
JOBS="${AMPBENCH_JOBS:-2}"
QUIET="${AMPBENCH_QUIET:-0}"

cuda_args=()
[[ -n "${AMPBENCH_WITH_CUDA:-}" ]] && cuda_args=(-DAMPBENCH_WITH_CUDA="$AMPBENCH_WITH_CUDA")

configure() {
  cmake "$@" >"$BUILD.configure.log" 2>&1 \
    || { cat "$BUILD.configure.log" >&2; echo "build: error: cmake configure failed" >&2; exit 1; }
}

# One torch per build folder: headers of one version and libraries of
# another would compile and then fail (or worse, run) in odd ways.
[[ -f "$VENV/.ampbench-requirements" ]] \
  || torch_refuse "$VENV is not provisioned (or only half): run ci/bootstrap.sh${AMPBENCH_TORCH:+ with AMPBENCH_TORCH=$AMPBENCH_TORCH}"
venv_torch="$(venv_torch_version "$VENV")"
[[ "$venv_torch" == "$TORCH_VERSION" ]] \
  || torch_refuse "$VENV holds torch ${venv_torch:-(none)}, not $TORCH_VERSION: something else was installed into it; delete $VENV and run ci/bootstrap.sh"
if [[ -f "$BUILD/CMakeCache.txt" ]]; then
  # A folder configured before versions were recorded has none: the
  # configure step below records it.
  built_torch="$(sed -n 's/^AMPBENCH_TORCH_VERSION:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
  [[ -z "$built_torch" || "$built_torch" == "$TORCH_VERSION" ]] \
    || torch_refuse "$BUILD was configured against torch $built_torch, not $TORCH_VERSION: delete $BUILD to rebuild it against $TORCH_VERSION (torch $built_torch builds in its own folder with AMPBENCH_TORCH=$built_torch)"
fi

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
