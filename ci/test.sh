#!/usr/bin/env bash
# Provision, build, and run every test through CTest: the GoogleTest suites,
# the end-to-end runs and cross-checks, the Python tests one folder at a time,
# and a 10 s fuzz run of each parser under ASan and UBSan (the long run is
# `ci/fuzz.sh 200` by hand, docs/bad-input.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Always the default pin: another release is built and run by ci/torch-matrix.sh.
unset AMPBENCH_TORCH AMPBENCH_BUILD_DIR
cd "$ROOT"

"$ROOT/ci/bootstrap.sh"
# Everything, the CUDA kernels included: they must compile and link here.
AMPBENCH_WITH_CUDA=ON "$ROOT/ci/build.sh"

# The fuzz run is part of the suite: a build without the fuzz targets (not
# clang) would pass without it.
fuzz_tests="$(ctest --test-dir "$ROOT/build" -N -R '^fuzz\.' | grep -cE '^ *Test +#[0-9]+: fuzz\.' || true)"
[[ "$fuzz_tests" == 3 ]] || { echo "test: error: the build has no fuzz targets (its compiler is not clang, or that clang links no libFuzzer; ci/bootstrap.sh installs clang)" >&2; exit 1; }

echo "== ctest" >&2
ctest --test-dir "$ROOT/build" --output-on-failure -j 2 --timeout 600
