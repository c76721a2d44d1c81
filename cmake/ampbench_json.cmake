# One nlohmann/json per build. Header-only libraries are compiled into every
# object that includes them, and nlohmann's inline ABI namespace
# (json_abi_v3_11_2, json_abi_v3_11_3, ...) is part of every mangled name that
# mentions a json type: two copies on one machine (the system's and .deps/)
# seen by different targets link into undefined references, as on the H200
# (shared/evidence/h200-2026-11-30/build-link-error.log).
#
# So every target that uses json links ampbench_json (never
# nlohmann_json::nlohmann_json directly). It carries the include directory of
# the one package find_package() chose and that package's version as compile
# definitions; harness/core/json.h static_asserts that the json.hpp a
# translation unit actually reads has that version, so another copy earlier
# on the include path fails the build with a message, not the link.
#
# Expects find_package(nlohmann_json) to have run. Used by the top-level
# CMakeLists.txt and by ci/json-decoy-test.sh's tiny project.
if(NOT nlohmann_json_VERSION MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)")
  message(FATAL_ERROR "ampbench: cannot read nlohmann/json's version from its CMake package "
                      "(nlohmann_json_VERSION='${nlohmann_json_VERSION}', nlohmann_json_DIR='${nlohmann_json_DIR}')")
endif()
set(AMPBENCH_JSON_MAJOR ${CMAKE_MATCH_1})
set(AMPBENCH_JSON_MINOR ${CMAKE_MATCH_2})
set(AMPBENCH_JSON_PATCH ${CMAKE_MATCH_3})
get_target_property(AMPBENCH_JSON_INCLUDE nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "ampbench: nlohmann/json ${nlohmann_json_VERSION} (${nlohmann_json_DIR}, headers ${AMPBENCH_JSON_INCLUDE})")

add_library(ampbench_json INTERFACE)
target_link_libraries(ampbench_json INTERFACE nlohmann_json::nlohmann_json)
# core/json.h lives in harness/ (kernels/ and gate/ include it too).
target_include_directories(ampbench_json INTERFACE ${CMAKE_CURRENT_LIST_DIR}/../harness)
target_compile_definitions(ampbench_json INTERFACE
  AMPBENCH_NLOHMANN_JSON_MAJOR=${AMPBENCH_JSON_MAJOR}
  AMPBENCH_NLOHMANN_JSON_MINOR=${AMPBENCH_JSON_MINOR}
  AMPBENCH_NLOHMANN_JSON_PATCH=${AMPBENCH_JSON_PATCH})
