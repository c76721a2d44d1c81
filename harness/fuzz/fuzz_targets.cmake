# The libFuzzer targets (clang only): the suite parser, the results and
# Google Benchmark readers, the --filter parser and matcher. The files the
# fuzzers drive are compiled here with ASan, UBSan and coverage; what they
# only link (the model families' module builds, LibTorch) is the ordinary
# build's layer libraries, so the fuzz build costs a few parser files instead
# of a second sanitized copy of every model. The objects given here come
# before the libraries on the link line, so the sanitized copy of any file in
# both is the one linked.
# ci/fuzz.sh runs them (CTests fuzz.<target>: 10 s each; the long run by hand).
set(ampbench_fuzz_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=undefined)

# A clang without its compiler-rt (a machine's own clang) would fail the whole
# build at the link: try it first, and leave the targets out if it fails.
include(CheckCXXSourceCompiles)
list(JOIN ampbench_fuzz_sanitizers " " CMAKE_REQUIRED_FLAGS)
string(PREPEND CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer ")
check_cxx_source_compiles([[
  #include <cstddef>
  #include <cstdint>
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
]] AMPBENCH_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
if(NOT AMPBENCH_HAVE_LIBFUZZER)
  message(STATUS "clang links no libFuzzer here: no fuzz targets (ci/fuzz.sh and ci/test.sh say so)")
  return()
endif()

# ampbench_fuzz_target(NAME SOURCES ... LINK ...)
function(ampbench_fuzz_target name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LINK")
  add_executable(${name} ${arg_SOURCES})
  # -O1 -g: libFuzzer's recommendation (fast enough to explore, stacks that
  # name the line); the last -O on the command line wins over the build type's,
  # and -UNDEBUG keeps the parsers' asserts that a release build drops.
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer-no-link ${ampbench_fuzz_sanitizers} -O1 -g -UNDEBUG)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer ${ampbench_fuzz_sanitizers})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_include_directories(${name} SYSTEM PRIVATE ${TORCH_INCLUDE_DIRS})
  target_link_libraries(${name} PRIVATE ampbench_json ${arg_LINK})
  # A file compiled here must be its own object in the layer libraries too:
  # inside a unity batch, the batch's other symbols would pull it into the
  # link beside this sanitized copy (a duplicate definition).
  set_source_files_properties(${arg_SOURCES} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  # Other flags than the precompiled header's: it cannot be used.
  set_target_properties(${name} PROPERTIES DISABLE_PRECOMPILE_HEADERS ON
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz/bin)
endfunction()

# A suite names model families, whose registrations carry their LibTorch
# modules' builds: the suite target links the models layer (and what it
# stands on) unsanitized.
ampbench_fuzz_target(fuzz_suite
  SOURCES fuzz/fuzz_suite.cpp suite/suite.cpp suite/case_reader.cpp suite/case_list.cpp suite/suite_sections.cpp
          suite/memory_estimate.cpp suite/scripted_models.cpp suite/training_options.cpp suite/fp8_plans.cpp
          suite/convergence_section.cpp
          spec/loss.cpp spec/fp8_settings.cpp spec/control.cpp spec/workload_traits.cpp models/model_family.cpp
          core/precision.cpp core/build_info.cpp io/json_file.cpp optim/impl.cpp amp/autocast_guard.cpp
  LINK ampbench_layer_models)
ampbench_fuzz_target(fuzz_results
  SOURCES fuzz/fuzz_results.cpp gate/results_file.cpp results/results_file.cpp results/json_fields.cpp io/json_file.cpp)
ampbench_fuzz_target(fuzz_filter
  SOURCES fuzz/fuzz_filter.cpp runner/case_filter.cpp core/precision.cpp optim/impl.cpp spec/control.cpp
          spec/workload_traits.cpp
  LINK ampbench_re2 ampbench_torch)

# The short run: each target 10 s on seeds from suites/, this build's results
# (the smoke run's among them) and typical filters.
foreach(target fuzz_suite fuzz_results fuzz_filter)
  add_test(NAME fuzz.${target}
           COMMAND ${PROJECT_SOURCE_DIR}/ci/fuzz.sh --no-build 10 ${target})
  set_tests_properties(fuzz.${target} PROPERTIES LABELS suite TIMEOUT 300
                       ENVIRONMENT "AMPBENCH_BUILD_DIR=${CMAKE_BINARY_DIR};AMPBENCH_PYTHON=${AMPBENCH_PYTHON}")
endforeach()
set_tests_properties(fuzz.fuzz_results PROPERTIES FIXTURES_REQUIRED smoke_results)
