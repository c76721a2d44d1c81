# One CTest test per GoogleTest suite, named "Suite.*" after the filter it
# runs. gtest_discover_tests makes one process per test, and every process
# of a LibTorch binary pays about half a second of library start-up before
# its first assertion: 500 tests spent two minutes starting. A suite shares
# one process; a failing CTest still names the suite, and its output names
# the test.
#
#   ampbench_gtest_suites(TARGET [LABELS label...] [TIMEOUT seconds])
#
# So a test must leave the process as it found it (a fixture restores what
# it changes). Discovery runs after each link, as gtest_discover_tests' does.
#
# Each suite runs at one OpenMP thread: beside another test on 2 cores, two
# LibTorch threads spin at every barrier of the suites' tiny tensors (the
# unit tier took 97 s of user CPU at two threads and 80 s at one, the same
# 207 tests passing). A test of thread-dependent behaviour sets its own
# count.
#
# Script mode (cmake -P this file) is the discovery itself:
#   -D EXE=... -D OUT=... -D LABELS=a,b -D TIMEOUT=s
# (commas, since a semicolon would split the command line's arguments).
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.22)
  string(REPLACE "," ";" LABELS "${LABELS}")
  execute_process(COMMAND "${EXE}" --gtest_list_tests
                  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ampbench: ${EXE} --gtest_list_tests failed (${rc}):\n${listing}${errors}")
  endif()
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(script "")
  set(suite "")
  set(count 0)
  foreach(line IN LISTS lines)
    # "Suite." or "Prefix/Suite.  # TypeParam = ..." starts a suite; an
    # indented name is one of its tests; anything else is gtest_main's banner.
    if(line MATCHES "^([A-Za-z0-9_/]+)\\.( +#.*)?$")
      set(suite "${CMAKE_MATCH_1}")
      if(suite MATCHES "^DISABLED_")
        continue()
      endif()
      set(name "${suite}.*")
    elseif((suite AND line MATCHES "^  ([A-Za-z0-9_/]+)( +#.*)?$") OR line STREQUAL ""
           OR line MATCHES "^Running main\\(\\) from ")
      continue()
    else()
      # A name this reader cannot parse would be a test no CTest runs.
      message(FATAL_ERROR "ampbench: cannot read this line of ${EXE} --gtest_list_tests: '${line}'")
    endif()
    string(APPEND script "add_test([=[${name}]=] [==[${EXE}]==] [=[--gtest_filter=${name}]=])\n"
                         "set_tests_properties([=[${name}]=] PROPERTIES LABELS [=[${LABELS}]=] TIMEOUT ${TIMEOUT}"
                         " ENVIRONMENT OMP_NUM_THREADS=1)\n")
    math(EXPR count "${count} + 1")
  endforeach()
  if(count EQUAL 0)
    message(FATAL_ERROR "ampbench: ${EXE} lists no GoogleTest suite:\n${listing}")
  endif()
  file(WRITE "${OUT}" "${script}")
  return()
endif()

function(ampbench_gtest_suites target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TIMEOUT" "LABELS")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  string(REPLACE ";" "," labels "${arg_LABELS}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D EXE=$<TARGET_FILE:${target}> -D OUT=${out}
            -D LABELS=${labels} -D TIMEOUT=${arg_TIMEOUT}
            -P ${PROJECT_SOURCE_DIR}/cmake/gtest_suites.cmake
    VERBATIM)
  # Until the binary is built there is nothing to list: say so, as a test
  # that fails, rather than an empty tier.
  set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  file(WRITE "${wrapper}"
       "if(EXISTS [==[${out}]==])\n  include([==[${out}]==])\nelse()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "  set_tests_properties(${target}_NOT_BUILT PROPERTIES LABELS [=[${arg_LABELS}]=])\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${wrapper})
endfunction()
