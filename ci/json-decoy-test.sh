#!/usr/bin/env bash
# Proves that a second nlohmann/json on the include path cannot slip into a
# build (cmake/ampbench_json.cmake): a tiny project configured like the real
# one (same nlohmann_json package, the same ampbench_json target and
# core/json.h check) is built with a decoy json.hpp of another version
#   1. nowhere: it builds and reads the configured version;
#   2. on CPLUS_INCLUDE_PATH (a "system" directory, like /usr/include on the
#      H200): it builds with the configured version or fails with the check's
#      message (which one depends on where the real package lives);
#   3. first on the target's own include path: it must fail with the message;
#   4. seen by a target that includes core/json.h without linking
#      ampbench_json (the H200's precompiled header): it must fail, naming
#      ampbench_json.
# Usage: ci/json-decoy-test.sh NLOHMANN_JSON_DIR WORK_DIR [CMAKE_GENERATOR]
# (CTest build.json_single_version passes the main build's values.)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
json_dir="${1:?usage: json-decoy-test.sh NLOHMANN_JSON_DIR WORK_DIR [GENERATOR]}"
work="${2:?usage: json-decoy-test.sh NLOHMANN_JSON_DIR WORK_DIR [GENERATOR]}"
generator="${3:-Ninja}"
rm -rf "$work" && mkdir -p "$work/src" "$work/decoy/nlohmann"
fail() { echo "json-decoy-test: FAIL: $*" >&2; exit 1; }

# The decoy: only what core/json.h reads, at a version no release has.
cat >"$work/decoy/nlohmann/json.hpp" <<'HPP'
#pragma once
#define NLOHMANN_JSON_VERSION_MAJOR 3
#define NLOHMANN_JSON_VERSION_MINOR 99
#define NLOHMANN_JSON_VERSION_PATCH 0
namespace nlohmann { struct json {}; }
HPP
cat >"$work/src/main.cpp" <<'CPP'
#include <cstdio>
#include "core/json.h"
int main() {
  std::printf("%d.%d.%d\n", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH);
  return nlohmann::json::parse("[1]").size() == 1 ? 0 : 1;
}
CPP
cat >"$work/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(json_decoy LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(nlohmann_json 3 REQUIRED)
include("$ROOT/cmake/ampbench_json.cmake")
add_executable(uses_json main.cpp)
target_link_libraries(uses_json PRIVATE ampbench_json)
if(DECOY_FIRST)
  target_include_directories(uses_json SYSTEM BEFORE PRIVATE "\${DECOY_FIRST}")
endif()
if(UNLINKED)
  add_executable(unlinked main.cpp)
  target_include_directories(unlinked PRIVATE "$ROOT/harness")
endif()
CMAKE

# build NAME [cmake -D args...]: configures and builds; the output is in
# $work/NAME.log, the exit status is the build's.
build() {
  local name="$1"; shift
  { cmake -S "$work/src" -B "$work/$name" -G "$generator" -Dnlohmann_json_DIR="$json_dir" "$@" &&
    cmake --build "$work/$name"; } >"$work/$name.log" 2>&1
}
configured="$(build clean && grep -o 'nlohmann/json [0-9.]*' "$work/clean.log" | head -1 | cut -d' ' -f2)" ||
  { cat "$work/clean.log" >&2; fail "the tiny project does not build without a decoy"; }
[[ "$("$work/clean/uses_json")" == "$configured" ]] || fail "clean build reads $("$work/clean/uses_json"), configured $configured"
echo "json-decoy-test: 1 no decoy: builds with the configured nlohmann/json $configured"

message="reads nlohmann/json 3.99.0 but CMake configured $configured"
if CPLUS_INCLUDE_PATH="$work/decoy" build system; then
  seen="$("$work/system/uses_json")"
  [[ "$seen" == "$configured" ]] || fail "decoy on CPLUS_INCLUDE_PATH: built, but reads $seen"
  echo "json-decoy-test: 2 decoy on CPLUS_INCLUDE_PATH: builds with the configured $configured"
else
  grep -q "$message" "$work/system.log" || { cat "$work/system.log" >&2; fail "decoy on CPLUS_INCLUDE_PATH: failed without the check's message"; }
  echo "json-decoy-test: 2 decoy on CPLUS_INCLUDE_PATH: fails with '$message'"
fi

build first -DDECOY_FIRST="$work/decoy" && fail "decoy first on the include path: the build succeeded"
grep -q "$message" "$work/first.log" || { cat "$work/first.log" >&2; fail "decoy first: failed without the check's message"; }
echo "json-decoy-test: 3 decoy first on the include path: fails with '$message'"

build unlinked -DUNLINKED=ON && fail "a target not linking ampbench_json built"
grep -q "does not link ampbench_json" "$work/unlinked.log" || { cat "$work/unlinked.log" >&2; fail "unlinked target: failed without naming ampbench_json"; }
echo "json-decoy-test: 4 target without ampbench_json: fails naming ampbench_json"
echo "json-decoy-test: ok"
