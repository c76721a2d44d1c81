#!/usr/bin/env bash
# Usage: ci/fuzz.sh [SECONDS]   (default 60 per target)
# Builds the libFuzzer targets in harness/fuzz/ with clang, ASan and UBSan
# (any sanitizer report aborts) and runs each for SECONDS on a corpus seeded
# from suites/ and real results. Exit 0: no crash, leak, hang or sanitizer
# report; else the target's reproducer is in $FUZZ_DIR/<target>/crash-*.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_PER_TARGET="${1:-60}"
AMPBENCH_HOME="${AMPBENCH_HOME:-$HOME/.cache/ampbench}"
PY="$AMPBENCH_HOME/venv/bin/python"
FUZZ_DIR="${AMPBENCH_FUZZ_DIR:-$ROOT/build-fuzz}"
CXX="${AMPBENCH_FUZZ_CXX:-clang++}"
command -v "$CXX" >/dev/null || { echo "fuzz: error: $CXX not found (Debian package clang; ci/bootstrap.sh installs it)" >&2; exit 2; }
# c10/core/ScalarType.h (PrecisionPolicy) and the model families' modules come
# from the pinned torch wheel.
TORCH="$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')" \
  || { echo "fuzz: error: no torch in $PY; run ci/bootstrap.sh" >&2; exit 2; }
mkdir -p "$FUZZ_DIR/bin"

# C++20: torch 2.15's headers need it (std::bit_width, operator<=>), as its
# CMake config says (cxx_std_20); the older torches of the window build with it too.
FLAGS=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I "$ROOT/harness" -isystem "$TORCH/include" -isystem "$TORCH/include/torch/csrc/api/include")
# Only core/build_info.cpp reads where the clone is; the other objects stay
# the same in every clone, so ccache serves them to a fresh one.
BUILD_INFO=(-DAMPBENCH_SOURCE_DIR="\"$ROOT\"" -DAMPBENCH_DEFAULT_PYTHON="\"$PY\"" -DAMPBENCH_COMPILER="\"clang\"")
# core/json.h checks every translation unit against the nlohmann/json CMake
# configured; here the one this compiler finds is the configured one.
json_version() {
  echo '#include <nlohmann/json.hpp>' | "$CXX" -std=c++20 -E -dM -x c++ - 2>/dev/null \
    | awk -v k="NLOHMANN_JSON_VERSION_$1" '$2 == k {print $3}'
}
for part in MAJOR MINOR PATCH; do
  v="$(json_version "$part")"
  [[ -n "$v" ]] || { echo "fuzz: error: $CXX finds no nlohmann/json.hpp (Debian package nlohmann-json3-dev)" >&2; exit 2; }
  FLAGS+=("-DAMPBENCH_NLOHMANN_JSON_$part=$v")
done
C10=(-L "$TORCH/lib" -lc10 -Wl,-rpath,"$TORCH/lib")
TORCH_LIBS=(-L "$TORCH/lib" -ltorch_cpu -lc10 -Wl,-rpath,"$TORCH/lib")
H="$ROOT/harness"

# Each source compiled alone (through ccache when present, so CI's short
# run rebuilds nothing), JOBS at a time: under the sanitizers a model file
# takes 15-20 s, and one at a time the fuzz build was most of CI's fuzz stage.
CCACHE=(); command -v ccache >/dev/null && CCACHE=(ccache)
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
JOBS="${AMPBENCH_FUZZ_JOBS:-$(nproc)}"
# Named by path: gate/results_file.cpp and results/results_file.cpp differ.
object() { echo "$FUZZ_DIR/obj/$(echo "${1#"$ROOT"/}" | tr '/' '_' | sed 's/\.cpp$//').o"; }
compile() {
  local src pid pids=() failed=0
  mkdir -p "$FUZZ_DIR/obj"
  for src in "$@"; do
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    local own=(); [[ "$src" == */core/build_info.cpp ]] && own=("${BUILD_INFO[@]}")
    "${CCACHE[@]}" "$CXX" "${FLAGS[@]}" "${own[@]}" -c "$src" -o "$(object "$src")" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  return $failed
}
# link NAME SOURCES-AND-LINK-FLAGS...: the sources' objects, compiled above.
link() {
  local name="$1" arg objs=() libs=(); shift
  echo "fuzz: linking $name" >&2
  for arg in "$@"; do
    if [[ "$arg" == *.cpp ]]; then objs+=("$(object "$arg")"); else libs+=("$arg"); fi
  done
  "$CXX" "${FLAGS[@]}" "${objs[@]}" "${libs[@]}" -o "$FUZZ_DIR/bin/$name"
}
# A suite names model families, whose registrations carry their LibTorch
# modules' builds (their Linear layers with the FP8 Linear): the suite
# target links them (and LibTorch) too.
MODELS=("$H/models/model_family.cpp" "$H/models/model.cpp" "$H/models/flops.cpp" "$H/models/mlp.cpp"
        "$H/models/cnn.cpp" "$H/models/transformer.cpp" "$H/models/decoder.cpp" "$H/models/gpt2.cpp"
        "$H/models/bert.cpp" "$H/models/hf_attention.cpp" "$H/models/resnet.cpp" "$H/models/vit.cpp"
        "$H/models/linear_stack.cpp" "$H/models/scripted.cpp" "$H/models/linear.cpp"
        "$H/fp8/fp8_linear.cpp" "$H/fp8/delayed_scaling.cpp" "$H/fp8/fp8_cast.cpp" "$H/fp8/fp8_recipe.cpp"
        "$H/fp8/conversion.cpp")
SUITE=("$H/fuzz/fuzz_suite.cpp" "$H/suite/suite.cpp" "$H/suite/case_reader.cpp" "$H/suite/case_list.cpp" \
  "$H/suite/suite_sections.cpp" "$H/suite/memory_estimate.cpp" "$H/amp/autocast_guard.cpp" \
  "$H/suite/scripted_models.cpp" "$H/suite/training_options.cpp" "$H/suite/fp8_plans.cpp" "$H/spec/loss.cpp" \
  "$H/spec/fp8_settings.cpp" \
  "$H/core/precision.cpp" "$H/core/build_info.cpp" "$H/io/json_file.cpp" "$H/optim/impl.cpp" "$H/spec/control.cpp" \
  "$H/spec/workload_traits.cpp" "${MODELS[@]}" "${TORCH_LIBS[@]}")
RESULTS=("$H/fuzz/fuzz_results.cpp" "$H/gate/results_file.cpp" "$H/results/results_file.cpp" \
  "$H/results/json_fields.cpp" "$H/io/json_file.cpp")
FILTER=("$H/fuzz/fuzz_filter.cpp" "$H/runner/case_filter.cpp" "$H/core/precision.cpp" "$H/optim/impl.cpp" \
  "$H/spec/control.cpp" "$H/spec/workload_traits.cpp" -lre2 "${C10[@]}")
echo "fuzz: building the 3 targets, $JOBS compiles at a time" >&2
mapfile -t SOURCES < <(printf '%s\n' "${SUITE[@]}" "${RESULTS[@]}" "${FILTER[@]}" | grep '\.cpp$' | sort -u)
compile "${SOURCES[@]}" || { echo "fuzz: error: a source did not compile (above)" >&2; exit 1; }
link fuzz_suite "${SUITE[@]}"
link fuzz_results "${RESULTS[@]}"
link fuzz_filter "${FILTER[@]}"

# Seed corpora: the real suites, real and sample results, typical filters.
seed() { mkdir -p "$FUZZ_DIR/$1/seeds" "$FUZZ_DIR/$1/corpus"; }
seed fuzz_suite; cp "$ROOT"/suites/*.json "$FUZZ_DIR/fuzz_suite/seeds/"
seed fuzz_results
for f in "$ROOT"/build/test-results/*/results.json "$ROOT"/harness/gate/testdata/*.json; do
  [[ -f "$f" ]] && cp "$f" "$FUZZ_DIR/fuzz_results/seeds/$(echo "$f" | tr '/' '_')"
done
(cd "$ROOT" && "$PY" -c 'import json, sys; from reports.tests.sample_results import make_results; json.dump(make_results(), sys.stdout)') \
  >"$FUZZ_DIR/fuzz_results/seeds/sample.json"
seed fuzz_filter
i=0
for f in 'workload=clip,precision=fp16|bf16' '^plain/mlp/' 'tag=tiny' '^(a|b)$' '(.*)*x' 'model=cnn,optimizer=adamw'; do
  printf '%s' "$f" >"$FUZZ_DIR/fuzz_filter/seeds/$((i++))"
done

status=0
for t in fuzz_suite fuzz_results fuzz_filter; do
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s" >&2
  (cd "$FUZZ_DIR/$t" && "$FUZZ_DIR/bin/$t" corpus seeds -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
     -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 >"$FUZZ_DIR/$t.log" 2>&1) || {
    status=1
    echo "fuzz: $t FAILED; see $FUZZ_DIR/$t.log and $FUZZ_DIR/$t/crash-*" >&2
    tail -30 "$FUZZ_DIR/$t.log" >&2
  }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$FUZZ_DIR/$t.log" | sed "s/^/fuzz: $t: /" >&2 || true
done
[[ $status == 0 ]] && echo "fuzz: ok: no crash in 3 targets x ${SECONDS_PER_TARGET}s" >&2
exit $status
