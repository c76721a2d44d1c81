#!/usr/bin/env bash
# Provision, build, and run every test: GoogleTest cases through CTest, then
# the Python tests (reports, reference) through pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AMPBENCH_HOME="${AMPBENCH_HOME:-$HOME/.cache/ampbench}"
# Always the default pin: another release is built and run by ci/torch-matrix.sh.
unset AMPBENCH_TORCH AMPBENCH_BUILD_DIR
cd "$ROOT"

"$ROOT/ci/bootstrap.sh"
# Everything, the CUDA kernels included: they must compile and link here.
AMPBENCH_WITH_CUDA=ON "$ROOT/ci/build.sh"

echo "== ctest" >&2
ctest --test-dir "$ROOT/build" --output-on-failure -j 2 --timeout 600

echo "== pytest" >&2
py_tests=()
for dir in reports reference harness/schema ci; do
  [[ -d "$ROOT/$dir" ]] && find "$ROOT/$dir" -name 'test_*.py' -print -quit | grep -q . && py_tests+=("$dir")
done
if ((${#py_tests[@]})); then
  # The reference tests also replay real dumps of this build's binary.
  AMPBENCH_BINARY="$ROOT/build/ampbench" "$AMPBENCH_HOME/venv/bin/python" -m pytest -q "${py_tests[@]}"
fi

# A short fuzz run of every parser (suite, results, --filter) under ASan and
# UBSan: new seeds from this build's results, 10 s per target. The long run
# is `ci/fuzz.sh 200` by hand (docs/bad-input.md).
echo "== fuzz" >&2
AMPBENCH_FUZZ_DIR="$ROOT/build/fuzz" "$ROOT/ci/fuzz.sh" "${AMPBENCH_FUZZ_SECONDS:-10}"
