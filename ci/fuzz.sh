#!/usr/bin/env bash
# Usage: ci/fuzz.sh [--no-build] [SECONDS] [TARGET...]
# Runs the libFuzzer targets (harness/fuzz/: fuzz_suite, fuzz_results,
# fuzz_filter; default all three) for SECONDS each (default 60) on a corpus
# seeded from suites/ and real results. They are built by the ordinary build
# (harness/fuzz/fuzz_targets.cmake: the parsers with ASan, UBSan and
# coverage) when its compiler is clang; this builds them first unless
# --no-build (the CTests fuzz.<target>, after the build). Exit 0: no crash,
# leak, hang or sanitizer report; 1: the target's reproducer is in
# $FUZZ_DIR/<target>/crash-*; 2: no clang build to run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_FIRST=1
[[ "${1:-}" == --no-build ]] && { BUILD_FIRST=0; shift; }
SECONDS_PER_TARGET="${1:-60}"
[[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || { echo "fuzz: error: SECONDS must be a whole number, got '$SECONDS_PER_TARGET'" >&2; exit 2; }
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(fuzz_suite fuzz_results fuzz_filter)
for t in "${TARGETS[@]}"; do
  [[ " fuzz_suite fuzz_results fuzz_filter " == *" $t "* ]] \
    || { echo "fuzz: error: unknown target '$t' (fuzz_suite, fuzz_results, fuzz_filter)" >&2; exit 2; }
done
# shellcheck source=ci/torch-env.sh
source "$ROOT/ci/torch-env.sh"  # VENV, BUILD
PY="${AMPBENCH_PYTHON:-$VENV/bin/python}"
FUZZ_DIR="${AMPBENCH_FUZZ_DIR:-$BUILD/fuzz}"

no_fuzz_targets() {
  echo "fuzz: error: $BUILD has no fuzz targets: they need a clang build with its libFuzzer ($BUILD is configured with" \
       "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || echo nothing);" \
       "ci/bootstrap.sh installs clang, and a new build folder picks it)" >&2
  exit 2
}
if ((BUILD_FIRST)); then
  # A folder configured with GCC has no such targets for ninja to build.
  [[ ! -f "$BUILD/build.ninja" ]] || grep -q "^build fuzz/bin/fuzz_suite:" "$BUILD/build.ninja" || no_fuzz_targets
  "$ROOT/ci/build.sh" "${TARGETS[@]}"
fi
for t in "${TARGETS[@]}"; do [[ -x "$BUILD/fuzz/bin/$t" ]] || no_fuzz_targets; done

# Seed corpora: the real suites, real and sample results, typical filters.
# Each target seeds its own folders, so the CTests can run side by side.
seed_fuzz_suite() { cp "$ROOT"/suites/*.json "$1/"; }
seed_fuzz_results() {
  local f
  for f in "$BUILD"/test-results/*/results.json "$ROOT"/harness/gate/testdata/*.json; do
    [[ -f "$f" ]] && cp "$f" "$1/$(echo "$f" | tr '/' '_')"
  done
  (cd "$ROOT" && "$PY" -c 'import json, sys; from reports.tests.sample_results import make_results; json.dump(make_results(), sys.stdout)') \
    >"$1/sample.json"
}
seed_fuzz_filter() {
  local f i=0
  for f in 'workload=clip,precision=fp16|bf16' '^plain/mlp/' 'tag=tiny' '^(a|b)$' '(.*)*x' 'model=cnn,optimizer=adamw'; do
    printf '%s' "$f" >"$1/$((i++))"
  done
}

status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$FUZZ_DIR/$t/seeds" "$FUZZ_DIR/$t/corpus"
  "seed_$t" "$FUZZ_DIR/$t/seeds"
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s" >&2
  (cd "$FUZZ_DIR/$t" && "$BUILD/fuzz/bin/$t" corpus seeds -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
     -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 >"$FUZZ_DIR/$t.log" 2>&1) || {
    status=1
    echo "fuzz: $t FAILED; see $FUZZ_DIR/$t.log and $FUZZ_DIR/$t/crash-*" >&2
    tail -30 "$FUZZ_DIR/$t.log" >&2
  }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$FUZZ_DIR/$t.log" | sed "s/^/fuzz: $t: /" >&2 || true
done
[[ $status == 0 ]] && echo "fuzz: ok: no crash in ${TARGETS[*]} x ${SECONDS_PER_TARGET}s" >&2
exit $status
